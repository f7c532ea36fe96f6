package rules

// RunnerFile is the validation runner's source in a snapshot, relative to
// its root: the selftest rule reads its --self-test. (The cache rule, which
// read its cache_target, moved to engine/rules/cache, where the spec names
// the source.)
const RunnerFile = "scripts/run_phase0_phase2_m5_validation.py"
