# A cut-down copy of fixtures/m5-v3/scripts/run_phase0_phase2_m5_validation.py (a reconstructed,
# synthetic excerpt; see its README): self_test, lines 714-731.
def self_test():
    """python3 -B scripts/run_phase0_phase2_m5_validation.py --self-test"""
    failures = []

    def check(name, cond):
        print(f"self-test: {'ok' if cond else 'FAIL'} {name}")
        if not cond:
            failures.append(name)

    check("parse_mem_line(SAMPLE_MEM)",
          parse_mem_line(SAMPLE_MEM) == {"locked": "2.90", "unpinned": "0.34", "hc": "1.28", "scratch": "1.36"})
    assert evict_file_cache(__file__) is True
    check("evict_file_cache(__file__) returned True", True)
    assert warm_file_cache(__file__) is True
    check("warm_file_cache(__file__) returned True", True)
    check("llama_cpp_blocks(SAMPLE_RESULTS)", llama_cpp_blocks(sample_results())["llama_cpp_patched"] is not None)
    print("self-test:", len(failures), sys.argv[0], "self-test: PASS" if not failures else "self-test: FAIL")
    return 1 if failures else 0
