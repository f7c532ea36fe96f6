package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixtures = "../../fixtures"

func TestRunExitCodes(t *testing.T) {
	for _, tt := range []struct {
		name      string
		args      []string
		code      int
		stderrHas string
	}{
		{"v3 plan gate fails", []string{"-root", fixtures + "/m5-v3", "-rules", "plan", "-format", "json"}, 1, ""},
		{"unknown rule", []string{"-root", fixtures + "/m5", "-rules", "nosuch"}, 2, `unknown rule "nosuch"`},
		{"unknown format", []string{"-root", fixtures + "/m5", "-format", "yaml"}, 2, `unknown -format "yaml"`},
		{"missing root", []string{"-root", fixtures + "/nosuch"}, 2, "nosuch"},
		{"extra argument", []string{"-root", fixtures + "/m5", "extra"}, 2, "unexpected arguments"},
		{"bad flag", []string{"-bogus"}, 2, "bogus"},
		{"list", []string{"-list"}, 0, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, tt.args)
		if code != tt.code {
			t.Errorf("run(%q) = %d; want %d\nstderr: %s", tt.args, code, tt.code, stderr.String())
		}
		if tt.stderrHas != "" && !strings.Contains(stderr.String(), tt.stderrHas) {
			t.Errorf("run(%q) stderr = %q; want it to contain %q", tt.args, stderr.String(), tt.stderrHas)
		}
	}
}

func TestRunJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-root", fixtures + "/m5-v3", "-rules", "plan", "-format", "json"}); code != 1 {
		t.Fatalf("run = %d; want 1\n%s", code, stderr.String())
	}
	var rep struct {
		Verdict  string
		Root     string
		Findings []struct{ Rule, Severity, File string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if rep.Verdict != "FALSIFIER HIT" || len(rep.Findings) == 0 {
		t.Errorf("verdict %q with %d findings; want FALSIFIER HIT with findings", rep.Verdict, len(rep.Findings))
	}
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.Rule, "plan.") {
			t.Errorf("-rules plan reported a %s finding", f.Rule)
		}
	}
}

// copyTree copies a snapshot so a test can damage it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestRunBadResults(t *testing.T) {
	root := copyTree(t, fixtures+"/m5")
	results := filepath.Join(root, "results", "phase0_phase2_m5_validation.json")
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(results, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-root", root}); code != 2 {
		t.Fatalf("run(truncated results) = %d; want 2", code)
	}
	if !strings.Contains(stderr.String(), "phase0_phase2_m5_validation.json") {
		t.Errorf("stderr = %q; want the results file named", stderr.String())
	}
}
