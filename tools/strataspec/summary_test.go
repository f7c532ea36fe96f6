package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestRunNothingToAudit: a folder with no plan, no run and no record is a
// mistake, exit 2 with one line naming the folder, never a pass.
func TestRunNothingToAudit(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"-root", dir})
	if code != 2 {
		t.Errorf("run(-root empty) = %d; want 2\nstdout: %s", code, stdout.String())
	}
	lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "nothing to audit") || !strings.Contains(lines[0], dir) {
		t.Errorf("run(-root empty) stderr = %q; want one line saying nothing to audit in %s", stderr.String(), dir)
	}
	if stdout.Len() != 0 {
		t.Errorf("run(-root empty) printed a report: %q", stdout.String())
	}
}

// TestRunGitHubStepSummary: with $GITHUB_STEP_SUMMARY set, -format github
// appends the Markdown report to that file (after what is there), and the
// annotations stay on stdout.
func TestRunGitHubStepSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(path, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", path)
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-root", fixtures + "/m5-v3", "-format", "github"}); code != 1 {
		t.Fatalf("run = %d; want 1\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasPrefix(got, "earlier step\n# FALSIFIER HIT — audit of ") {
		t.Errorf("job summary starts %q; want the earlier content, then the Markdown report", got[:min(len(got), 80)])
	}
	if !strings.Contains(got, "## Unsourced numbers") || len(b) > StepSummaryLimit {
		t.Errorf("job summary (%d bytes) lacks the unsourced table or is over %d bytes", len(b), StepSummaryLimit)
	}
	if strings.Contains(stdout.String(), "# FALSIFIER HIT") || !strings.Contains(stdout.String(), "::error ") {
		t.Errorf("stdout holds the summary or no annotation:\n%s", stdout.String())
	}
}

// TestTextWidth: $COLUMNS sets the width the text report wraps to; a
// writer that is no terminal gets the default.
func TestTextWidth(t *testing.T) {
	t.Setenv("COLUMNS", "")
	if got := textWidth(&bytes.Buffer{}); got != 0 {
		t.Errorf("textWidth(buffer) = %d; want 0 (the default)", got)
	}
	t.Setenv("COLUMNS", "72")
	var stdout, stderr bytes.Buffer
	run(&stdout, &stderr, []string{"-root", fixtures + "/m5-v3"})
	long := 0
	for _, l := range strings.Split(stdout.String(), "\n") {
		if n := len([]rune(l)); n > 72 && strings.Contains(strings.TrimSpace(l), " ") {
			long++
		}
	}
	if long > 0 || stdout.Len() == 0 {
		t.Errorf("COLUMNS=72: %d lines of several words over 72 columns:\n%s", long, stdout.String())
	}
}

// TestRunPlanWithoutClaims: a plan with no claims table fails, and the
// first lines of the report and the first annotation say where to begin.
func TestRunPlanWithoutClaims(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5-v3")
	snaptest.Remove(t, filepath.Join(root, "PLAN.claims"))
	for _, tt := range []struct{ format, first string }{
		{"text", "start here: PLAN.md has no claims table (PLAN.claims)"},
		{"github", "::error file="},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, []string{"-root", root, "-format", tt.format}); code != 1 {
			t.Errorf("run(-format %s, no PLAN.claims) = %d; want 1\n%s", tt.format, code, stderr.String())
		}
		lines := strings.Split(stdout.String(), "\n")
		if len(lines) < 3 {
			t.Fatalf("-format %s: short output %q", tt.format, stdout.String())
		}
		first := ""
		for i, l := range lines { // the first line after the verdict's blank line
			if l == "" && i+1 < len(lines) {
				first = lines[i+1]
				break
			}
		}
		if tt.format == "github" {
			first = lines[0]
			if !strings.Contains(first, "title=plan.uncovered::PLAN.md has no claims table") {
				t.Errorf("-format github: first annotation %q; want the missing claims table", first)
			}
		}
		if !strings.HasPrefix(first, tt.first) {
			t.Errorf("-format %s: line %q; want it to start %q", tt.format, first, tt.first)
		}
	}
}
