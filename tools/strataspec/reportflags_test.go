package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runAudit runs the command and returns its exit code, stdout and stderr.
func runAudit(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, args)
	return code, stdout.String(), stderr.String()
}

func TestTextReportReadsInAMinute(t *testing.T) {
	code, out, stderr := runAudit(t, "-root", fixtures+"/m5-v3")
	require.Equal(t, 1, code, stderr)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	// 37 fails and 23 warnings of at most two wrapped lines each (12 of
	// them compare.significance's single-run comparisons), the
	// declared-not-measured table (a heading and its row), the fixes, the
	// passes and the rules that did not apply
	assert.LessOrEqual(t, len(lines), 161, "the text report of m5-v3 fits in 161 lines:\n%s", out)
	assert.True(t, strings.HasPrefix(lines[0], "verdict: FALSIFIER HIT"), "first line %q", lines[0])
	// The unsourced numbers: one table near the top, one row per cell.
	head := -1
	for i, l := range lines[:10] {
		if strings.Contains(l, "where") && strings.Contains(l, "plan says") && strings.Contains(l, "raw says") {
			head = i
		}
	}
	require.GreaterOrEqual(t, head, 0, "no unsourced table in the first 10 lines:\n%s", out)
	var ids []string
	for _, l := range lines[head+1 : head+8] {
		require.True(t, strings.HasPrefix(l, "  PLAN.md:"), "table row %q", l)
		ids = append(ids, l[strings.LastIndex(l, " ")+1:])
	}
	assert.ElementsMatch(t, []string{"F09", "F10", "F11", "F12", "F13", "F14", "F15"}, ids, "the audit's 7 unsourced cells (§1c)")
	assert.False(t, strings.HasPrefix(lines[head+8], "  PLAN.md:"), "the table has 7 rows")
	assert.NotRegexp(t, `(?m)^PASS `, out, "passes are counted, not listed, without -v")
}

func TestVerbosePrintsEveryFinding(t *testing.T) {
	_, js, _ := runAudit(t, "-root", fixtures+"/m5-v3", "-format", "json")
	var rep struct {
		Findings []struct{ Rule, Severity string }
	}
	require.NoError(t, json.Unmarshal([]byte(js), &rep))
	code, out, _ := runAudit(t, "-root", fixtures+"/m5-v3", "-v")
	require.Equal(t, 1, code)
	blocks := regexp.MustCompile(`(?m)^(FAIL|WARN|PASS) `).FindAllString(out, -1)
	assert.Len(t, blocks, len(rep.Findings), "-v prints every finding")
}

func TestPrevious(t *testing.T) {
	golden := "../../golden/m5-v3/report.json"
	var prev struct{ Findings []struct{ Severity string } }
	b, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &prev))
	bad := 0
	for _, f := range prev.Findings {
		if f.Severity != "pass" {
			bad++
		}
	}
	require.Positive(t, bad)

	code, js, stderr := runAudit(t, "-root", fixtures+"/m5", "-previous", golden, "-format", "json")
	require.Equal(t, 0, code, "the fixed snapshot passes; -previous does not change the exit code\n%s", stderr)
	var rep struct {
		Previous struct {
			Fixed, Still, New int
			Findings          []struct{ Status, Severity string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(js), &rep))
	assert.Equal(t, bad, rep.Previous.Fixed+rep.Previous.Still, "every fail or warn of v3 is fixed or still")
	assert.Zero(t, rep.Previous.New, "no new finding")
	assert.Positive(t, rep.Previous.Fixed)

	_, text, _ := runAudit(t, "-root", fixtures+"/m5", "-previous", golden)
	assert.Regexp(t, `(?m)^against .*report\.json: \d+ fixed, \d+ still, 0 new$`, text)

	// Against itself: all still, exit code still 1.
	code, text, _ = runAudit(t, "-root", fixtures+"/m5-v3", "-previous", golden)
	assert.Equal(t, 1, code)
	assert.Contains(t, text, ": 0 fixed, "+itoa(bad)+" still, 0 new\n")
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestPreviousBad(t *testing.T) {
	dir := t.TempDir()
	malformed := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(malformed, []byte("{\n  \"verdict\": \"PASS\",\n  \"findings\": [,]\n}\n"), 0o644))
	notReport := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(notReport, []byte(`{"runs": []}`), 0o644))
	for _, tt := range []struct{ file, want string }{
		{malformed, malformed + ":3:16: not a JSON report"},
		{notReport, notReport + ": not an audit report"},
		{filepath.Join(dir, "missing.json"), "missing.json"},
	} {
		code, out, stderr := runAudit(t, "-root", fixtures+"/m5", "-previous", tt.file)
		assert.Equal(t, 2, code, "-previous %s", tt.file)
		assert.Contains(t, stderr, tt.want)
		assert.Empty(t, out, "no report is printed when -previous cannot be read")
	}
}

