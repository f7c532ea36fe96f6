package tail

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/unit"
)

// Strata metric names that other packages refer to. The full list, with the
// line each comes from, is in fixtures/m5-v3/README.md.
const (
	DecodeTokS       = "decode_tok_s"
	HostWaitMsPerTok = "host_wait_ms_per_tok"
	T1GPUMsPerTok    = "t1_gpu_ms_per_tok"
	PureGPUMsPerTok  = "pure_gpu_ms_per_tok" // derived: T1 GPU − host wait
	MissesPerTok     = "misses_per_tok"
	KLDMean          = "kld_mean"
	Top1Pct          = "top1_pct"
	PrefillTokens    = "prefill_tokens"
	SwapoutMiB       = "swapout_mib"
	MinAvailGiB      = "min_avail_gib"
	Disk0MB          = "disk0_mb"

	// The prompt_region(false) line: footprint and resident size before and
	// after the prompt region is released.
	PhysFootprintBeforeGB = "phys_footprint_before_gb"
	PhysFootprintAfterGB  = "phys_footprint_after_gb"
	ResidentSizeBeforeGB  = "resident_size_before_gb"
	ResidentSizeAfterGB   = "resident_size_after_gb"
)

// PromptRegion returns the names of the four prompt_region(false) metrics,
// in log order.
func PromptRegion() [4]string {
	return [4]string{PhysFootprintBeforeGB, PhysFootprintAfterGB, ResidentSizeBeforeGB, ResidentSizeAfterGB}
}

func notDigitAfter(prefix string) func(string) bool {
	return func(line string) bool {
		rest := strings.TrimSpace(strings.TrimPrefix(line, prefix))
		return rest == "" || rest[0] < '0' || rest[0] > '9'
	}
}

