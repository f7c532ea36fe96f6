package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// slotBytes is one Q2_0 arena slot: 85 pages of 16 KiB (audit §4 arena
// arithmetic). The fill of a Q2_0 run reads filled × slotBytes.
const slotBytes = 85 * 16 * 1024

// logWriter builds a strata log and records each metric it prints, as the
// runner's own regexes would read it, for the run's perf dict.
type logWriter struct {
	b    strings.Builder
	perf []kv // metric name → printed text, in log order
}

type kv struct{ key, text string }

func (w *logWriter) line(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// metric records a printed value.
func (w *logWriter) metric(name, text string) string {
	w.perf = append(w.perf, kv{name, text})
	return text
}

func mustFloat(s string) float64 {
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		panic(err)
	}
	return v
}

// f formats v with d decimals, halves rounded away from zero (the engine's
// std::round-based formatting), so that a table value prints the same on
// every platform.
func f(v float64, d int) string {
	p := math.Pow(10, float64(d))
	r := math.Round(v*p+math.Copysign(1e-9, v)) / p
	return strconv.FormatFloat(r, 'f', d, 64)
}

// sliceMB is the bytes of one expert slice in MB: the .experts size over
// 12,288 slices.
func sliceMB(expertsGiB string) float64 {
	return mustFloat(expertsGiB) * (1 << 30) / mustFloat(expertSlices) / 1e6
}

// derived are the values of a run computed from its table.
type derived struct {
	fillGB, fillS             string
	prefillTokS, decodeMs     string
	hitTotal, missPct, missMB string
	disk0                     string
}

func (r *runSpec) derive() (derived, error) {
	var d derived
	d.fillGB = r.fillGB
	if d.fillGB == "" {
		d.fillGB = f(mustFloat(r.filled)*slotBytes/1e9, 2)
	}
	d.fillS = f(mustFloat(d.fillGB)/mustFloat(r.fillRate), 1)
	tot := mustFloat(r.hitArena) + mustFloat(r.hitRA)
	d.hitTotal = f(tot, 2)
	d.missPct = f(100-tot, 2)
	mb := mustFloat(r.misses) * sliceMB(r.model.expertsGiB)
	d.missMB = f(mb, 2)
	tokens := mustFloat(r.tokens)
	decoded := 96.0 - 32.0 // TF: the 64 scored tokens
	if r.group == "speed" {
		d.prefillTokS = f(tokens/(mustFloat(r.prefillMs)/1000), 2)
		decoded = 64
		ms := 64 / mustFloat(r.decodeTokS) * 1000
		d.decodeMs = f(ms, 2)
		if got := f(64/(mustFloat(d.decodeMs)/1000), 2); got != r.decodeTokS {
			return d, fmt.Errorf("%s: decode 64 tok in %s ms prints %s tok/s, table says %s", r.name, d.decodeMs, got, r.decodeTokS)
		}
	}
	// disk0: the fill, the misses of every decoded token and a quarter of a
	// token's misses per prompt token (prompt GEMM batches them).
	d.disk0 = f(mustFloat(d.fillGB)*1000+mb*decoded+mb*tokens/4, 2)
	return d, nil
}

