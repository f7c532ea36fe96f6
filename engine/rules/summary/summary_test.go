package summary_test

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/rules/summary"
	"github.com/strataspec/strataspec/engine/snaptest"
)

func TestSummaryFixtures(t *testing.T) {
	for _, name := range []string{"m5-v3", "m5"} {
		fs := analysistest.Findings(t, snaptest.Fixture(t, name), summary.Summary)
		if bad := analysistest.BySeverity(fs, finding.Fail); len(bad) > 0 {
			t.Errorf("%s: summary fails: %v", name, bad)
		}
		for _, want := range []struct {
			id   string
			text []string
		}{
			{"F01", []string{"perf dicts of all 14 runs with arena_gb equal the independent parse"}},
			{"F01", []string{"pure_gpu 57.61 vs 57.612: 2-dp rounding"}},
			{"F02", []string{"all 44 derived fields equal the raw", "locked 2.90, unpinned 0.34, hc 1.28, scratch 1.36"}},
			{"F03", []string{"strata_q2_0_moce0_short_43tok", "exact"}},
			{"F01", []string{"summary_comparison: 0 mismatches"}},
		} {
			if !analysistest.Has(fs, finding.Pass, want.id, want.text...) {
				t.Errorf("%s: no pass %s finding with %q in %v", name, want.id, want.text, fs)
			}
		}
	}
}

func TestSummaryDetectsChanges(t *testing.T) {
	tests := []struct {
		name  string
		edits []analysistest.Edit
		id    string
		want  []string // in one fail message
	}{
		{"one number in one tail",
			[]analysistest.Edit{analysistest.Results("decode: 64 tok in 4733.73 ms (13.52 tok/s)", "decode: 64 tok in 4733.73 ms (13.53 tok/s)")},
			"F02", []string{"run strata_metal_optimized_k256_q2_0_moce085", "field decode_tok_s", "13.52", "13.53"}},
		{"one perf value",
			[]analysistest.Edit{analysistest.Results(`"init_ms": 418.56,`+"\n      \"fill_gb\"", `"init_ms": 418.57,`+"\n      \"fill_gb\"")},
			"F01", []string{"run strata_iq3_s_short_43tok", "field init_ms", "418.57", "418.56"}},
		{"pure_gpu beyond rounding",
			[]analysistest.Edit{analysistest.Results("T1 GPU 71.712 ms/tok", "T1 GPU 71.722 ms/tok")},
			"F01", []string{"run strata_q2_0_moce085_prefill_1024tok", "field pure_gpu_ms_per_tok", "57.61", "57.622"}},
		{"summary_comparison row",
			[]analysistest.Edit{analysistest.Results(`"misses_per_tok": 108.9,`+"\n        \"miss_mb_per_tok\"", `"misses_per_tok": 109.9,`+"\n        \"miss_mb_per_tok\"")},
			"F01", []string{"run strata_iq3_s_short_43tok", "field misses_per_tok", "summary_comparison.speed_43tok[2]", "109.9"}},
		{"tail missing a required line",
			[]analysistest.Edit{analysistest.Results(`prompt_region(false): phys_footprint 4.73 GB -> 4.67 GB, resident_size 7.65 GB -> 7.60 GB\ndecode: [16/64] 13.27`, `decode: [16/64] 13.27`)},
			"F01", []string{"run strata_q2_0_moce085_prefill_1024tok", `missing required line "prompt_region(false):"`}},
		{"malformed tail line",
			[]analysistest.Edit{analysistest.Results("cache: hit 63.86% arena", "cache: hit 63.86 arena")},
			"F01", []string{"run strata_q2_0_moce0_short_43tok", "tail line", `malformed "cache:" line`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := analysistest.Findings(t, analysistest.Copy(t, "m5-v3", tt.edits...), summary.Summary)
			if !analysistest.Has(fs, finding.Fail, tt.id, tt.want...) {
				t.Errorf("summary after %s: no fail %s finding naming %q; fails: %v", tt.name, tt.id, tt.want, analysistest.BySeverity(fs, finding.Fail))
			}
			for _, f := range analysistest.BySeverity(fs, finding.Fail) {
				if f.File == "" || (f.Line == 0 && !strings.Contains(f.Message, "missing required line")) {
					t.Errorf("fail finding without a place: %v", f)
				}
			}
		})
	}
}
