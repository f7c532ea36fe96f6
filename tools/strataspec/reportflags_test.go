package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/snaptest"
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
	if code != 1 {
		t.Fatalf("-root m5-v3 = exit %d; want 1; stderr: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	// 37 fails and 23 warnings of at most two wrapped lines each (12 of
	// them compare.significance's single-run comparisons), the
	// declared-not-measured table (a heading and its row), the fixes, the
	// passes and the rules that did not apply
	if len(lines) > 161 {
		t.Errorf("the text report of m5-v3 is %d lines; want at most 161:\n%s", len(lines), out)
	}
	if !strings.HasPrefix(lines[0], "verdict: FALSIFIER HIT") {
		t.Errorf("the text report's first line = %q; want the verdict FALSIFIER HIT", lines[0])
	}
	// The unsourced numbers: one table near the top, one row per cell.
	head := -1
	for i, l := range lines[:10] {
		if strings.Contains(l, "where") && strings.Contains(l, "plan says") && strings.Contains(l, "raw says") {
			head = i
		}
	}
	if head < 0 {
		t.Fatalf("no unsourced table in the first 10 lines:\n%s", out)
	}
	if len(lines) < head+9 {
		t.Fatalf("the text report ends %d lines after the unsourced table's head; want its 7 rows and more:\n%s", len(lines)-head-1, out)
	}
	var ids []string
	for _, l := range lines[head+1 : head+8] {
		if !strings.HasPrefix(l, "  PLAN.md:") {
			t.Fatalf("unsourced table row %q; want a PLAN.md place", l)
		}
		ids = append(ids, l[strings.LastIndex(l, " ")+1:])
	}
	slices.Sort(ids)
	if diff := cmp.Diff([]string{"F09", "F10", "F11", "F12", "F13", "F14", "F15"}, ids); diff != "" {
		t.Errorf("unsourced table ids mismatch the audit's 7 unsourced cells (§1c) (-want +got):\n%s", diff)
	}
	if l := lines[head+8]; strings.HasPrefix(l, "  PLAN.md:") {
		t.Errorf("unsourced table has an 8th row %q; want 7", l)
	}
	if regexp.MustCompile(`(?m)^PASS `).MatchString(out) {
		t.Errorf("text report without -v lists a pass; want passes counted, not listed:\n%s", out)
	}
}

func TestVerbosePrintsEveryFinding(t *testing.T) {
	_, js, _ := runAudit(t, "-root", fixtures+"/m5-v3", "-format", "json")
	var rep struct {
		Findings []struct{ Rule, Severity string }
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("-format json output does not parse: %v", err)
	}
	if len(rep.Findings) == 0 {
		t.Fatal("-format json on m5-v3 has no findings; want the audit's")
	}
	code, out, stderr := runAudit(t, "-root", fixtures+"/m5-v3", "-v")
	if code != 1 {
		t.Fatalf("-root m5-v3 -v = exit %d; want 1; stderr: %s", code, stderr)
	}
	blocks := regexp.MustCompile(`(?m)^(FAIL|WARN|PASS) `).FindAllString(out, -1)
	if len(blocks) != len(rep.Findings) {
		t.Errorf("-v prints %d findings; want every one, %d", len(blocks), len(rep.Findings))
	}
}

func TestPrevious(t *testing.T) {
	golden := "../../golden/m5-v3/report.json"
	var prev struct{ Findings []struct{ Severity string } }
	if err := json.Unmarshal([]byte(snaptest.Read(t, golden)), &prev); err != nil {
		t.Fatalf("%s does not parse: %v", golden, err)
	}
	bad := 0
	for _, f := range prev.Findings {
		if f.Severity != "pass" {
			bad++
		}
	}
	if bad == 0 {
		t.Fatalf("%s has no fail or warn; want the v3 audit's", golden)
	}

	code, js, stderr := runAudit(t, "-root", fixtures+"/m5", "-previous", golden, "-format", "json")
	if code != 0 {
		t.Fatalf("-root m5 -previous %s = exit %d; want 0: the fixed snapshot passes, -previous does not change the exit code\n%s", golden, code, stderr)
	}
	var rep struct {
		Previous struct {
			Fixed, Still, New int
			Findings          []struct{ Status, Severity string }
		}
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("-format json output does not parse: %v", err)
	}
	if c := rep.Previous; c.Fixed+c.Still != bad || c.New != 0 || c.Fixed == 0 {
		t.Errorf("-previous v3 on m5 = %d fixed, %d still, %d new; want fixed+still = %d (every fail or warn of v3), some fixed, none new", c.Fixed, c.Still, c.New, bad)
	}

	_, text, _ := runAudit(t, "-root", fixtures+"/m5", "-previous", golden)
	if re := regexp.MustCompile(`(?m)^against .*report\.json: \d+ fixed, \d+ still, 0 new(;.*)?$`); !re.MatchString(text) {
		t.Errorf("-previous v3 on m5: text report has no line matching %s:\n%s", re, text)
	}

	// Against itself: all still, exit code still 1.
	code, text, _ = runAudit(t, "-root", fixtures+"/m5-v3", "-previous", golden)
	if want := ": 0 fixed, " + strconv.Itoa(bad) + " still, 0 new\n"; code != 1 || !strings.Contains(text, want) {
		t.Errorf("-previous v3 on m5-v3 = exit %d; want 1 and a text report containing %q:\n%s", code, want, text)
	}
}

func TestPreviousBad(t *testing.T) {
	dir := t.TempDir()
	malformed := filepath.Join(dir, "old.json")
	snaptest.Write(t, malformed, "{\n  \"verdict\": \"PASS\",\n  \"findings\": [,]\n}\n")
	notReport := filepath.Join(dir, "other.json")
	snaptest.Write(t, notReport, `{"runs": []}`)
	for _, tt := range []struct{ file, want string }{
		{malformed, malformed + ":3:16: not a JSON report"},
		{notReport, notReport + ": not an audit report"},
		{filepath.Join(dir, "missing.json"), "missing.json"},
	} {
		code, out, stderr := runAudit(t, "-root", fixtures+"/m5", "-previous", tt.file)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("-previous %s = exit %d, stderr %q; want 2 and %q", tt.file, code, stderr, tt.want)
		}
		if out != "" {
			t.Errorf("-previous %s printed %q; want no report when -previous cannot be read", tt.file, out)
		}
	}
}

