package analysistest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
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
	at       int    // the finding's line; -1 for any
	id       string // the audit finding id; "" for any
	msg      *regexp.Regexp
}

// A wantFile is a parsed .want file: the analyzer it names, if any, and
// its expectations.
type wantFile struct {
	rule       string         // from a "rule NAME" line; "" when it names none
	notApplied *regexp.Regexp // from a "not-applied REGEXP" line; nil when the case applies
	err        *regexp.Regexp // from an "error REGEXP" line; nil when the case runs
	want       []expectation
}

// RunWant runs a over the snapshot in dir (a directory under testdata)
// and checks its findings against the expectations written beside it, in
// dir+".want", as golang.org/x/tools/go/analysis/analysistest checks
// diagnostics against // want comments: every warn and fail finding must
// match an expectation, and every expectation must match a finding (a pass
// finding is checked only where an expectation names one). A line of the
// .want file is
//
//	SEVERITY[/CHECK] FILE[:LINE] [id=ID] "REGEXP"
//
// (pass, warn or fail; the finding's sub-check; its file, relative to the
// snapshot, and line, "-" for a finding with no file; the audit finding id
// it carries, F01-F42, when given; a Go-quoted regular expression the
// message matches), or
//
//	rule NAME
//
// (the analyzer the case is for, which RunCases chooses by and RunWant
// holds a to), or, alone beside a rule line,
//
//	not-applied "REGEXP"
//	error "REGEXP"
//
// (a does not apply, for a reason the regular expression matches, and
// reports nothing; or a stops with an error the expression matches, input
// it cannot read: the error names the file and place). Blank lines and
// lines starting with # are comments. It returns the findings, for further
// checks.
func RunWant(t *testing.T, dir string, a *analysis.Analyzer) []finding.Finding {
	t.Helper()
	wf := readWant(t, dir+".want")
	if wf.rule != "" && wf.rule != a.Name {
		t.Fatalf("%s.want is for rule %s; RunWant was given %s", dir, wf.rule, a.Name)
	}
	want := wf.want
	fs, na, err := Run(t, dir, a)
	if wf.err != nil {
		if err == nil || !wf.err.MatchString(err.Error()) {
			t.Errorf("%s over %s: error %v; want one matching %q", a.Name, dir, err, wf.err)
		}
		return fs
	}
	if err != nil {
		t.Fatalf("%s over %s: %v", a.Name, dir, err)
	}
	if wf.notApplied != nil {
		if na == "" || !wf.notApplied.MatchString(na) || len(fs) > 0 {
			t.Errorf("%s over %s: %d findings, not applied %q; want none and a reason matching %q", a.Name, dir, len(fs), na, wf.notApplied)
		}
		return fs
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
			t.Errorf("%s over %s: unexpected finding %s %s/%s %s:%d id=%s: %s", a.Name, dir, f.Severity, f.Rule, f.Check, f.File, f.Line, f.ID, f.Message)
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
			(e.at >= 0 && e.at != f.Line) || (e.id != "" && e.id != f.ID) || !e.msg.MatchString(f.Message) {
			continue
		}
		return i
	}
	return -1
}

// readWant reads a .want file; a line it cannot read fails the test naming
// the file and the line.
func readWant(t testing.TB, file string) wantFile {
	t.Helper()
	fsys, err := snapfs.Open(filepath.Dir(file)) // testdata, read as every file is: confined
	if err != nil {
		t.Fatalf("analysistest: %v", err)
	}
	b, err := fsys.ReadFile(filepath.Base(file), snapfs.LimitText)
	if err != nil {
		t.Fatalf("analysistest: %v", err)
	}
	var wf wantFile
	for i, text := range strings.Split(string(b), "\n") {
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if name, ok := strings.CutPrefix(text, "rule "); ok {
			if wf.rule != "" || strings.ContainsAny(strings.TrimSpace(name), " \t") {
				t.Fatalf("%s:%d: %q: want one line \"rule NAME\" at the most", file, i+1, text)
			}
			wf.rule = strings.TrimSpace(name)
			continue
		}
		if kw, quoted, ok := strings.Cut(text, " "); ok && (kw == "not-applied" || kw == "error") {
			re, err := parsePattern(quoted)
			if err != nil || wf.notApplied != nil || wf.err != nil {
				t.Fatalf("%s:%d: %q: want one line not-applied \"REGEXP\" or error \"REGEXP\" at the most (%v)", file, i+1, text, err)
			}
			if kw == "error" {
				wf.err = re
			} else {
				wf.notApplied = re
			}
			continue
		}
		e, err := parseWant(text)
		if err != nil {
			t.Fatalf("%s:%d: %v", file, i+1, err)
		}
		e.line = i + 1
		wf.want = append(wf.want, e)
	}
	switch {
	case (wf.notApplied != nil || wf.err != nil) && len(wf.want) > 0:
		t.Fatalf("%s: a not-applied or error case wants no finding; found %d expectations", file, len(wf.want))
	case wf.notApplied == nil && wf.err == nil && len(wf.want) == 0:
		t.Fatalf("%s: no expectation: a case that wants nothing says so with a pass line", file)
	}
	return wf
}

