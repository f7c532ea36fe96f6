package main

// The strata runs, as tables of printed values. Strings are the text the
// engine prints; a value the audit gives is listed in the run's audit set
// (by metric name) and VALUES.md marks it so, every other value is
// synthetic. See fixtures/m5-v3/README.md and docs/audit-v3.md.

// model is one expert file configuration.
type model struct {
	quant       string // "Q2_0", "IQ3_S"
	gguf        string // dense GGUF path in the checkout
	expertsGiB  string // .experts file size as logged (audit)
	slots       string // arena slots (audit)
	classes     string // arena size classes (audit)
	mem         [4]string
	footprintTF [4]string
}

var (
	q20 = model{quant: "Q2_0", gguf: "models/K256-Q2_0-metal.gguf", expertsGiB: "15.820", slots: "2441", classes: "1",
		mem:         [4]string{"2.90", "0.34", "1.28", "1.36"},
		footprintTF: [4]string{"4.70", "4.65", "7.61", "7.56"}}
	iq3s = model{quant: "IQ3_S", gguf: "models/K256-IQ3_S-metal.gguf", expertsGiB: "23.419", slots: "1550", classes: "3",
		mem:         [4]string{"2.71", "0.52", "1.28", "1.36"},
		footprintTF: [4]string{"4.74", "4.68", "7.69", "7.63"}}
)

// Values every strata run logs the same (audit where noted in runSpec.audit).
const (
	denseGiB     = "4.220" // audit: dense K256-*-metal.gguf 4.220 GiB
	denseGB      = "4.53"  // audit
	nLayers      = "48"    // synthetic: 48 × 256 = the audit's 12,288 slices
	expertsPer   = "256"   // synthetic
	expertSlices = "12288" // audit: 12,288 expert slices
	workingSet   = "18.80" // audit: 18.8 GB cap
	arenaEnv     = "3.4"   // audit: env STRATA_METAL_ARENA_GB
	arenaGB      = "3.40"  // audit
	pageKiB      = "16"    // audit: 16 KiB pages
	gemmC        = "1024"  // audit: C = 1,024
	gemmCells    = "4224"  // audit: 4,224 cells
	gemmGB       = "1.36"  // audit: plan line and prompt_gemm_init line
	peakPrefill  = "6.50"  // audit: 6.5 < 18.8 GB
	iq3sFillGB   = "2.70"  // synthetic: IQ3_S fills 1,440 slots of 3 classes
	iq3sFilled   = "1440"  // audit
)

// runSpec is one strata run.
type runSpec struct {
	name   string
	group  string // "speed" or "tf_kld"
	model  model
	moce   string // "0" or "0.85"
	config string // "q2_0_moce0", "q2_0_moce085", "iq3_s"
	prompt string // prompt or TF token file
	tokens string // prompt tokens
	domain string // TF domain

	initMs   string
	filled   string // arena slots filled by the profile fill
	fillGB   string
	fillRate string

	prefillMs, prefillTokS string // speed
	footprint              [4]string
	decodeTokS             string // speed, 64 tokens
	hitArena, hitRA        string
	misses                 string
	hostWait, t1GPU        string // speed

	kld                 [4]string // TF: mean, median, p99, max
	top1                string    // TF: count of 64
	top1Pct             string
	ppl, pplRef, evalMs string

	minAvail  string
	durationS string

	audit []string // metric names whose value the audit gives for this run
}

var q20Footprint43 = [4]string{"4.72", "4.67", "7.64", "7.59"}

