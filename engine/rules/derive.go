package rules

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

func init() {
	Register(Rule{
		Name:  "derive",
		Doc:   "the runner's derived fields recompute from the tails: pure_gpu, miss reductions, KLD macros, llama_cpp_* from prev_llama_*",
		Check: checkDerive,
	})
}

// llamaDerivation is one field of a llama_cpp_* block as the runner
// computes it (runner L665–692): a step's value, or that value divided by
// a literal.
type llamaDerivation struct {
	Field   string  // field of llama_cpp_<side>
	Step    string  // step of prev_llama_<side>
	From    string  // field of the step
	Divisor float64 // 0: copied; else From / Divisor, rounded to the field's printed precision
}

// llamaDerivations are the runner's llama_cpp_* derivations by side, as
// fixtures/m5-v3/README.md documents them.
var llamaDerivations = map[string][]llamaDerivation{
	"unpatched": {
		{"prefill_tok_s_ub1024", "step2_ub1024", "prompt_tok_s", 0},
		{"prefill_tok_s_ub2048", "step3_ub2048", "prompt_tok_s", 0},
		{"decode_tok_s", "step2_ub1024", "gen_tok_s", 0},
		{"whole_run_disk0_mb", "step2_ub1024", "disk0_mb", 0},
		{"whole_run_disk0_mb_per_65tok", "step2_ub1024", "disk0_mb", 65.0},
	},
	"patched": {
		{"prefill_tok_s_ub1024", "step2_ngl99_cmoe_ub1024", "prompt_tok_s", 0},
		{"prefill_tok_s_ub2048", "step3_ngl99_cmoe_ub2048", "prompt_tok_s", 0},
		{"decode_tok_s", "step4_ngl99_cmoe_decode", "gen_tok_s", 0},
		{"sample_ms_per_tok", "step4_ngl99_cmoe_decode", "sample_ms_per_tok", 0},
		{"whole_run_disk0_mb", "step4_ngl99_cmoe_decode", "disk0_mb", 0},
		{"whole_run_disk0_mb_per_65tok", "step4_ngl99_cmoe_decode", "disk0_mb", 65.0},
		{"whole_run_disk0_mb_ub1024", "step2_ngl99_cmoe_ub1024", "disk0_mb", 0},
	},
}

// llamaStepMetrics maps a prev_llama_* step field to the tail metrics it is
// read from, in order of preference: llama-cli's one-line summary, then
// the perf print of llama-completion and older programs.
var llamaStepMetrics = map[string][]string{
	"prompt_tok_s": {"cli_prompt_tok_s", "prompt_tok_s"},
	"gen_tok_s":    {"cli_gen_tok_s", "eval_tok_s"},
	"disk0_mb":     {tail.Disk0MB},
	"samplers_ms":  {"sample_ms"},
}

func checkDerive(c *Context) ([]finding.Finding, error) {
	var out []finding.Finding
	out = append(out, derivePureGPU(c)...)
	out = append(out, deriveMissReductions(c)...)
	out = append(out, deriveKLD(c)...)
	out = append(out, deriveLlama(c)...)
	return out, nil
}

func derivePureGPU(c *Context) []finding.Finding {
	resultsFile := c.Snap.ResultsFile
	var out []finding.Finding
	n := 0
	for _, r := range c.Snap.StrataRuns() {
		ms := c.Metrics[r.Name]
		host, ok1 := ms.Get(tail.HostWaitMsPerTok)
		t1, ok2 := ms.Get(tail.T1GPUMsPerTok)
		f, ok3 := c.Snap.Perf[r.Name].Get(tail.PureGPUMsPerTok)
		if !ok3 {
			continue
		}
		if !ok1 || !ok2 {
			out = append(out, finding.Finding{Rule: "derive", ID: "F01", Severity: finding.Fail, File: resultsFile, Line: f.Line,
				Quote: f.Num.Text, Source: r.Source, Message: fmt.Sprintf("run %s: perf has pure_gpu %s but the tail has no host wait and T1 GPU to derive it from", r.Name, f.Num.Text)})
			continue
		}
		v := t1.Value() - host.Value()
		if f.Null || !num.Matches(v, f.Num) {
			out = append(out, finding.Finding{Rule: "derive", ID: "F01", Severity: finding.Fail, File: resultsFile, Line: f.Line,
				Quote: showField(f), Raw: fmt.Sprintf("%s − %s", t1.Num.Text, host.Num.Text), Source: fmt.Sprintf("%s line %d", r.Source, t1.Line),
				Message: fmt.Sprintf("run %s field pure_gpu_ms_per_tok: runner %s, but T1 GPU − host wait = %s − %s = %s", r.Name, showField(f), t1.Num.Text, host.Num.Text, num.Format(v, max(t1.Num.Decimals, host.Num.Decimals)))})
			continue
		}
		n++
	}
	if n > 0 && len(out) == 0 {
		out = append(out, finding.Finding{Rule: "derive", ID: "F01", Severity: finding.Pass, File: resultsFile,
			Message: fmt.Sprintf("pure_gpu = T1 GPU − host wait recomputes in all %d runs that log both", n)})
	}
	return out
}