// strataLog returns a run's output tail (engine log and runner lines) and
// the runner's perf dict.
func strataLog(r *runSpec) (string, []kv, error) {
	d, err := r.derive()
	if err != nil {
		return "", nil, err
	}
	w := &logWriter{}
	m := r.model
	w.line("strata_window_cli 0.9.3-m5 (metal, K256, SEPARATE_PROMPT_BUF=1)")
	w.line("model: %s dense %s GiB (%s GB), mlock ok", m.gguf, w.metric("dense_gib", denseGiB), w.metric("dense_gb", denseGB))
	w.line("experts: %s.experts %s GiB, %s layers x %s experts = %s slices, F_NOCACHE preads", m.gguf,
		w.metric("experts_gib", m.expertsGiB), w.metric("n_layers", nLayers), w.metric("experts_per_layer", expertsPer), w.metric("expert_slices", expertSlices))
	w.line("metal: Apple M5, recommendedMaxWorkingSetSize %s GB", w.metric("gpu_working_set_gb", workingSet))
	w.line("arena: STRATA_METAL_ARENA_GB=%s (explicit; auto budget off, cap check logs only)", arenaEnv)
	w.line("mem: locked %s GB | unpinned %s GB | hc %s GB | scratch %s GB", m.mem[0], m.mem[1], m.mem[2], m.mem[3])
	w.line("prompt_gemm plan: C=%s cells=%s ple=%s flash=%s need %s GB (separate transient mmap), peak prefill %s GB, cap %s GB",
		w.metric("prompt_gemm_c", gemmC), w.metric("prompt_gemm_cells", gemmCells), w.metric("prompt_gemm_ple", "1"), w.metric("prompt_gemm_flash", "1"),
		w.metric("prompt_gemm_plan_gb", gemmGB), w.metric("peak_prefill_gb", peakPrefill), w.metric("cap_gb", workingSet))
	w.line("init: %s ms", w.metric("init_ms", r.initMs))
	w.line("fill: profile prefetch started (%s experts, moce=%s)", r.filled, r.moce)
	w.line("metal: pipeline moe_gate_up_%s ready", strings.ToLower(m.quant))
	gb := mustFloat(d.fillGB)
	for i, pct := range []int{25, 50, 75} {
		w.line("  fill %3d%% %s GB", pct, f(gb*float64(pct)/100, 2))
		if i == 0 {
			w.line("metal: pipeline moe_down_%s ready", strings.ToLower(m.quant))
		}
	}
	w.line("fill: %s GB in %s s (%s GB/s)", w.metric("fill_gb", d.fillGB), w.metric("fill_s", d.fillS), w.metric("fill_gb_s", r.fillRate))
	classes := "class"
	if m.classes != "1" {
		classes = "classes"
	}
	w.line("expert arena %s GB: %s slots (%s filled), %s size %s, %s KiB pages", w.metric("arena_gb", arenaGB), w.metric("arena_slots", m.slots),
		w.metric("arena_slots_filled", r.filled), w.metric("arena_size_classes", m.classes), classes, w.metric("page_kib", pageKiB))
	w.line("prompt: %s tokens from %s", w.metric("prompt_tokens", r.tokens), r.prompt)
	if r.group == "tf_kld" {
		w.line("tf: n_prompt %s, n_gen %s, teacher-forced against reference logits", w.metric("tf_n_prompt", "32"), w.metric("tf_n_gen", "64"))
	}
	w.line("prompt_gemm_init: %s GB scratch in a separate transient mmap while a prompt runs", w.metric("prompt_gemm_init_gb", gemmGB))
	if r.group == "speed" {
		w.line("prefill: %s tok in %s ms (%s tok/s)", w.metric("prefill_tokens", r.tokens), w.metric("prefill_ms", r.prefillMs), w.metric("prefill_tok_s", d.prefillTokS))
	}
	w.line("prompt_region(false): phys_footprint %s GB -> %s GB, resident_size %s GB -> %s GB",
		w.metric("phys_footprint_before_gb", r.footprint[0]), w.metric("phys_footprint_after_gb", r.footprint[1]),
		w.metric("resident_size_before_gb", r.footprint[2]), w.metric("resident_size_after_gb", r.footprint[3]))
	if r.group == "speed" {
		rate := mustFloat(r.decodeTokS)
		for i, n := range []int{16, 32, 48} {
			w.line("decode: [%d/64] %s tok/s", n, f(rate*(0.975+0.01*float64(i)), 2))
			if i == 1 {
				w.line("[arena] evicted %d slots (lru), %d in flight", 12+i, 3)
			}
		}
		w.line("decode: %s tok in %s ms (%s tok/s)", w.metric("decode_tokens", "64"), w.metric("decode_ms", d.decodeMs), w.metric("decode_tok_s", r.decodeTokS))
	} else {
		mean := mustFloat(r.kld[0])
		for i, n := range []int{16, 32, 48} {
			w.line("tf: [%d/64] kld %s", n, f(mean*(0.8+0.15*float64(i)), 4))
		}
		w.line("tf: eval_tokens=%s in %s ms", w.metric("eval_tokens", "64"), w.metric("eval_ms", r.evalMs))
	}
	w.line("cache: hit %s%% arena + %s%% RA = %s%%, miss %s%% (%s misses/tok, %s MB/tok)",
		w.metric("hit_arena_pct", r.hitArena), w.metric("hit_ra_pct", r.hitRA), w.metric("hit_total_pct", d.hitTotal),
		w.metric("miss_pct", d.missPct), w.metric("misses_per_tok", r.misses), w.metric("miss_mb_per_tok", d.missMB))
	if r.group == "speed" {
		w.line("timing: host wait %s ms/tok, T1 GPU %s ms/tok", w.metric("host_wait_ms_per_tok", r.hostWait), w.metric("t1_gpu_ms_per_tok", r.t1GPU))
		// The runner derives pure GPU = T1 GPU − host wait and rounds it to 2 dp.
		w.metric("pure_gpu_ms_per_tok", f(mustFloat(r.t1GPU)-mustFloat(r.hostWait), 2))
	} else {
		w.line("kld: mean %s, median %s, p99 %s, max %s", w.metric("kld_mean", r.kld[0]), w.metric("kld_median", r.kld[1]), w.metric("kld_p99", r.kld[2]), w.metric("kld_max", r.kld[3]))
		w.line("top-1 agreement: %s/%s (%s%%)", w.metric("top1_count", r.top1), w.metric("top1_total", "64"), w.metric("top1_pct", r.top1Pct))
		w.line("ppl: %s (reference %s)", w.metric("ppl", r.ppl), w.metric("ppl_ref", r.pplRef))
	}
	w.line("done.")
	w.b.WriteString(runnerLines("0.0", r.minAvail, d.disk0))
	if err := checkPrinted(r, d); err != nil {
		return "", nil, err
	}
	return w.b.String(), w.perf, nil
}