var strataRules = []lineRule{
	{key: "model:", prefix: "model:", pat: `model: \S+ dense %n GiB \(%n GB\).*`,
		fields: []field{{"dense_gib", "GiB"}, {"dense_gb", "GB"}}},
	{key: "experts:", prefix: "experts:", pat: `experts: \S+ %n GiB, %n layers x %n experts = %n slices.*`,
		fields: []field{{"experts_gib", "GiB"}, {"n_layers", ""}, {"experts_per_layer", ""}, {"expert_slices", ""}}},
	{key: "metal:", prefix: "metal:", pat: `metal: .*recommendedMaxWorkingSetSize %n GB.*`,
		fields: []field{{"gpu_working_set_gb", "GB"}},
		skip:   func(l string) bool { return !strings.Contains(l, "recommendedMaxWorkingSetSize") }},
	{key: "arena:", prefix: "arena:", pat: `arena: STRATA_METAL_ARENA_GB=%n\b.*`,
		fields: []field{{"arena_env_gb", "GB"}},
		skip:   func(l string) bool { return !strings.Contains(l, "STRATA_METAL_ARENA_GB=") }},
	{key: "mem:", prefix: "mem:", pat: `mem: locked %n GB \| unpinned %n GB \| hc %n GB \| scratch %n GB`,
		fields: []field{{"mem_locked_gb", "GB"}, {"mem_unpinned_gb", "GB"}, {"mem_hc_gb", "GB"}, {"mem_scratch_gb", "GB"}}},
	{key: "prompt_gemm plan:", prefix: "prompt_gemm plan:", pat: `prompt_gemm plan: C=%n cells=%n ple=%n flash=%n need %n GB \([^)]*\), peak prefill %n GB, cap %n GB.*`,
		fields: []field{{"prompt_gemm_c", ""}, {"prompt_gemm_cells", ""}, {"prompt_gemm_ple", ""}, {"prompt_gemm_flash", ""},
			{"prompt_gemm_plan_gb", "GB"}, {"peak_prefill_gb", "GB"}, {"cap_gb", "GB"}}},
	{key: "init:", prefix: "init:", pat: `init: %n ms`, fields: []field{{"init_ms", "ms"}}},
	{key: "fill:", prefix: "fill:", pat: `fill: %n GB in %n s \(%n GB/s\)`,
		fields: []field{{"fill_gb", "GB"}, {"fill_s", "s"}, {"fill_gb_s", "GB/s"}},
		skip:   notDigitAfter("fill:")},
	{key: "expert arena", prefix: "expert arena", pat: `expert arena %n GB: %n slots \(%n filled\), %n size class(?:es)?, %n KiB pages`,
		fields: []field{{"arena_gb", "GB"}, {"arena_slots", "slots"}, {"arena_slots_filled", "slots"}, {"arena_size_classes", ""}, {"page_kib", "KiB"}}},
	{key: "prompt:", prefix: "prompt:", pat: `prompt: %n tokens\b.*`, fields: []field{{"prompt_tokens", "tok"}}},
	{key: "prompt_gemm_init:", prefix: "prompt_gemm_init:", pat: `prompt_gemm_init: %n GB scratch\b.*`,
		fields: []field{{"prompt_gemm_init_gb", "GB"}}},
	{key: "prefill:", prefix: "prefill:", pat: `prefill: %n tok in %n ms \(%n tok/s\)`,
		fields: []field{{"prefill_tokens", "tok"}, {"prefill_ms", "ms"}, {"prefill_tok_s", "tok/s"}}},
	{key: "prompt_region(false):", prefix: "prompt_region(false):", pat: `prompt_region\(false\): phys_footprint %n GB -> %n GB, resident_size %n GB -> %n GB`,
		fields: []field{{PhysFootprintBeforeGB, "GB"}, {PhysFootprintAfterGB, "GB"}, {ResidentSizeBeforeGB, "GB"}, {ResidentSizeAfterGB, "GB"}}},
	{key: "decode:", prefix: "decode:", pat: `decode: %n tok in %n ms \(%n tok/s\)`,
		fields: []field{{"decode_tokens", "tok"}, {"decode_ms", "ms"}, {DecodeTokS, "tok/s"}},
		skip:   notDigitAfter("decode:")},
	{key: "cache:", prefix: "cache:", pat: `cache: hit %n% arena \+ %n% RA = %n%, miss %n% \(%n misses/tok, %n MB/tok\)`,
		fields: []field{{"hit_arena_pct", "%"}, {"hit_ra_pct", "%"}, {"hit_total_pct", "%"}, {"miss_pct", "%"}, {MissesPerTok, "misses/tok"}, {"miss_mb_per_tok", "MB/tok"}}},
	// The GPU times in the unit the line prints (ms/tok; µs/tok from an
	// engine that prints them so), converted to the vocabulary's by
	// engine/format.
	{key: "timing:", prefix: "timing:", pat: `timing: host wait %n %u, T1 GPU %n %u`,
		fields: []field{{HostWaitMsPerTok, printed}, {}, {T1GPUMsPerTok, printed}, {}}},
	{key: "tf: n_prompt", prefix: "tf: n_prompt", pat: `tf: n_prompt %n, n_gen %n\b.*`,
		fields: []field{{"tf_n_prompt", "tok"}, {"tf_n_gen", "tok"}}},
	{key: "tf: eval_tokens", prefix: "tf: eval_tokens", pat: `tf: eval_tokens=%n in %n ms`,
		fields: []field{{"eval_tokens", "tok"}, {"eval_ms", "ms"}}},
	{key: "kld:", prefix: "kld:", pat: `kld: mean %n, median %n, p99 %n, max %n`,
		fields: []field{{KLDMean, ""}, {"kld_median", ""}, {"kld_p99", ""}, {"kld_max", ""}}},
	{key: "top-1 agreement:", prefix: "top-1 agreement:", pat: `top-1 agreement: %n/%n \(%n%\)`,
		fields: []field{{"top1_count", "tok"}, {"top1_total", "tok"}, {Top1Pct, "%"}}},
	{key: "ppl:", prefix: "ppl:", pat: `ppl: %n \(reference %n\)`,
		fields: []field{{"ppl", ""}, {"ppl_ref", ""}}},
}

// Lines every strata log must carry, by kind of run.
var (
	strataRequired = []string{"expert arena", "init:", "fill:", "prompt_gemm plan:", "prompt_gemm_init:", "prompt_region(false):", "cache:"}
	speedRequired  = []string{"prefill:", "decode:", "timing:"}
	tfRequired     = []string{"tf: n_prompt", "tf: eval_tokens", "kld:", "top-1 agreement:"}
)

// ParseStrata parses the output tail of a strata_window_cli run: the engine's
// log followed by the validation runner's lines (see ParseRunner). A log with
// a "tf:" line is a teacher-forcing run, else a speed run; each kind has
// required lines, and a missing one is an Error with line 0. The derived
// metric pure_gpu_ms_per_tok (T1 GPU − host wait, at the finer of the two
// printed precisions) is added on the timing line.
func ParseStrata(source, text string) *Metrics { return ParseStrataMax(source, text, 0) }