var speedRuns = []runSpec{
	{name: "strata_q2_0_moce0_short_43tok", group: "speed", model: q20, moce: "0", config: "q2_0_moce0",
		prompt: "data/m5_val_prompts/strata_prompt_43tok.txt", tokens: "43",
		initMs: "339.50", filled: "2362", fillRate: "3.66",
		prefillMs: "201.37", footprint: [4]string{"4.71", "4.66", "7.62", "7.57"},
		decodeTokS: "9.51", hitArena: "63.86", hitRA: "18.58", misses: "84.3", hostWait: "24.83", t1GPU: "103.870",
		minAvail: "3.21", durationS: "14.87",
		audit: []string{"init_ms", "fill_gb_s", "fill_s", "decode_tok_s", "hit_arena_pct", "hit_ra_pct", "hit_total_pct", "misses_per_tok", "prompt_tokens"}},
	{name: "strata_metal_optimized_k256_q2_0_moce085", group: "speed", model: q20, moce: "0.85", config: "q2_0_moce085",
		prompt: "data/m5_val_prompts/strata_prompt_43tok.txt", tokens: "43",
		initMs: "356.06", filled: "2004", fillRate: "6.41",
		prefillMs: "198.62", footprint: q20Footprint43,
		decodeTokS: "13.52", hitArena: "82.17", hitRA: "9.38", misses: "40.6", hostWait: "16.11", t1GPU: "72.400",
		minAvail: "3.09", durationS: "10.94",
		audit: []string{"init_ms", "decode_tok_s", "hit_arena_pct", "hit_ra_pct", "hit_total_pct", "misses_per_tok",
			"host_wait_ms_per_tok", "pure_gpu_ms_per_tok", "mem_locked_gb", "mem_unpinned_gb", "mem_hc_gb", "mem_scratch_gb", "prompt_tokens"}},
	{name: "strata_iq3_s_short_43tok", group: "speed", model: iq3s, moce: "0", config: "iq3_s",
		prompt: "data/m5_val_prompts/strata_prompt_43tok.txt", tokens: "43",
		initMs: "418.56", filled: iq3sFilled, fillGB: iq3sFillGB, fillRate: "6.10",
		prefillMs: "243.91", footprint: [4]string{"4.75", "4.69", "7.70", "7.64"},
		decodeTokS: "8.37", hitArena: "52.60", hitRA: "24.72", misses: "108.9", hostWait: "29.44", t1GPU: "116.312",
		minAvail: "2.97", durationS: "15.62",
		audit: []string{"init_ms", "fill_gb_s", "hit_arena_pct", "hit_ra_pct", "hit_total_pct", "misses_per_tok", "arena_slots", "arena_slots_filled", "arena_size_classes", "prompt_tokens"}},
	{name: "strata_q2_0_moce085_prefill_1024tok", group: "speed", model: q20, moce: "0.85", config: "q2_0_moce085",
		prompt: "data/m5_val_prompts/strata_prompt_1024tok.txt", tokens: "1024",
		initMs: "347.12", filled: "1987", fillRate: "6.44",
		prefillMs: "3194.19", footprint: [4]string{"4.73", "4.67", "7.65", "7.60"},
		decodeTokS: "13.61", hitArena: "84.23", hitRA: "8.50", misses: "37.9", hostWait: "14.10", t1GPU: "71.712",
		minAvail: "2.91", durationS: "13.27",
		audit: []string{"fill_gb_s", "prefill_ms", "prefill_tok_s", "prefill_tokens", "phys_footprint_before_gb", "phys_footprint_after_gb",
			"resident_size_before_gb", "resident_size_after_gb", "hit_arena_pct", "hit_ra_pct", "hit_total_pct", "host_wait_ms_per_tok", "pure_gpu_ms_per_tok"}},
	{name: "strata_q2_0_moce085_prefill_2048tok", group: "speed", model: q20, moce: "0.85", config: "q2_0_moce085",
		prompt: "data/m5_val_prompts/strata_prompt_2048tok.txt", tokens: "2048",
		initMs: "351.88", filled: "2011", fillRate: "6.39",
		prefillMs: "5793.65", footprint: [4]string{"4.73", "4.67", "7.65", "7.60"},
		decodeTokS: "13.70", hitArena: "86.50", hitRA: "7.36", misses: "35.2", hostWait: "13.87", t1GPU: "71.204",
		minAvail: "2.85", durationS: "16.38",
		audit: []string{"fill_gb_s", "prefill_ms", "prefill_tok_s", "prefill_tokens", "phys_footprint_before_gb", "phys_footprint_after_gb",
			"resident_size_before_gb", "resident_size_after_gb", "hit_arena_pct", "hit_ra_pct", "hit_total_pct", "min_avail_gib"}},
}