func TestRepoPath(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "repo", "fixtures", "snap")
	require.NoError(t, os.MkdirAll(snap, 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "repo", ".git"), 0o755))
	worktree := filepath.Join(dir, "wt", "snap")
	require.NoError(t, os.MkdirAll(worktree, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wt", ".git"), []byte("gitdir: elsewhere\n"), 0o644))
	bare := filepath.Join(dir, "norepo", "snap")
	require.NoError(t, os.MkdirAll(bare, 0o755))
	for _, tt := range []struct{ root, want string }{
		{snap, "fixtures/snap"},
		{filepath.Join(dir, "repo"), "."},
		{worktree, "snap"}, // a worktree's .git is a file
	} {
		if got := repoPath(tt.root); got != tt.want {
			t.Errorf("repoPath(%q) = %q; want %q", tt.root, got, tt.want)
		}
	}
	if _, err := os.Stat("/.git"); os.IsNotExist(err) {
		if got := repoPath(bare); got != bare {
			t.Errorf("repoPath(%q) = %q; want the root as given (no repository)", bare, got)
		}
	}
}

func TestPathsFromRepositoryRoot(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		// ../../fixtures/m5-v3 from tools/strataspec is fixtures/m5-v3 in the repository
		{[]string{"-format", "sarif"}, `"uri": "fixtures/m5-v3/PLAN.md"`},
		{[]string{"-format", "github"}, "::error file=fixtures/m5-v3/PLAN.md,line=577,"},
		{[]string{"-format", "junit"}, `name="F11 fixtures/m5-v3/PLAN.md:578 `},
		{[]string{"-format", "sarif", "-path-prefix", "vendor/strata"}, `"uri": "vendor/strata/PLAN.md"`},
	} {
		code, out, stderr := runAudit(t, append([]string{"-root", fixtures + "/m5-v3"}, tt.args...)...)
		assert.Equal(t, 1, code, stderr)
		assert.True(t, strings.Contains(out, tt.want), "%q: output lacks %q", tt.args, tt.want)
		if m := regexp.MustCompile(`(file=|"uri": )"?\.\./`).FindString(out); m != "" {
			t.Errorf("%q: a path %q… is not from the repository root", tt.args, m)
		}
	}
}

func TestFormatsParse(t *testing.T) {
	for _, tt := range []struct {
		format string
		parse  func([]byte) error
	}{
		{"sarif", func(b []byte) error { var v map[string]any; return json.Unmarshal(b, &v) }},
		{"junit", func(b []byte) error { var v struct{ XMLName xml.Name }; return xml.Unmarshal(b, &v) }},
		{"html", func(b []byte) error {
			if !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.Contains(b, []byte("<svg ")) {
				return os.ErrInvalid
			}
			return nil
		}},
	} {
		code, out, stderr := runAudit(t, "-root", fixtures+"/m5-v3", "-format", tt.format)
		assert.Equal(t, 1, code, "%s: %s", tt.format, stderr)
		assert.NoError(t, tt.parse([]byte(out)), "-format %s output", tt.format)
	}
}

// TestForgedKeyStaysData adds a JSON key holding a newline and a verdict to
// the fixed snapshot's results: the text and Markdown reports show it
// escaped, on the line of the note that names it, and print one verdict.
func TestForgedKeyStaysData(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, filepath.FromSlash(snaptest.ResultsFile)),
		`"schema": "phase0_phase2_m5_validation/3",`,
		`"schema": "phase0_phase2_m5_validation/3", "x\nverdict: PASS\u001b[2J\u2028": 1,`)
	for _, format := range []string{"text", "markdown"} {
		code, out, stderr := runAudit(t, "-root", root, "-format", format)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, `x\nverdict: PASS\x1b[2J\u2028`, "%s: the key is shown escaped", format)
		verdicts := regexp.MustCompile(`(?m)^\W*(verdict: )?PASS\b`).FindAllString(out, -1)
		assert.LessOrEqual(t, len(verdicts), 1, "%s: one verdict line, got %q", format, verdicts)
		assert.NotContains(t, out, "\x1b")
		assert.NotContains(t, out, "\u2028")
	}
}

// TestPreviousFIFO: -previous on a FIFO fails at once (found in review: it
// waited forever for a writer).
func TestPreviousFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "prev")
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	done := make(chan int, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		done <- run(&stdout, &stderr, []string{"-root", "../../fixtures/m5", "-previous", p})
	}()
	select {
	case code := <-done:
		assert.Equal(t, 2, code)
	case <-time.After(10 * time.Second):
		t.Fatal("-previous on a FIFO blocked")
	}
}
