package analysistest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// An expectation is one line of a .want file: a finding the analyzer must
// report.
type expectation struct {
	line     int // in the .want file
	severity finding.Severity
	check    string // "" for any
	file     string
	at       int // the finding's line; -1 for any
	msg      *regexp.Regexp
}

// RunWant runs a over the snapshot in dir (a directory under testdata)
// and checks its findings against the expectations written beside it, in
// dir+".want", as golang.org/x/tools/go/analysis/analysistest checks
// diagnostics against // want comments: every warn and fail finding must
// match an expectation, and every expectation must match a finding (a pass
// finding is checked only where an expectation names one). A line of the
// .want file is
//
//	SEVERITY[/CHECK] FILE[:LINE] "REGEXP"
//
// (pass, warn or fail; the finding's sub-check; its file, relative to the
// snapshot, and line, "-" for a finding with no file; a Go-quoted regular
// expression the message matches). Blank lines and lines starting with #
// are comments. It returns the findings, for further checks.
func RunWant(t *testing.T, dir string, a *analysis.Analyzer) []finding.Finding {
	t.Helper()
	want := readWant(t, dir+".want")
	fs, na, err := Run(t, dir, a)
	if err != nil {
		t.Fatalf("%s over %s: %v", a.Name, dir, err)
	}
	if na != "" {
		t.Fatalf("%s over %s did not apply: %s", a.Name, dir, na)
	}
	used := make([]bool, len(want))
	for _, f := range fs {
		i := match(want, used, f)
		if i >= 0 {
			used[i] = true
			continue
		}
		if f.Severity != finding.Pass {
			t.Errorf("%s over %s: unexpected finding %s %s/%s %s:%d: %s", a.Name, dir, f.Severity, f.Rule, f.Check, f.File, f.Line, f.Message)
		}
	}
	for i, e := range want {
		if !used[i] {
			t.Errorf("%s.want:%d: no %s finding of %s at %s:%d matching %q", dir, e.line, e.severity, a.Name, e.file, e.at, e.msg)
		}
	}
	return fs
}

// match returns the first unused expectation f meets, or -1.
func match(want []expectation, used []bool, f finding.Finding) int {
	for i, e := range want {
		if used[i] || e.severity != f.Severity || e.file != f.File || (e.check != "" && e.check != f.Check) ||
			(e.at >= 0 && e.at != f.Line) || !e.msg.MatchString(f.Message) {
			continue
		}
		return i
	}
	return -1
}

// readWant reads a .want file; a line it cannot read fails the test naming
// the file and the line.
func readWant(t *testing.T, file string) []expectation {
	t.Helper()
	fsys, err := snapfs.Open(filepath.Dir(file)) // testdata, read as every file is: confined
	if err != nil {
		t.Fatalf("analysistest: %v", err)
	}
	b, err := fsys.ReadFile(filepath.Base(file), snapfs.LimitText)
	if err != nil {
		t.Fatalf("analysistest: %v", err)
	}
	var out []expectation
	for i, text := range strings.Split(string(b), "\n") {
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		e, err := parseWant(text)
		if err != nil {
			t.Fatalf("%s:%d: %v", file, i+1, err)
		}
		e.line = i + 1
		out = append(out, e)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no expectation: a case that wants nothing says so with a pass line", file)
	}
	return out
}

// parseWant parses one expectation: SEVERITY[/CHECK] FILE[:LINE] "REGEXP".
func parseWant(text string) (expectation, error) {
	e := expectation{at: -1}
	head, rest, _ := strings.Cut(text, " ")
	sev, check, _ := strings.Cut(head, "/")
	if err := e.severity.UnmarshalText([]byte(sev)); err != nil {
		return e, fmt.Errorf("severity %q: want pass, warn or fail", sev)
	}
	e.check = check
	place, quoted, ok := strings.Cut(strings.TrimSpace(rest), " ")
	if !ok {
		return e, fmt.Errorf("want SEVERITY[/CHECK] FILE[:LINE] \"REGEXP\", found %q", text)
	}
	if place != "-" {
		e.file = place
		if f, l, ok := strings.Cut(place, ":"); ok {
			n, err := strconv.Atoi(l)
			if err != nil || n < 0 {
				return e, fmt.Errorf("line %q of %q: want a number", l, place)
			}
			e.file, e.at = f, n
		}
	}
	pattern, err := strconv.Unquote(strings.TrimSpace(quoted))
	if err != nil {
		return e, fmt.Errorf("message pattern %s: want a Go-quoted string", quoted)
	}
	if e.msg, err = regexp.Compile(pattern); err != nil {
		return e, fmt.Errorf("message pattern: %v", err)
	}
	return e, nil
}
