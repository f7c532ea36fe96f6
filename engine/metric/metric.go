// Package metric holds the metric vocabulary: the names, units and kinds of
// the metrics the audit's rules read. Readers (the strata log parser,
// llama.cpp's, a format a spec file declares, a run record's fields) yield
// metrics under these names; a rule asks for metrics by these names and
// applies to every run that has them, whoever produced them. A rule never
// asks which program or parser produced a run.
//
// A name may stand for a family: "<config>.max_abs_err" is the metric
// "k512.max_abs_err" of every route_parity configuration key, and "<test>"
// every llama-bench test's rate (pp512, tg128, pp512_tg128, pp512_d1024).
package metric

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/unit"
)

// Kind says whether a metric is fixed by the configuration or measured.
type Kind int

const (
	// Deterministic metrics follow from the model, the settings and the
	// code (sizes, slot counts, token counts): two runs of one
	// configuration print the same value.
	Deterministic Kind = iota + 1
	// Measured metrics are timings and rates, memory and I/O readings:
	// repeats of one configuration differ.
	Measured
)

// String returns "deterministic" or "measured".
func (k Kind) String() string {
	switch k {
	case Deterministic:
		return "deterministic"
	case Measured:
		return "measured"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Def is one entry of the vocabulary.
type Def struct {
	Name    string // e.g. "decode_tok_s"; a "<config>." prefix stands for any key
	Unit    string // the unit the metric is compared in ("" for a count or ratio)
	Kind    Kind
	Meaning string // one line: what the number is
}

// family is the placeholder a family's name starts with.
const family = "<config>."

// benchFamily stands for a llama-bench test's name, as engine/llamacpp
// writes it (MetricName): pp512, tg128, pp512_tg128, pp512_d1024.
const benchFamily = "<test>"

// d and m shorten the table below.
func d(name, unit, meaning string) Def { return Def{name, unit, Deterministic, meaning} }
func m(name, unit, meaning string) Def { return Def{name, unit, Measured, meaning} }

// vocabulary is the table; Vocabulary returns a copy.
var vocabulary = []Def{
	// The engine's model and arena.
	d("dense_gib", "GiB", "size of the model's dense (non-expert) weights"),
	d("dense_gb", "GB", "the same size in GB"),
	d("experts_gib", "GiB", "size of the `.experts` file the arena fills from"),
	d("n_layers", "", "MoE layers of the model"),
	d("experts_per_layer", "", "experts per MoE layer"),
	d("expert_slices", "", "expert slices in the `.experts` file (layers × experts)"),
	d("gpu_working_set_gb", "GB", "the GPU's recommended maximum working set"),
	d("arena_env_gb", "GB", "the arena size the engine read from its environment"),
	d("arena_gb", "GB", "size of the expert arena"),
	d("arena_slots", "slots", "expert slots in the arena"),
	d("arena_slots_filled", "slots", "slots filled at start-up"),
	d("arena_size_classes", "", "slot size classes of the arena"),
	d("page_kib", "KiB", "VM page size"),
	d("mem_locked_gb", "GB", "wired memory the engine locked"),
	d("mem_unpinned_gb", "GB", "memory the engine left unpinned"),
	d("mem_hc_gb", "GB", "hot-cache memory"),
	d("mem_scratch_gb", "GB", "scratch memory the engine reports"),
	d("prompt_gemm_c", "", "prompt-GEMM chunk size C"),
	d("prompt_gemm_cells", "", "prompt-GEMM cells"),
	d("prompt_gemm_ple", "", "prompt-GEMM per-layer-embedding flag"),
	d("prompt_gemm_flash", "", "prompt-GEMM flash-attention flag"),
	d("prompt_gemm_plan_gb", "GB", "prompt-GEMM scratch the plan sized"),
	d("prompt_gemm_init_gb", "GB", "prompt-GEMM scratch allocated at init"),
	d("peak_prefill_gb", "GB", "planned peak memory during prefill"),
	d("cap_gb", "GB", "memory cap the plan checks against"),
	// The engine's timings and cache.
	m("init_ms", "ms", "engine start-up time"),
	d("fill_gb", "GB", "bytes read to fill the arena"),
	m("fill_s", "s", "time to fill the arena"),
	m("fill_gb_s", "GB/s", "arena fill bandwidth"),
	d("prompt_tokens", "tok", "prompt length in tokens"),
	d("prefill_tokens", "tok", "tokens prefilled"),
	m("prefill_ms", "ms", "prefill time"),
	m("prefill_tok_s", "tok/s", "prefill rate"),
	m("phys_footprint_before_gb", "GB", "phys_footprint before prompt_region(false)"),
	m("phys_footprint_after_gb", "GB", "phys_footprint after prompt_region(false)"),
	m("resident_size_before_gb", "GB", "resident size before prompt_region(false)"),
	m("resident_size_after_gb", "GB", "resident size after prompt_region(false)"),
	d("decode_tokens", "tok", "tokens decoded"),
	m("decode_ms", "ms", "decode time"),
	m("decode_tok_s", "tok/s", "decode rate"),
	m("hit_arena_pct", "%", "expert lookups served by the arena"),
	m("hit_ra_pct", "%", "expert lookups served by read-ahead"),
	m("hit_total_pct", "%", "expert lookups served without a miss"),
	m("miss_pct", "%", "expert lookups that missed"),
	m("misses_per_tok", "misses/tok", "expert misses per decoded token"),
	m("miss_mb_per_tok", "MB/tok", "bytes read on misses per decoded token"),
	m("host_wait_ms_per_tok", "ms/tok", "host wait per decoded token"),
	m("t1_gpu_ms_per_tok", "ms/tok", "GPU time per decoded token (T1)"),
	m("pure_gpu_ms_per_tok", "ms/tok", "T1 GPU time less host wait, per decoded token"),
	// Teacher forcing and KLD.
	d("tf_n_prompt", "tok", "teacher-forcing prompt tokens"),
	d("tf_n_gen", "tok", "teacher-forcing generated tokens"),
	d("eval_tokens", "tok", "tokens decoded (llama.cpp's eval \"runs\": one token each)"),
	m("eval_ms", "ms", "evaluation time"),
	d("kld_mean", "", "mean KL divergence against the reference"),
	d("kld_median", "", "median KL divergence"),
	d("kld_p99", "", "99th-percentile KL divergence"),
	d("kld_max", "", "largest KL divergence"),
	d("top1_count", "tok", "tokens whose top-1 agrees with the reference"),
	d("top1_total", "tok", "tokens compared for top-1 agreement"),
	d("top1_pct", "%", "top-1 agreement"),
	d("ppl", "", "perplexity"),
	d("ppl_ref", "", "the reference's perplexity"),
	// What the machine did during a run (the runner's lines, or record fields).
	m("swapout_pages", "pages", "pages swapped out during the run"),
	m("swapout_mib", "MiB", "bytes swapped out during the run"),
	m("min_avail_gib", "GiB", "least available memory during the run"),
	m("disk0_mb", "MB", "bytes read from disk0 during the run"),
	// llama.cpp's summary.
	m("load_ms", "ms", "model load time"),
	m("sampling_ms", "ms", "sampling time"),
	m("sample_ms", "ms", "sampling time (the sampler's own line)"),
	d("sample_tokens", "tok", "tokens sampled (llama.cpp's sample \"runs\")"),
	m("sample_ms_per_tok", "ms/tok", "sampling time per token"),
	m("sample_tok_s", "tok/s", "sampling rate"),
	m("prompt_eval_ms", "ms", "prompt evaluation time"),
	d("prompt_eval_tokens", "tok", "prompt tokens evaluated"),
	m("prompt_ms_per_tok", "ms/tok", "prompt evaluation time per token"),
	m("prompt_tok_s", "tok/s", "prompt evaluation rate"),
	m("eval_ms_per_tok", "ms/tok", "evaluation time per token"),
	m("eval_tok_s", "tok/s", "evaluation (decode) rate"),
	m("total_ms", "ms", "total time"),
	d("total_tokens", "tok", "tokens processed in total"),
	m("unaccounted_ms", "ms", "total time not in load, sampling, prompt or eval"),
	m("unaccounted_pct", "%", "the same share of the total"),
	d("graphs_reused", "", "compute graphs reused"),
	m("cli_prompt_tok_s", "tok/s", "llama-cli's own prompt rate line"),
	m("cli_gen_tok_s", "tok/s", "llama-cli's own generation rate line"),
	// Records: route_parity and the runner's self-test.
	m(benchFamily, "tok/s", "llama-bench: a test's mean rate (`pp512`, `tg128`, `pp512_tg128`, `pp512_d1024`)"),
	m(benchFamily+"_stddev", "tok/s", "llama-bench: the standard deviation of a test's rate"),
	d(family+"max_abs_err", "", "route_parity: largest absolute error of a configuration"),
	d(family+"mean_abs_err", "", "route_parity: mean absolute error of a configuration"),
	d(family+"pass", "", "route_parity: 1 when a configuration passed, else 0"),
	d("configs_pass", "", "route_parity: configurations that passed"),
	d("configs_total", "", "route_parity: configurations checked"),
	d("checks_ok", "", "self-test: checks that passed"),
	d("checks_failed", "", "self-test: checks that failed"),
	d("verdict_pass", "", "self-test: 1 when the verdict line says PASS"),
	d("verdict_garbled", "", "self-test: 1 when the verdict line is not exactly the verdict"),
}

// Vocabulary returns the vocabulary, in the order the README lists it.
func Vocabulary() []Def { return slices.Clone(vocabulary) }

// Lookup returns the definition of a metric name; a name with a dotted
// prefix ("k512.max_abs_err") matches its family ("<config>.max_abs_err").
func Lookup(name string) (Def, bool) {
	if d, ok := byName[name]; ok {
		return d, true
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		if d, ok := byName[family+name[i+1:]]; ok {
			return d, true
		}
	}
	test, stddev := strings.CutSuffix(name, "_stddev")
	if benchTest(test) {
		if stddev {
			return byName[benchFamily+"_stddev"], true
		}
		return byName[benchFamily], true
	}
	return Def{}, false
}

// benchTest reports whether name is a llama-bench test as a metric name:
// pp<N> or tg<N>, then optionally _tg<N>, then optionally _d<N>.
func benchTest(name string) bool {
	rest, ok := benchPart(name, "pp")
	if !ok {
		if rest, ok = benchPart(name, "tg"); !ok {
			return false
		}
	}
	if r, ok := benchPart(rest, "_tg"); ok {
		rest = r
	}
	if r, ok := benchPart(rest, "_d"); ok {
		rest = r
	}
	return rest == ""
}

// benchPart cuts prefix and the digits after it (at least one) from s.
func benchPart(s, prefix string) (rest string, ok bool) {
	s, ok = strings.CutPrefix(s, prefix)
	if !ok {
		return s, false
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return s[n:], n > 0
}

// byName indexes the vocabulary by name (a family under its "<config>."
// name): a reader looks up every metric it yields, and a strata log yields
// millions.
var byName = func() map[string]Def {
	m := make(map[string]Def, len(vocabulary))
	for _, d := range vocabulary {
		m[d.Name] = d
	}
	return m
}()

// Markdown returns the vocabulary as a Markdown table (name, unit, kind,
// meaning): the table README.md carries.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| metric | unit | kind | meaning |\n|---|---|---|---|\n")
	for _, d := range vocabulary {
		unit := d.Unit
		if unit == "" {
			unit = "–"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", d.Name, unit, d.Kind, d.Meaning)
	}
	return b.String()
}

// CheckUnit says whether u is a unit a reader may declare for the metric
// name: a unit of the table (engine/unit), and, for a metric the
// vocabulary names with a unit, one that converts into it (µs/tok for
// ms/tok, not MB). The loader checks a spec file's declared units with it
// (checkout.Spec.CheckUnits).
func CheckUnit(name, u string) error {
	pu, err := unit.Parse(u)
	if err != nil {
		return err
	}
	d, ok := Lookup(name)
	if !ok || d.Unit == "" {
		return nil
	}
	if _, err := unit.Factor(pu, unit.MustParse(d.Unit)); err != nil {
		return fmt.Errorf("the vocabulary reads %s in %s: %v", name, d.Unit, err)
	}
	return nil
}
