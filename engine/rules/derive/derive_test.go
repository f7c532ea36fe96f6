package derive_test

import (
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/rules/derive"
	"github.com/strataspec/strataspec/engine/rules/summary"
	"github.com/strataspec/strataspec/engine/snaptest"
)

func TestDeriveFixtures(t *testing.T) {
	want := []struct {
		id   string
		text []string
	}{
		{"F04", []string{"iq3_s", "0.064461 / 90.11 (90.107)"}},
		{"F04", []string{"q2_0_moce0", "0.327365 / 75.52"}},
		{"F04", []string{"q2_0_moce085", "0.356695 / 75.00"}},
		{"F05", []string{"1 − 40.6/84.3 = 51.84% → 51.8"}},
		{"F05", []string{"1 − 40.6/108.9 = 62.72% → 62.7"}},
		{"F06", []string{"llama_cpp_unpatched", "14.3 / 21.7 / 1.4 / 105,851.73 / 1,628.5"}},
		{"F06", []string{"llama_cpp_patched", "38.11 / 63.27 / 3.22 / 0.28 / 33,428.34 / 514.3 / 46,808.58"}},
		{"F01", []string{"pure_gpu = T1 GPU − host wait recomputes in all 5 runs"}},
	}
	// The fixed runner (fixtures/m5) no longer divides whole-run disk0
	// into a per-token rate: its llama_cpp_* blocks lack the per-65 fields,
	// and its spec declares no such derivation.
	wantFixed := append([]struct {
		id   string
		text []string
	}(nil), want[:5]...)
	wantFixed = append(wantFixed, []struct {
		id   string
		text []string
	}{
		{"F06", []string{"llama_cpp_unpatched", "14.3 / 21.7 / 1.4 / 105,851.73"}},
		{"F06", []string{"llama_cpp_patched", "38.11 / 63.27 / 3.22 / 0.28 / 33,428.34 / 46,808.58"}},
		want[7],
	}...)
	for _, name := range []string{"m5-v3", "m5"} {
		fs := analysistest.Findings(t, snaptest.Fixture(t, name), derive.Derive)
		if bad := analysistest.BySeverity(fs, finding.Fail); len(bad) > 0 {
			t.Errorf("%s: derive fails: %v", name, bad)
		}
		want := want
		if name == "m5" {
			want = wantFixed
		}
		for _, w := range want {
			if !analysistest.Has(fs, finding.Pass, w.id, w.text...) {
				t.Errorf("%s: no pass %s finding with %q in %v", name, w.id, w.text, fs)
			}
		}
	}
}

func TestDeriveDetectsChanges(t *testing.T) {
	tests := []struct {
		name  string
		edits []analysistest.Edit
		id    string
		want  []string
	}{
		{"KLD macro in the results",
			[]analysistest.Edit{analysistest.Results(`"mean_kld_macro": 0.327365`, `"mean_kld_macro": 0.327366`)},
			"F04", []string{"KLD macro q2_0_moce0", "field mean_kld_macro", "0.327366", "recomputed 0.327365"}},
		{"top-1 macro in the results",
			[]analysistest.Edit{analysistest.Results(`"top1_pct_macro": 90.107`, `"top1_pct_macro": 90.117`)},
			"F04", []string{"KLD macro iq3_s", "field top1_pct_macro", "90.117"}},
		{"KLD in one tail",
			[]analysistest.Edit{analysistest.Results("kld: mean 0.375963,", "kld: mean 0.376963,")},
			"F04", []string{"KLD macro q2_0_moce085", "run strata_tf_q2_0_moce085_ja", "field mean_kld", "0.376963"}},
		{"miss reduction in the results",
			[]analysistest.Edit{analysistest.Results(`"q2_0_moce085_vs_q2_0_moce0": 51.8`, `"q2_0_moce085_vs_q2_0_moce0": 51.9`)},
			"F05", []string{"q2_0_moce085_vs_q2_0_moce0", "runner 51.9", "1 − 40.6/84.3 = 51.84%"}},
		{"misses in one tail",
			[]analysistest.Edit{analysistest.Results("(40.6 misses/tok", "(40.7 misses/tok")},
			"F05", []string{"q2_0_moce085_vs_iq3_s", "1 − 40.7/108.9"}},
		{"pure_gpu in the results",
			[]analysistest.Edit{analysistest.Results(`"pure_gpu_ms_per_tok": 56.29,`+"\n      \"mem_locked_gb\"", `"pure_gpu_ms_per_tok": 56.39,`+"\n      \"mem_locked_gb\"")},
			"F01", []string{"strata_metal_optimized_k256_q2_0_moce085", "field pure_gpu_ms_per_tok", "72.400 − 16.11"}},
		{"llama_cpp per-65 value",
			[]analysistest.Edit{analysistest.Results(`"whole_run_disk0_mb_per_65tok": 514.3`, `"whole_run_disk0_mb_per_65tok": 514.4`)},
			"F06", []string{"llama_cpp_patched field whole_run_disk0_mb_per_65tok", "514.4", "33,428.34 / 65", "514.3"}},
		// From review: a null was read as 0 and shown as "".
		{"null KLD macro",
			[]analysistest.Edit{analysistest.Results(`"mean_kld_macro": 0.327365`, `"mean_kld_macro": null`)},
			"F04", []string{"KLD macro q2_0_moce0 field mean_kld_macro: runner null, recomputed 0.327365"}},
		// From review: an unknown field was compared with 0.
		{"unknown summary KLD field",
			[]analysistest.Edit{analysistest.Results(`"top1_pct": 75.52`, `"top1_pct": 75.52, "top5_pct": 0`)},
			"F04", []string{"summary_comparison.kld.q2_0_moce0 field top5_pct: no known derivation"}},
		{"llama disk0 in one tail",
			[]analysistest.Edit{analysistest.Results("disk0 read 33,428.34 MB", "disk0 read 33,428.43 MB")},
			"F06", []string{"prev_llama_patched.step4_ngl99_cmoe_decode field disk0_mb", "33,428.43"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := analysistest.Findings(t, analysistest.Copy(t, "m5-v3", tt.edits...), derive.Derive)
			if !analysistest.Has(fs, finding.Fail, tt.id, tt.want...) {
				t.Errorf("derive after %s: no fail %s finding naming %q; fails: %v", tt.name, tt.id, tt.want, analysistest.BySeverity(fs, finding.Fail))
			}
		})
	}
}

