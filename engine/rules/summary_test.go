package rules_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/rules"
)

// fixtureRoot returns a committed fixture snapshot, skipping when absent.
func fixtureRoot(t *testing.T, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "fixtures", name)
	if _, err := os.Stat(filepath.Join(root, archive.ResultsFile)); err != nil {
		t.Skipf("fixture %s absent", name)
	}
	return root
}

// copySnapshot copies a fixture into t.TempDir() and applies edits to it:
// each edit replaces old with new exactly once in a file.
func copySnapshot(t *testing.T, name string, edits ...edit) string {
	t.Helper()
	src := fixtureRoot(t, name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		p := filepath.Join(dst, filepath.FromSlash(e.file))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), e.old); n != 1 {
			t.Fatalf("edit %q in %s: found %d times; want exactly once", e.old, e.file, n)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), e.old, e.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

type edit struct{ file, old, new string }

// results edits the results JSON.
func results(old, new string) edit { return edit{archive.ResultsFile, old, new} }

// check runs one rule over a snapshot loaded through the audit pipeline.
func check(t *testing.T, root, rule string) []finding.Finding {
	t.Helper()
	ctx, err := audit.Load(root)
	if err != nil {
		t.Fatalf("audit.Load: %v", err)
	}
	rs, err := rules.Select(rule)
	if err != nil {
		t.Fatal(err)
	}
	var out []finding.Finding
	for _, r := range rs {
		fs, err := r.Check(ctx)
		if err != nil {
			t.Fatalf("rule %s: %v", r.Name, err)
		}
		out = append(out, fs...)
	}
	return out
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
		fs := check(t, fixtureRoot(t, name), "summary")
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
	p := filepath.Join(root, filepath.FromSlash(archive.ResultsFile))
	b, _ := os.ReadFile(p)
	s := string(b)
	i := strings.Index(s, `    "strata_tf_q2_0_moce085_ja": {`)
	j := strings.Index(s[i:], "    }") + i + len("    }")
	if i < 0 || j < i {
		t.Fatal("fixture layout changed")
	}
	s = strings.TrimSuffix(s[:i], ",\n") + "\n" + strings.TrimPrefix(s[j:], ",")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := check(t, root, "summary")
	if !hasFinding(fs, finding.Fail, "F01", "run strata_tf_q2_0_moce085_ja has no perf dict") {
		t.Errorf("no fail naming the run without perf: %v", bySeverity(fs, finding.Fail))
	}
}
