package rules_test

import (
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
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
	// into a per-token rate: its llama_cpp_* blocks lack the "/ 65.0" fields.
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
		fs := check(t, snaptest.Fixture(t, name), "derive")
		if bad := bySeverity(fs, finding.Fail); len(bad) > 0 {
			t.Errorf("%s: derive fails: %v", name, bad)
		}
		want := want
		if name == "m5" {
			want = wantFixed
		}
		for _, w := range want {
			if !hasFinding(fs, finding.Pass, w.id, w.text...) {
				t.Errorf("%s: no pass %s finding with %q in %v", name, w.id, w.text, fs)
			}
		}
	}
}

func TestDeriveDetectsChanges(t *testing.T) {
	tests := []struct {
		name  string
		edits []edit
		id    string
		want  []string
	}{
		{"KLD macro in the results",
			[]edit{results(`"mean_kld_macro": 0.327365`, `"mean_kld_macro": 0.327366`)},
			"F04", []string{"KLD macro q2_0_moce0", "field mean_kld_macro", "0.327366", "recomputed 0.327365"}},
		{"top-1 macro in the results",
			[]edit{results(`"top1_pct_macro": 90.107`, `"top1_pct_macro": 90.117`)},
			"F04", []string{"KLD macro iq3_s", "field top1_pct_macro", "90.117"}},
		{"KLD in one tail",
			[]edit{results("kld: mean 0.375963,", "kld: mean 0.376963,")},
			"F04", []string{"KLD macro q2_0_moce085", "run strata_tf_q2_0_moce085_ja", "field mean_kld", "0.376963"}},
		{"miss reduction in the results",
			[]edit{results(`"q2_0_moce085_vs_q2_0_moce0": 51.8`, `"q2_0_moce085_vs_q2_0_moce0": 51.9`)},
			"F05", []string{"q2_0_moce085_vs_q2_0_moce0", "runner 51.9", "1 − 40.6/84.3 = 51.84%"}},
		{"misses in one tail",
			[]edit{results("(40.6 misses/tok", "(40.7 misses/tok")},
			"F05", []string{"q2_0_moce085_vs_iq3_s", "1 − 40.7/108.9"}},
		{"pure_gpu in the results",
			[]edit{results(`"pure_gpu_ms_per_tok": 56.29,`+"\n      \"mem_locked_gb\"", `"pure_gpu_ms_per_tok": 56.39,`+"\n      \"mem_locked_gb\"")},
			"F01", []string{"strata_metal_optimized_k256_q2_0_moce085", "field pure_gpu_ms_per_tok", "72.400 − 16.11"}},
		{"llama_cpp per-65 value",
			[]edit{results(`"whole_run_disk0_mb_per_65tok": 514.3`, `"whole_run_disk0_mb_per_65tok": 514.4`)},
			"F06", []string{"llama_cpp_patched field whole_run_disk0_mb_per_65tok", "514.4", "33,428.34 / 65", "514.3"}},
		// From review: a null was read as 0 and shown as "".
		{"null KLD macro",
			[]edit{results(`"mean_kld_macro": 0.327365`, `"mean_kld_macro": null`)},
			"F04", []string{"KLD macro q2_0_moce0 field mean_kld_macro: runner null, recomputed 0.327365"}},
		// From review: an unknown field was compared with 0.
		{"unknown summary KLD field",
			[]edit{results(`"top1_pct": 75.52`, `"top1_pct": 75.52, "top5_pct": 0`)},
			"F04", []string{"summary_comparison.kld.q2_0_moce0 field top5_pct: no known derivation"}},
		{"llama disk0 in one tail",
			[]edit{results("disk0 read 33,428.34 MB", "disk0 read 33,428.43 MB")},
			"F06", []string{"prev_llama_patched.step4_ngl99_cmoe_decode field disk0_mb", "33,428.43"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := check(t, copySnapshot(t, "m5-v3", tt.edits...), "derive")
			if !hasFinding(fs, finding.Fail, tt.id, tt.want...) {
				t.Errorf("derive after %s: no fail %s finding naming %q; fails: %v", tt.name, tt.id, tt.want, bySeverity(fs, finding.Fail))
			}
		})
	}
}