// configRun returns the run of a summary_comparison 43-tok row by config.
func configRun(c *Context, config string) *archive.Run {
	for _, row := range c.Snap.Summary.Speed43 {
		if row.Config == config {
			return c.Snap.Run(row.Run)
		}
	}
	return nil
}

func deriveMissReductions(c *Context) []finding.Finding {
	resultsFile := c.Snap.ResultsFile
	var out []finding.Finding
	d := c.Snap.Summary.MissReduction
	if d == nil {
		return nil
	}
	for _, f := range d.Fields {
		fail := func(format string, args ...any) {
			out = append(out, finding.Finding{Rule: "derive", ID: "F05", Severity: finding.Fail, File: resultsFile, Line: f.Line,
				Quote: f.Num.Text, Source: d.Path + "." + f.Name, Message: fmt.Sprintf(format, args...)})
		}
		a, b, ok := strings.Cut(f.Name, "_vs_")
		ra, rb := configRun(c, a), configRun(c, b)
		if !ok || ra == nil || rb == nil {
			fail("miss reduction %s: cannot tell which 43-tok runs it compares (want <config>_vs_<config> of summary_comparison.speed_43tok)", f.Name)
			continue
		}
		ma, ok1 := c.Metrics[ra.Name].Get(tail.MissesPerTok)
		mb, ok2 := c.Metrics[rb.Name].Get(tail.MissesPerTok)
		if !ok1 || !ok2 || mb.Value() == 0 {
			fail("miss reduction %s: runs %s and %s do not both log misses/tok", f.Name, ra.Name, rb.Name)
			continue
		}
		v := 100 * (1 - ma.Value()/mb.Value())
		calc := fmt.Sprintf("1 − %s/%s = %s%%", ma.Num.Text, mb.Num.Text, num.Format(v, 2))
		if f.Null || !num.Matches(v, f.Num) {
			out = append(out, finding.Finding{Rule: "derive", ID: "F05", Severity: finding.Fail, File: resultsFile, Line: f.Line,
				Quote: showField(f), Raw: num.Format(v, 2), Source: fmt.Sprintf("%s, %s", ra.Name, rb.Name),
				Message: fmt.Sprintf("miss reduction %s: runner %s, but %s", f.Name, showField(f), calc)})
			continue
		}
		out = append(out, finding.Finding{Rule: "derive", ID: "F05", Severity: finding.Pass, File: resultsFile, Line: f.Line,
			Quote: f.Num.Text, Raw: num.Format(v, 2), Source: fmt.Sprintf("%s, %s", ra.Name, rb.Name),
			Message: fmt.Sprintf("miss reduction %s: %s → %s", f.Name, calc, printed(v, f.Num))})
	}
	return out
}

