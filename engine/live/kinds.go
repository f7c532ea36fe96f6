package live

import (
	"strings"

	"github.com/strataspec/strataspec/engine/metric"
)

// deterministic lists the metrics a re-run of the same command on the same
// binary and inputs must print exactly as archived: sizes and counts the
// engine computes from its configuration and files, token counts, and the
// quality figures of teacher forcing and route parity (the audit saw
// route_parity identical across 3 repeats per math mode, so the engine's
// arithmetic is deterministic). Everything else is measured.
var deterministic = map[string]bool{
	// model and expert files
	"dense_gib": true, "dense_gb": true, "experts_gib": true, "n_layers": true,
	"experts_per_layer": true, "expert_slices": true, "gpu_working_set_gb": true,
	// arena and memory plan
	"arena_env_gb": true, "arena_gb": true, "arena_slots": true, "arena_slots_filled": true,
	"arena_size_classes": true, "page_kib": true, "fill_gb": true,
	"mem_locked_gb": true, "mem_unpinned_gb": true, "mem_hc_gb": true, "mem_scratch_gb": true,
	"prompt_gemm_c": true, "prompt_gemm_cells": true, "prompt_gemm_ple": true, "prompt_gemm_flash": true, "prompt_gemm_plan_gb": true,
	"prompt_gemm_init_gb": true, "peak_prefill_gb": true, "cap_gb": true,
	// token counts
	"prompt_tokens": true, "prefill_tokens": true, "decode_tokens": true,
	"tf_n_prompt": true, "tf_n_gen": true, "eval_tokens": true,
	// teacher-forcing quality
	"kld_mean": true, "kld_median": true, "kld_p99": true, "kld_max": true,
	"top1_count": true, "top1_total": true, "top1_pct": true, "ppl": true, "ppl_ref": true,
	// route_parity summary
	"configs_pass": true, "configs_total": true,
}

// measured lists the metrics that legitimately drift between runs: timings,
// rates, cache behaviour that depends on timing (read-ahead), and the
// memory the OS reports.
var measured = map[string]bool{
	"init_ms": true, "fill_s": true, "fill_gb_s": true,
	"prefill_ms": true, "prefill_tok_s": true, "decode_ms": true, "decode_tok_s": true,
	"hit_arena_pct": true, "hit_ra_pct": true, "hit_total_pct": true, "miss_pct": true,
	"misses_per_tok": true, "miss_mb_per_tok": true,
	"host_wait_ms_per_tok": true, "t1_gpu_ms_per_tok": true, "pure_gpu_ms_per_tok": true,
	"eval_ms":                  true,
	"phys_footprint_before_gb": true, "phys_footprint_after_gb": true,
	"resident_size_before_gb": true, "resident_size_after_gb": true,
	"swapout_mib": true, "swapout_pages": true, "min_avail_gib": true, "disk0_mb": true,
}

// Classify says whether a strata or route_parity metric must reproduce
// exactly. route_parity's per-configuration metrics ("k512.max_abs_err")
// are deterministic. A name Classify does not know is measured; Known tells
// whether the name was classified on purpose.
func Classify(name string) Kind {
	if deterministic[name] {
		return Deterministic
	}
	if i := strings.IndexByte(name, '.'); i > 0 && strings.HasPrefix(name, "k") {
		return Deterministic
	}
	// The metric vocabulary knows llama.cpp's: token counts, perplexity and
	// KL divergence are deterministic, timings and rates measured.
	if d, ok := metric.Lookup(name); ok && d.Kind == metric.Deterministic && !measured[name] {
		return Deterministic
	}
	return Measured
}

// Known reports whether name is in one of the two lists (or is a
// route_parity per-configuration metric), so a test can insist that every
// metric the parsers produce was classified deliberately.
func Known(name string) bool {
	if deterministic[name] || measured[name] {
		return true
	}
	if _, ok := metric.Lookup(name); ok {
		return true
	}
	i := strings.IndexByte(name, '.')
	return i > 0 && strings.HasPrefix(name, "k")
}
