# A cut-down copy of fixtures/m5/scripts/run_phase0_phase2_m5_validation.py (a reconstructed,
# synthetic excerpt; see its README): self_test, lines 714-735.
def self_test():
    """python3 -B scripts/run_phase0_phase2_m5_validation.py --self-test"""
    failures = []

    def check(name, cond):
        print(f"self-test: {'ok' if cond else 'FAIL'} {name}")
        if not cond:
            failures.append(name)

    check("parse_mem_line(SAMPLE_MEM)",
          parse_mem_line(SAMPLE_MEM) == {"locked": "2.90", "unpinned": "0.34", "hc": "1.28", "scratch": "1.36"})
    probe = write_probe_file()  # 256 MiB, read back so that it is fully cached
    before = residency(probe)
    ok = evict_file_cache(probe)
    after = residency(probe)
    check(f"evict_file_cache: mincore residency {before:.2f} -> {after:.2f}", ok and after <= EVICTED_MAX)
    cold_probe = write_probe_file(nocache=True)  # written with F_NOCACHE: not resident
    warm_file_cache(cold_probe)
    check(f"warm_file_cache: mincore residency -> {residency(cold_probe):.2f}", residency(cold_probe) >= 0.99)
    check("llama_cpp_blocks(SAMPLE_RESULTS)", llama_cpp_blocks(sample_results())["llama_cpp_patched"] is not None)
    print("self-test: PASS" if not failures else f"self-test: FAIL ({len(failures)} failed)")
    return 1 if failures else 0