// tfRun builds a TF run: 3 configurations × 3 domains.
func tfRun(m model, moce, config, domain, init, filled, rate, hitA, hitR, misses string, kld [4]string, top1, top1Pct, ppl, pplRef, evalMs, minAvail, dur string, audit ...string) runSpec {
	fillGB := ""
	if m.quant == "IQ3_S" {
		fillGB = iq3sFillGB
	}
	return runSpec{name: "strata_tf_" + config + "_" + domain, group: "tf_kld", model: m, moce: moce, config: config,
		prompt: "data/m5_val_prompts/eval_tf_96tok_" + domain + ".txt", tokens: "32", domain: domain,
		initMs: init, filled: filled, fillGB: fillGB, fillRate: rate, footprint: m.footprintTF,
		hitArena: hitA, hitRA: hitR, misses: misses, kld: kld, top1: top1, top1Pct: top1Pct, ppl: ppl, pplRef: pplRef, evalMs: evalMs,
		minAvail: minAvail, durationS: dur,
		audit: append([]string{"eval_tokens", "tf_n_prompt", "tf_n_gen"}, audit...)}
}

var tfRuns = []runSpec{
	tfRun(iq3s, "0", "iq3_s", "ops_tools", "412.90", iq3sFilled, "7.03", "55.12", "23.40", "101.4",
		[4]string{"0.058127", "0.011904", "0.871263", "1.902217"}, "58", "90.63", "5.02", "4.83", "2093.18", "3.36", "7.41", "fill_gb_s", "fill_s", "min_avail_gib", "top1_count"),
	tfRun(iq3s, "0", "iq3_s", "chat_json", "409.33", iq3sFilled, "7.05", "54.38", "24.11", "104.7",
		[4]string{"0.061944", "0.013377", "0.902518", "2.117406"}, "57", "89.06", "3.29", "3.18", "2101.77", "3.31", "7.38", "fill_gb_s", "fill_s", "top1_count"),
	tfRun(iq3s, "0", "iq3_s", "ja", "415.02", iq3sFilled, "7.07", "53.90", "23.87", "106.2",
		[4]string{"0.073312", "0.016452", "1.043871", "2.560934"}, "58", "90.63", "26.48", "25.57", "2110.45", "3.28", "7.52", "fill_gb_s", "fill_s", "top1_count"),
	tfRun(q20, "0", "q2_0_moce0", "ops_tools", "335.05", "1968", "6.42", "66.21", "17.33", "80.1",
		[4]string{"0.298412", "0.087730", "3.714095", "6.120944"}, "48", "75.00", "5.71", "4.83", "2087.36", "3.24", "7.66", "init_ms"),
	tfRun(q20, "0", "q2_0_moce0", "chat_json", "341.78", "1975", "6.40", "65.08", "17.95", "82.6",
		[4]string{"0.341207", "0.104211", "3.871502", "6.874401"}, "49", "76.56", "3.77", "3.18", "2092.04", "3.19", "7.59"),
	tfRun(q20, "0", "q2_0_moce0", "ja", "338.16", "2019", "6.43", "64.77", "18.02", "83.0",
		[4]string{"0.342476", "0.109968", "4.002317", "7.015568"}, "48", "75.00", "28.91", "25.57", "2099.62", "3.22", "7.71"),
	tfRun(q20, "0.85", "q2_0_moce085", "ops_tools", "344.71", "1961", "6.41", "83.02", "9.11", "39.2",
		[4]string{"0.331208", "0.098415", "3.902710", "6.433129"}, "49", "76.56", "5.89", "4.83", "2081.90", "3.14", "7.48"),
	tfRun(q20, "0.85", "q2_0_moce085", "chat_json", "349.93", "1990", "6.39", "82.64", "9.40", "40.1",
		[4]string{"0.362914", "0.116032", "4.118655", "7.201876"}, "47", "73.44", "3.84", "3.18", "2095.13", "3.11", "7.44"),
	tfRun(q20, "0.85", "q2_0_moce085", "ja", "346.20", "2027", "6.42", "81.97", "9.52", "41.3",
		[4]string{"0.375963", "0.121876", "4.250093", "7.336410"}, "48", "75.00", "29.52", "25.57", "2104.87", "3.17", "7.28", "ppl", "ppl_ref"),
}