// mean returns the mean of values.
func mean(vs []float64) float64 {
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

func deriveKLD(c *Context) []finding.Finding {
	resultsFile := c.Snap.ResultsFile
	var out []finding.Finding
	for _, cfg := range macroConfigs(c.Snap.KLDMacros) {
		m := c.Snap.KLDMacros[cfg]
		fail := func(line int, quote, raw, format string, args ...any) {
			out = append(out, finding.Finding{Rule: "derive", ID: "F04", Severity: finding.Fail, File: resultsFile, Line: line,
				Quote: quote, Raw: raw, Source: m.Path, Message: fmt.Sprintf(format, args...)})
		}
		var klds, top1s []float64
		ok := true
		for i, name := range m.Runs {
			ms := c.Metrics[name]
			k, ok1 := ms.Get(tail.KLDMean)
			t, ok2 := ms.Get(tail.Top1Pct)
			if !ok1 || !ok2 {
				fail(m.Line, "", "", "KLD macro %s: run %s logs no mean KLD or top-1 agreement", cfg, name)
				ok = false
				continue
			}
			if m.MeanKLD[i].Null || k.Value() != m.MeanKLD[i].Value() {
				fail(m.MeanKLD[i].Line, showField(m.MeanKLD[i]), k.Num.Text, "KLD macro %s: run %s field mean_kld: runner %s, tail line %d prints %s", cfg, name, showField(m.MeanKLD[i]), k.Line, k.Num.Text)
				ok = false
			}
			if m.Top1Pct[i].Null || t.Value() != m.Top1Pct[i].Value() {
				fail(m.Top1Pct[i].Line, showField(m.Top1Pct[i]), t.Num.Text, "KLD macro %s: run %s field top1_pct: runner %s, tail line %d prints %s", cfg, name, showField(m.Top1Pct[i]), t.Line, t.Num.Text)
				ok = false
			}
			klds = append(klds, k.Value())
			top1s = append(top1s, t.Value())
		}
		if len(klds) == 0 {
			continue
		}
		mk, mt := mean(klds), mean(top1s)
		shown := fmt.Sprintf("%s / %s", num.Format(mk, 6), top1Shown(mt, m.Top1PctMacro.Num))
		if m.MeanKLDMacro.Null || !num.Matches(mk, m.MeanKLDMacro.Num) {
			fail(m.MeanKLDMacro.Line, showField(m.MeanKLDMacro), num.Format(mk, 6), "KLD macro %s field mean_kld_macro: runner %s, recomputed %s", cfg, showField(m.MeanKLDMacro), num.Format(mk, 6))
			ok = false
		}
		if m.Top1PctMacro.Null || !num.Matches(mt, m.Top1PctMacro.Num) {
			fail(m.Top1PctMacro.Line, showField(m.Top1PctMacro), num.Format(mt, 4), "KLD macro %s field top1_pct_macro: runner %s, recomputed %s", cfg, showField(m.Top1PctMacro), num.Format(mt, 4))
			ok = false
		}
		if s := c.Snap.Summary.KLD[cfg]; s != nil {
			for _, f := range s.Fields {
				v, known := map[string]float64{"mean_kld": mk, "top1_pct": mt}[f.Name]
				if !known {
					fail(f.Line, f.Num.Text, "", "summary_comparison.kld.%s field %s: no known derivation (want mean_kld or top1_pct)", cfg, f.Name)
					ok = false
					continue
				}
				if f.Null || !num.Matches(v, f.Num) {
					fail(f.Line, showField(f), num.Format(v, 4), "summary_comparison.kld.%s field %s: runner %s, recomputed %s", cfg, f.Name, showField(f), num.Format(v, 6))
					ok = false
				}
			}
		}
		if ok {
			out = append(out, finding.Finding{Rule: "derive", ID: "F04", Severity: finding.Pass, File: resultsFile, Line: m.Line,
				Quote: m.MeanKLDMacro.Num.Text + " / " + m.Top1PctMacro.Num.Text, Raw: shown, Source: strings.Join(m.Runs, ", "),
				Message: fmt.Sprintf("KLD macro %s recomputed from %d tails: %s", cfg, len(klds), shown)})
		}
	}
	return out
}

// top1Shown prints a top-1 macro at 2 dp, with the runner's finer
// precision in parentheses when it has one: "90.11 (90.107)".
func top1Shown(v float64, runner num.Number) string {
	s := num.Format(v, 2)
	if runner.Decimals > 2 {
		s += " (" + num.Format(v, runner.Decimals) + ")"
	}
	return s
}

// macroConfigs returns the configurations of the KLD macros, sorted.
func macroConfigs(m map[string]*archive.Macro) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// stepValue finds a step of a prev_llama_* block.
func stepValue(steps []*archive.LlamaStep, step string) *archive.LlamaStep {
	for _, s := range steps {
		if s.Step == step {
			return s
		}
	}
	return nil
}

func deriveLlama(c *Context) []finding.Finding {
	resultsFile := c.Snap.ResultsFile
	var out []finding.Finding
	for _, side := range []string{"unpatched", "patched"} {
		block := c.Snap.LlamaCpp[side]
		steps := c.Snap.PrevLlama[side]
		if block == nil {
			continue
		}
		ok := true
		fail := func(line int, quote, raw, source, format string, args ...any) {
			out = append(out, finding.Finding{Rule: "derive", ID: "F06", Severity: finding.Fail, File: resultsFile, Line: line,
				Quote: quote, Raw: raw, Source: source, Message: fmt.Sprintf(format, args...)})
			ok = false
		}
		// Each step equals its archived tail.
		for _, st := range steps {
			checkStepAgainstTail(c, side, st, fail)
		}
		// Each llama_cpp field is derived from its step.
		derivs := llamaDerivations[side]
		var shown []string
		for _, f := range block.Fields {
			var dv *llamaDerivation
			for i := range derivs {
				if derivs[i].Field == f.Name {
					dv = &derivs[i]
				}
			}
			if dv == nil {
				fail(f.Line, f.Num.Text, "", block.Path, "llama_cpp_%s.%s: no known derivation from prev_llama_%s", side, f.Name, side)
				continue
			}
			st := stepValue(steps, dv.Step)
			var sf archive.Field
			has := false
			if st != nil {
				sf, has = st.Get(dv.From)
			}
			if !has || sf.Null {
				fail(f.Line, f.Num.Text, "", block.Path, "llama_cpp_%s.%s: prev_llama_%s.%s has no %s", side, f.Name, side, dv.Step, dv.From)
				continue
			}
			want := sf.Value()
			calc := fmt.Sprintf("prev_llama_%s.%s.%s", side, dv.Step, dv.From)
			if dv.Divisor != 0 {
				want = sf.Value() / dv.Divisor
				calc = fmt.Sprintf("%s / %g = %s", num.Format(sf.Value(), sf.Num.Decimals), dv.Divisor, num.Format(want, 2))
			}
			if f.Null || !num.Matches(want, f.Num) {
				fail(f.Line, showField(f), num.Format(want, f.Num.Decimals), calc, "llama_cpp_%s field %s: runner %s, but %s gives %s", side, f.Name, showField(f), calc, num.Format(want, f.Num.Decimals))
				continue
			}
			shown = append(shown, num.Format(f.Value(), f.Num.Decimals))
		}
		if ok {
			out = append(out, finding.Finding{Rule: "derive", ID: "F06", Severity: finding.Pass, File: resultsFile, Line: block.Line,
				Quote: strings.Join(shown, " / "), Source: "prev_llama_" + side,
				Message: fmt.Sprintf("llama_cpp_%s computed from prev_llama_%s, equal to the archived llama tails: %s", side, side, strings.Join(shown, " / "))})
		}
	}
	return out
}

// checkStepAgainstTail checks one prev_llama_* step's values against its
// run's parsed tail.
func checkStepAgainstTail(c *Context, side string, st *archive.LlamaStep, fail func(int, string, string, string, string, ...any)) {
	ms := c.Metrics[st.Run]
	r := c.Snap.Run(st.Run)
	if ms == nil || r == nil {
		fail(st.Line, "", "", st.Path, "prev_llama_%s.%s: run %s has no parsed tail", side, st.Step, st.Run)
		return
	}
	for _, f := range st.Fields {
		var m tail.Metric
		found := false
		for _, name := range llamaStepMetrics[f.Name] {
			if mm, ok := ms.Get(name); ok {
				m, found = mm, true
				break
			}
		}
		switch {
		case f.Name == "sample_ms_per_tok":
			// The runner's samplers time over decoded tokens.
			s, ok1 := ms.Get("sample_ms")
			e, ok2 := ms.Get("eval_runs")
			if !ok1 || !ok2 || e.Value() == 0 {
				fail(f.Line, f.Num.Text, "", r.Source, "prev_llama_%s.%s field sample_ms_per_tok: the tail of %s has no samplers time and decode count", side, st.Step, st.Run)
				continue
			}
			if v := s.Value() / e.Value(); !num.Matches(v, f.Num) {
				fail(f.Line, f.Num.Text, num.Format(v, 2), r.Source, "prev_llama_%s.%s field sample_ms_per_tok: runner %s, but samplers %s ms / %s runs = %s", side, st.Step, f.Num.Text, s.Num.Text, e.Num.Text, num.Format(v, 2))
			}
		case f.Null:
			// Nothing decoded: the tail must agree (no rate, or 0, inf or nan).
			if found && !(m.Value() == 0 || math.IsInf(m.Value(), 0) || math.IsNaN(m.Value())) {
				fail(f.Line, "null", m.Num.Text, fmt.Sprintf("%s line %d", r.Source, m.Line), "prev_llama_%s.%s field %s: runner null (nothing decoded), but tail line %d prints %s", side, st.Step, f.Name, m.Line, m.Num.Text)
			}
		case !found:
			if _, known := llamaStepMetrics[f.Name]; known {
				fail(f.Line, f.Num.Text, "", r.Source, "prev_llama_%s.%s field %s = %s, but the tail of %s prints no such value", side, st.Step, f.Name, f.Num.Text, st.Run)
			}
		case !num.Matches(m.Value(), f.Num) || !num.Matches(f.Value(), m.Num):
			fail(f.Line, f.Num.Text, m.Num.Text, fmt.Sprintf("%s line %d", r.Source, m.Line), "prev_llama_%s.%s field %s: runner %s, tail line %d prints %s", side, st.Step, f.Name, f.Num.Text, m.Line, m.Num.Text)
		}
	}
}