// The spec's settings decide: a changed derivation, rounding or id changes
// the finding.
func TestRunsSettingsDecide(t *testing.T) {
	spec := analysistest.Spec
	analyzerOf := map[string]*analysis.Analyzer{"derive": derive.Derive, "summary": summary.Summary}
	tests := []struct {
		name string
		rule string
		edit analysistest.Edit
		sev  finding.Severity
		id   string
		want []string
	}{
		{"another divisor", "derive",
			spec(`"from": "disk0_mb", "divisor": 65.0},
            "whole_run_disk0_mb_ub1024"`, `"from": "disk0_mb", "divisor": 64.0},
            "whole_run_disk0_mb_ub1024"`),
			finding.Fail, "F06", []string{"llama_cpp_patched field whole_run_disk0_mb_per_65tok: runner 514.3, but 33,428.34 / 64 = 522.32"}},
		{"a field copied from another step", "derive",
			spec(`"decode_tok_s": {"step": "step2_ub1024", "from": "gen_tok_s"}`, `"decode_tok_s": {"step": "step2_ub1024", "from": "prompt_tok_s"}`),
			finding.Fail, "F06", []string{"llama_cpp_unpatched field decode_tok_s: runner 1.4, but prev_llama_unpatched.step2_ub1024.prompt_tok_s gives 14.3"}},
		{"an undeclared field", "derive",
			spec(`"decode_tok_s": {"step": "step2_ub1024", "from": "gen_tok_s"},`, ``),
			finding.Fail, "F06", []string{"llama_cpp_unpatched.decode_tok_s: no known derivation from prev_llama_unpatched"}},
		{"a reduction over another metric", "derive",
			spec(`"metric": {"metric": "misses_per_tok", "label": "misses/tok"}`, `"metric": {"metric": "hit_ra_pct", "label": "RA hits"}`),
			finding.Fail, "F05", []string{"miss reduction q2_0_moce085_vs_q2_0_moce0: runner 51.8, but 1 − 9.38/18.58"}},
		{"another id for the check", "derive",
			spec(`"derive/kld_macro": "F04"`, `"derive/kld_macro": "F99"`),
			finding.Pass, "F99", []string{"KLD macro iq3_s recomputed from 3 tails"}},
		{"a declared table the results do not have", "derive",
			spec(`"table": {"path": "kld_macros"}`, `"table": {"path": "kld_means"}`),
			finding.Warn, "F04", []string{"the spec declares the runner's table kld_means, which results/phase0_phase2_m5_validation.json does not have: not checked"}},
		{"declared summary rows the results do not have", "summary",
			spec(`{"path": "summary_comparison.prefill"}`, `{"path": "summary_comparison.decode"}`),
			finding.Warn, "F01", []string{"the runner's table summary_comparison.decode"}},
		{"no rounding declared", "summary",
			spec(`"rounding": [{"field": "pure_gpu_ms_per_tok", "label": "pure_gpu", "decimals": 2}],`, ``),
			finding.Fail, "F01", []string{"field pure_gpu_ms_per_tok: runner perf.strata_q2_0_moce085_prefill_1024tok = 57.61, tail line"}},
		{"another run checked as exact", "summary",
			spec(`"strata_q2_0_moce0_short_43tok": {"check": "exact"`, `"strata_iq3_s_short_43tok": {"check": "exact"`),
			finding.Pass, "F03", []string{"perf.strata_iq3_s_short_43tok (43-tok MoCE=0)", "exact against the tail"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := analysistest.Findings(t, analysistest.Copy(t, "m5-v3", tt.edit), analyzerOf[tt.rule])
			if !analysistest.Has(fs, tt.sev, tt.id, tt.want...) {
				t.Errorf("%s after %s: no %s %s finding naming %q in %v", tt.rule, tt.name, tt.sev, tt.id, tt.want, fs)
			}
		})
	}
}