// strataDurationSum is the audit's sum of the run durations (§4), which the
// 14 strata runs of this invocation make up.
const strataDurationSum = "138.55"

// macroConfigs is the order the KLD macros are written in, with the audit's
// values (m5-reading: the assignment of pairs to configurations).
var macroConfigs = []struct{ config, meanKLD, top1 string }{
	{"iq3_s", "0.064461", "90.107"},
	{"q2_0_moce0", "0.327365", "75.52"},
	{"q2_0_moce085", "0.356695", "75.0"},
}

// missReductions are the runner's summary_comparison miss reductions
// (audit §1a): 1 − 40.6/84.3 and 1 − 40.6/108.9, in percent at 1 dp.
var missReductions = []struct{ key, value string }{
	{"q2_0_moce085_vs_q2_0_moce0", "51.8"},
	{"q2_0_moce085_vs_iq3_s", "62.7"},
}

// parity are the route_parity max errors per math mode (audit §4), with
// synthetic mean errors.
var parity = []struct {
	mode, env          string
	k512, k256         string
	k512Mean, k256Mean string
}{
	{"default", "", "2.16e-07", "3.06e-07", "2.71e-09", "4.12e-09"},
	{"fast", "STRATA_METAL_MATH=fast", "2.15e-07", "4.00e-07", "2.69e-09", "5.33e-09"},
}

// llamaCpp are the runner's llama_cpp_* blocks: the audit's values, each
// read from a step of prev_llama_* (or derived: / 65.0).
var llamaCpp = []struct {
	side   string
	fields []llamaField
}{
	{"unpatched", []llamaField{
		{"prefill_tok_s_ub1024", "step2_ub1024", "prompt_tok_s", "14.3"},
		{"prefill_tok_s_ub2048", "step3_ub2048", "prompt_tok_s", "21.7"},
		{"decode_tok_s", "step2_ub1024", "gen_tok_s", "1.4"},
		{"whole_run_disk0_mb", "step2_ub1024", "disk0_mb", "105851.73"},
		{"whole_run_disk0_mb_per_65tok", "step2_ub1024", "disk0_mb/65.0", "1628.5"},
	}},
	{"patched", []llamaField{
		{"prefill_tok_s_ub1024", "step2_ngl99_cmoe_ub1024", "prompt_tok_s", "38.11"},
		{"prefill_tok_s_ub2048", "step3_ngl99_cmoe_ub2048", "prompt_tok_s", "63.27"},
		{"decode_tok_s", "step4_ngl99_cmoe_decode", "gen_tok_s", "3.22"},
		{"sample_ms_per_tok", "step4_ngl99_cmoe_decode", "sample_ms_per_tok", "0.28"},
		{"whole_run_disk0_mb", "step4_ngl99_cmoe_decode", "disk0_mb", "33428.34"},
		{"whole_run_disk0_mb_per_65tok", "step4_ngl99_cmoe_decode", "disk0_mb/65.0", "514.3"},
		{"whole_run_disk0_mb_ub1024", "step2_ngl99_cmoe_ub1024", "disk0_mb", "46808.58"},
	}},
}

// llamaField is one field of a llama_cpp_* block.
type llamaField struct {
	name, step, from, value string
}

// provFiles are the 5 hashed scripts and binaries with the mtimes the audit
// read (§4, local time UTC+3).
var provFiles = []struct{ role, path, mtime string }{
	{"patch", "scripts/patch_strata_metal.py", "2026-10-15T07:54:46+03:00"},
	{"moe_metal", "vendor/strata/metal/moe.metal", "2026-10-15T07:54:46.45+03:00"},
	{"route_parity", "build/route_parity", "2026-10-15T07:54:47.65+03:00"},
	{"strata_window_cli", "build/strata_window_cli", "2026-10-15T07:54:49.78+03:00"},
	{"runner", "scripts/run_phase0_phase2_m5_validation.py", "2026-10-15T08:01:11.43+03:00"},
}

const (
	resultsMtime   = "2026-10-15T08:03:32.52+03:00"
	generatedAtUTC = "2026-10-15T05:03:32.517Z"
	schema         = "phase0_phase2_m5_validation/3"
)