// runnerLines are the lines the validation runner appends to every tail.
func runnerLines(swapMiB, minAvail, disk0 string) string {
	return fmt.Sprintf("[runner] vm_stat: swapouts +0 pages (%s MiB swapout)\n"+
		"[runner] min_avail %s GiB (vm_stat free+inactive+purgeable, 0.25 s samples)\n"+
		"[runner] iostat: disk0 read %s MB\n", swapMiB, minAvail, thousands(disk0))
}

// thousands inserts thousands separators into a printed number, as the
// runner's f"{mb:,.2f}" does.
func thousands(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// checkPrinted verifies the audit's statements about printed values that a
// table edit could break: warm fills print 0.4 s (no tail prints 0.5 s),
// the cold Q2_0 fill 0.9 s, and prefill rates 320.58 / 353.49.
func checkPrinted(r *runSpec, d derived) error {
	want := map[string]string{"strata_q2_0_moce0_short_43tok": "0.9"}
	w, ok := want[r.name]
	if !ok {
		w = "0.4"
	}
	if d.fillS != w {
		return fmt.Errorf("%s: fill prints %s s, want %s", r.name, d.fillS, w)
	}
	switch r.tokens {
	case "1024":
		if d.prefillTokS != "320.58" {
			return fmt.Errorf("%s: prefill prints %s tok/s, want 320.58", r.name, d.prefillTokS)
		}
	case "2048":
		if d.prefillTokS != "353.49" {
			return fmt.Errorf("%s: prefill prints %s tok/s, want 353.49", r.name, d.prefillTokS)
		}
	}
	return nil
}