func TestRepoPath(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "repo", "fixtures", "snap")
	worktree := filepath.Join(dir, "wt", "snap")
	bare := filepath.Join(dir, "norepo", "snap")
	for _, d := range []string{snap, filepath.Join(dir, "repo", ".git"), worktree, bare} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	snaptest.Write(t, filepath.Join(dir, "wt", ".git"), "gitdir: elsewhere\n")
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
		if code != 1 {
			t.Errorf("%q = exit %d; want 1; stderr: %s", tt.args, code, stderr)
		}
		if !strings.Contains(out, tt.want) {
			t.Errorf("%q: output lacks %q", tt.args, tt.want)
		}
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
		if code != 1 {
			t.Errorf("-format %s = exit %d; want 1; stderr: %s", tt.format, code, stderr)
		}
		if err := tt.parse([]byte(out)); err != nil {
			t.Errorf("-format %s output does not parse: %v", tt.format, err)
		}
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
		if code != 0 {
			t.Fatalf("-format %s on m5 with a forged key = exit %d; want 0; stderr: %s", format, code, stderr)
		}
		if want := `x\nverdict: PASS\x1b[2J\u2028`; !strings.Contains(out, want) {
			t.Errorf("%s report lacks %q: the key is shown escaped\n%s", format, want, out)
		}
		if verdicts := regexp.MustCompile(`(?m)^\W*(verdict: )?PASS\b`).FindAllString(out, -1); len(verdicts) > 1 {
			t.Errorf("%s report has verdict lines %q; want one", format, verdicts)
		}
		for _, bad := range []string{"\x1b", "\u2028"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s report holds the raw character %q", format, bad)
			}
		}
	}
}

// TestPreviousFIFO: -previous on a FIFO fails at once (found in review: it
// waited forever for a writer).
func TestPreviousFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "prev")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, []string{"-root", "../../fixtures/m5", "-previous", p})
		done <- result{code, stdout.String(), stderr.String()}
	}()
	select {
	case r := <-done:
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, p) {
			t.Errorf("-previous on a FIFO = exit %d, stdout %q, stderr %q; want exit 2, no report, an error naming %s", r.code, r.stdout, r.stderr, p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("-previous on a FIFO blocked")
	}
}
