package rules_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// copySnapshot copies a fixture into t.TempDir() and applies edits to it:
// each edit replaces old with new exactly once in a file (snaptest.Edit).
func copySnapshot(t *testing.T, name string, edits ...edit) string {
	t.Helper()
	dst := snaptest.CopyFixture(t, name)
	for _, e := range edits {
		snaptest.Edit(t, filepath.Join(dst, filepath.FromSlash(e.file)), e.old, e.new)
	}
	return dst
}

type edit struct{ file, old, new string }

// results edits the results JSON.
func results(old, new string) edit { return edit{snaptest.ResultsFile, old, new} }

// check audits a snapshot with one rule (and the rules below its name) and
// returns the findings.
func check(t *testing.T, root, rule string) []finding.Finding {
	t.Helper()
	rep, err := audit.Audit(root, rule)
	if err != nil {
		t.Fatalf("audit.Audit(%q, %q): %v", root, rule, err)
	}
	return rep.Findings
}

// bySeverity returns the findings of a severity.
func bySeverity(fs []finding.Finding, sev finding.Severity) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Severity == sev {
			out = append(out, f)
		}
	}
	return out
}

// hasFinding reports whether a finding of the severity and id has a message
// containing every one of want.
func hasFinding(fs []finding.Finding, sev finding.Severity, id string, want ...string) bool {
	for _, f := range fs {
		if f.Severity != sev || f.ID != id {
			continue
		}
		ok := true
		for _, w := range want {
			if !strings.Contains(f.Message, w) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func TestSummaryFixtures(t *testing.T) {
	for _, name := range []string{"m5-v3", "m5"} {
		fs := check(t, snaptest.Fixture(t, name), "summary")
		if bad := bySeverity(fs, finding.Fail); len(bad) > 0 {
			t.Errorf("%s: summary fails: %v", name, bad)
		}
		for _, want := range []struct {
			id   string
			text []string
		}{
			{"F01", []string{"perf dicts of all 14 strata runs equal the independent parse"}},
			{"F01", []string{"pure_gpu 57.61 vs 57.612: 2-dp rounding"}},
			{"F02", []string{"all 44 derived fields equal the raw", "locked 2.90, unpinned 0.34, hc 1.28, scratch 1.36"}},
			{"F03", []string{"strata_q2_0_moce0_short_43tok", "exact"}},
			{"F01", []string{"summary_comparison: 0 mismatches"}},
		} {
			if !hasFinding(fs, finding.Pass, want.id, want.text...) {
				t.Errorf("%s: no pass %s finding with %q in %v", name, want.id, want.text, fs)
			}
		}
	}
}

func TestSummaryDetectsChanges(t *testing.T) {
	tests := []struct {
		name  string
		edits []edit
		id    string
		want  []string // in one fail message
	}{
		{"one number in one tail",
			[]edit{results("decode: 64 tok in 4733.73 ms (13.52 tok/s)", "decode: 64 tok in 4733.73 ms (13.53 tok/s)")},
			"F02", []string{"run strata_metal_optimized_k256_q2_0_moce085", "field decode_tok_s", "13.52", "13.53"}},
		{"one perf value",
			[]edit{results(`"init_ms": 418.56,`+"\n      \"fill_gb\"", `"init_ms": 418.57,`+"\n      \"fill_gb\"")},
			"F01", []string{"run strata_iq3_s_short_43tok", "field init_ms", "418.57", "418.56"}},
		{"pure_gpu beyond rounding",
			[]edit{results("T1 GPU 71.712 ms/tok", "T1 GPU 71.722 ms/tok")},
			"F01", []string{"run strata_q2_0_moce085_prefill_1024tok", "field pure_gpu_ms_per_tok", "57.61", "57.622"}},
		{"summary_comparison row",
			[]edit{results(`"misses_per_tok": 108.9,`+"\n        \"miss_mb_per_tok\"", `"misses_per_tok": 109.9,`+"\n        \"miss_mb_per_tok\"")},
			"F01", []string{"run strata_iq3_s_short_43tok", "field misses_per_tok", "summary_comparison.speed_43tok[2]", "109.9"}},
		{"tail missing a required line",
			[]edit{results(`prompt_region(false): phys_footprint 4.73 GB -> 4.67 GB, resident_size 7.65 GB -> 7.60 GB\ndecode: [16/64] 13.27`, `decode: [16/64] 13.27`)},
			"F01", []string{"run strata_q2_0_moce085_prefill_1024tok", `missing required line "prompt_region(false):"`}},
		{"malformed tail line",
			[]edit{results("cache: hit 63.86% arena", "cache: hit 63.86 arena")},
			"F01", []string{"run strata_q2_0_moce0_short_43tok", "tail line", `malformed "cache:" line`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := check(t, copySnapshot(t, "m5-v3", tt.edits...), "summary")
			if !hasFinding(fs, finding.Fail, tt.id, tt.want...) {
				t.Errorf("summary after %s: no fail %s finding naming %q; fails: %v", tt.name, tt.id, tt.want, bySeverity(fs, finding.Fail))
			}
			for _, f := range bySeverity(fs, finding.Fail) {
				if f.File == "" || (f.Line == 0 && !strings.Contains(f.Message, "missing required line")) {
					t.Errorf("fail finding without a place: %v", f)
				}
			}
		})
	}
}

func TestSummaryNoPerf(t *testing.T) {
	// Removing a run's perf dict is caught, naming the run.
	root := copySnapshot(t, "m5-v3")
	p := filepath.Join(root, filepath.FromSlash(snaptest.ResultsFile))
	s := snaptest.Read(t, p)
	i := strings.Index(s, `    "strata_tf_q2_0_moce085_ja": {`)
	if i < 0 {
		t.Fatal("fixture layout changed: no perf dict of strata_tf_q2_0_moce085_ja")
	}
	j := strings.Index(s[i:], "    }")
	if j < 0 {
		t.Fatal("fixture layout changed: perf dict of strata_tf_q2_0_moce085_ja not closed")
	}
	j += i + len("    }")
	s = strings.TrimSuffix(s[:i], ",\n") + "\n" + strings.TrimPrefix(s[j:], ",")
	snaptest.Write(t, p, s)
	fs := check(t, root, "summary")
	if !hasFinding(fs, finding.Fail, "F01", "run strata_tf_q2_0_moce085_ja has no perf dict") {
		t.Errorf("no fail naming the run without perf: %v", bySeverity(fs, finding.Fail))
	}
}