// parseWant parses one expectation: SEVERITY[/CHECK] FILE[:LINE] [id=ID] "REGEXP".
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
		return e, fmt.Errorf("want SEVERITY[/CHECK] FILE[:LINE] [id=ID] \"REGEXP\", found %q", text)
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
	quoted = strings.TrimSpace(quoted)
	if id, ok := strings.CutPrefix(quoted, "id="); ok {
		e.id, quoted, _ = strings.Cut(id, " ")
		if e.id == "" {
			return e, fmt.Errorf("id= with no id in %q", text)
		}
	}
	var err error
	e.msg, err = parsePattern(quoted)
	return e, err
}

// parsePattern compiles a Go-quoted regular expression.
func parsePattern(quoted string) (*regexp.Regexp, error) {
	pattern, err := strconv.Unquote(strings.TrimSpace(quoted))
	if err != nil {
		return nil, fmt.Errorf("message pattern %s: want a Go-quoted string", quoted)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("message pattern: %v", err)
	}
	return re, nil
}

// RunCases runs every case under dir with RunWant, one subtest each, so
// that no case is left unrun: a case is a directory CASE beside its
// CASE.want. With one analyzer every case runs it; with more, each case
// names its own in a "rule NAME" line. A .want without its directory, a
// directory without its .want, a rule not among analyzers, or a dir with
// no case fails the test.
func RunCases(t *testing.T, dir string, analyzers ...*analysis.Analyzer) {
	t.Helper()
	fsys, err := snapfs.Open(dir) // testdata, read as every file is: confined
	if err != nil {
		t.Fatalf("analysistest: %v", err)
	}
	wants, err := fsys.Glob("*.want")
	if err != nil {
		t.Fatalf("analysistest: %v", err)
	}
	if len(wants) == 0 {
		t.Fatalf("%s: no CASE.want file", dir)
	}
	all, err := fsys.Glob("*")
	if err != nil {
		t.Fatalf("analysistest: %v", err)
	}
	for _, name := range all {
		if st, err := fsys.Stat(name); err == nil && st.IsDir() && !slices.Contains(wants, name+".want") {
			t.Errorf("%s: case directory %s has no %s.want beside it", dir, name, name)
		}
	}
	for _, w := range wants {
		c := strings.TrimSuffix(w, ".want")
		if st, err := fsys.Stat(c); err != nil || !st.IsDir() {
			t.Fatalf("%s: no case directory %s beside %s", dir, c, w)
		}
		a, err := caseAnalyzer(readWant(t, filepath.Join(dir, w)).rule, analyzers)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Join(dir, w), err)
		}
		t.Run(c, func(t *testing.T) { RunWant(t, filepath.Join(dir, c), a) })
	}
}

// caseAnalyzer returns the analyzer a case is for: the one named by its
// rule line, or the only one given.
func caseAnalyzer(rule string, analyzers []*analysis.Analyzer) (*analysis.Analyzer, error) {
	var names []string
	for _, a := range analyzers {
		if a.Name == rule || rule == "" && len(analyzers) == 1 {
			return a, nil
		}
		names = append(names, a.Name)
	}
	if rule == "" {
		return nil, fmt.Errorf("no \"rule NAME\" line to choose among %s", strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("rule %s is none of %s", rule, strings.Join(names, ", "))
}