// ParseStrataMax is ParseStrata keeping at most max metrics (0: no limit);
// past it the result is Over and the rest of text is not read.
func ParseStrataMax(source, text string, max int) *Metrics {
	r := newReader(source, max)
	r.text = text
	// A strata log prints about five metrics for every two lines.
	r.ms.List = make([]Metric, 0, r.ms.Prealloc(strings.Count(text, "\n")*5/2+8))
	tf := false
	r.lines(text, func(n int, line string) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "tf:") {
			tf = true
		}
		r.apply(strataSet, n, line)
	})
	r.require(strataRequired...)
	if tf {
		r.require(tfRequired...)
	} else {
		r.require(speedRequired...)
	}
	r.requireRules(runnerRules)
	addPureGPU(r.ms)
	return r.ms
}

func addPureGPU(ms *Metrics) {
	host, ok1 := ms.Get(HostWaitMsPerTok)
	t1, ok2 := ms.Get(T1GPUMsPerTok)
	if !ok1 || !ok2 {
		return
	}
	if host.Unit != t1.Unit {
		// printed in two units: the difference in T1 GPU's
		from, err1 := unit.Parse(host.Unit)
		to, err2 := unit.Parse(t1.Unit)
		if err1 != nil || err2 != nil {
			return // the unit the table does not know is an error at its line (engine/format)
		}
		n, err := unit.ConvertNumber(host.Num, from, to)
		if err != nil {
			ms.Errors = append(ms.Errors, &Error{File: ms.Source, Line: t1.Line, Msg: fmt.Sprintf("host wait in %s, T1 GPU in %s: %v", host.Unit, t1.Unit, err)})
			return
		}
		host.Num = n
	}
	d := max(host.Num.Decimals, t1.Num.Decimals)
	v := num.Round(t1.Value()-host.Value(), d)
	ms.Add(Metric{Name: PureGPUMsPerTok, Unit: t1.Unit, Line: t1.Line,
		Num: num.Number{Value: v, Text: strconv.FormatFloat(v, 'f', d, 64), Decimals: d}})
}

var runnerRules = []lineRule{
	{key: "[runner] vm_stat", prefix: "[runner] vm_stat:", pat: `\[runner\] vm_stat: swapouts \+?%n pages \(%n MiB swapout\)`,
		fields: []field{{"swapout_pages", "pages"}, {SwapoutMiB, "MiB"}}},
	{key: "[runner] min_avail", prefix: "[runner] min_avail", pat: `\[runner\] min_avail %n GiB\b.*`,
		fields: []field{{MinAvailGiB, "GiB"}}},
	{key: "[runner] iostat", prefix: "[runner] iostat:", pat: `\[runner\] iostat: disk0 read %n MB\b.*`,
		fields: []field{{Disk0MB, "MB"}}},
}

// The rule sets the parsers dispatch lines through: a strata log is read
// with the engine's rules, then the runner's.
var (
	strataSet = newRuleSet(strataRules, runnerRules)
	runnerSet = newRuleSet(runnerRules)
)

// ParseRunner parses the lines the validation runner appends to every
// run's tail (swapout from vm_stat, min_avail, disk0 MB read from iostat),
// ignoring everything else; for llama.cpp tails, whose own lines
// engine/llamacpp reads. Each of the three lines is required.
func ParseRunner(source, text string) *Metrics { return ParseRunnerMax(source, text, 0) }

// ParseRunnerMax is ParseRunner keeping at most max metrics (0: no limit).
func ParseRunnerMax(source, text string, max int) *Metrics {
	r := newReader(source, max)
	r.lines(text, func(n int, line string) {
		r.apply(runnerSet, n, strings.TrimSpace(line))
	})
	r.requireRules(runnerRules)
	return r.ms
}

// Merge returns the metrics of a followed by those of b, with both sets of
// errors, under a's source. It is how a llama.cpp tail's parse and its
// runner lines become one run's metrics. The result keeps a's Max: it is
// Over when a or b is, or when the two together hold more.
func Merge(a, b *Metrics) *Metrics {
	out := &Metrics{Source: a.Source, Max: a.Max, Over: a.Over || b.Over}
	out.List = append(append(out.List, a.List...), b.List...)
	if out.Max > 0 && len(out.List) > out.Max {
		out.List, out.Over = out.List[:out.Max], true
	}
	out.Errors = append(append(out.Errors, a.Errors...), b.Errors...)
	return out
}
