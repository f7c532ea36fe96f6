# A synthetic excerpt of the strata validation runner, cut down from
# fixtures/m5-v3/scripts/run_phase0_phase2_m5_validation.py:665-681 (audit v3 §1d, F19).
def llama_cpp_blocks(results):
    u2 = results["prev_llama_unpatched"]["step2_ub1024"]
    results["llama_cpp_unpatched"] = {
        "decode_tok_s": u2["gen_tok_s"],
        "whole_run_disk0_mb_per_65tok": round(u2["disk0_mb"] / 65.0, 1),
    }
    return results
