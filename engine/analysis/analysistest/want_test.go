package analysistest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"

	"github.com/strataspec/strataspec/engine/finding"
)

func TestParseWant(t *testing.T) {
	for _, tt := range []struct {
		text  string
		sev   finding.Severity
		check string
		file  string
		at    int
		id    string
		ok    bool
	}{
		{`warn/unread runs/a.log:1 "^run a"`, finding.Warn, "unread", "runs/a.log", 1, "", true},
		{`fail PLAN.md "x"`, finding.Fail, "", "PLAN.md", -1, "", true},
		{`pass/runs - "0 of 1"`, finding.Pass, "runs", "", -1, "", true},
		{`fail/divisor s.py:17 id=F19 "literal"`, finding.Fail, "divisor", "s.py", 17, "F19", true},
		{`fail - id=F19 "a b"`, finding.Fail, "", "", -1, "F19", true},
		{`fail - id= "x"`, 0, "", "", 0, "", false},
		{`fail - id=F19`, 0, "", "", 0, "", false},
		{`bad PLAN.md "x"`, 0, "", "", 0, "", false},
		{`warn PLAN.md:x "y"`, 0, "", "", 0, "", false},
		{`warn PLAN.md unquoted`, 0, "", "", 0, "", false},
		{`warn PLAN.md "("`, 0, "", "", 0, "", false},
		{`warn`, 0, "", "", 0, "", false},
	} {
		e, err := parseWant(tt.text)
		if (err == nil) != tt.ok {
			t.Errorf("parseWant(%q) error = %v; want ok %v", tt.text, err, tt.ok)
			continue
		}
		if tt.ok && (e.severity != tt.sev || e.check != tt.check || e.file != tt.file || e.at != tt.at || e.id != tt.id) {
			t.Errorf("parseWant(%q) = %s/%s %s:%d id=%s; want %s/%s %s:%d id=%s", tt.text, e.severity, e.check, e.file, e.at, e.id, tt.sev, tt.check, tt.file, tt.at, tt.id)
		}
	}
}

func TestMatchID(t *testing.T) {
	e, err := parseWant(`fail/divisor s.py id=F19 "^literal"`)
	if err != nil {
		t.Fatalf("parseWant: %v", err)
	}
	for _, tt := range []struct {
		id   string
		want int
	}{{"F19", 0}, {"F20", -1}, {"", -1}} {
		f := finding.Finding{Severity: finding.Fail, Check: "divisor", File: "s.py", ID: tt.id, Message: "literal divisor 65.0"}
		if got := match([]expectation{e}, []bool{false}, f); got != tt.want {
			t.Errorf("match(id=F19, finding id %q) = %d; want %d", tt.id, got, tt.want)
		}
	}
}

func TestCaseAnalyzer(t *testing.T) {
	a, b := &analysis.Analyzer{Name: "x.a"}, &analysis.Analyzer{Name: "x.b"}
	for _, tt := range []struct {
		rule string
		as   []*analysis.Analyzer
		want *analysis.Analyzer // nil: an error
	}{
		{"", []*analysis.Analyzer{a}, a},
		{"x.a", []*analysis.Analyzer{a}, a},
		{"x.b", []*analysis.Analyzer{a, b}, b},
		{"", []*analysis.Analyzer{a, b}, nil},
		{"x.c", []*analysis.Analyzer{a, b}, nil},
		{"x.b", []*analysis.Analyzer{a}, nil},
	} {
		got, err := caseAnalyzer(tt.rule, tt.as)
		if got != tt.want || (err == nil) != (tt.want != nil) {
			t.Errorf("caseAnalyzer(%q, %d analyzers) = %v, %v; want %v", tt.rule, len(tt.as), got, err, tt.want)
		}
	}
}

// recorder is a testing.TB whose Fatalf records the failure and stops the
// caller, so a test can check that readWant fails.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	panic(r)
}

// readWantText writes text as a .want file and reads it; failed is the
// message readWant failed with, "" when it did not.
func readWantText(t *testing.T, text string) (wf wantFile, failed string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.want")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatalf("writing %s: %v", p, err)
	}
	r := &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil {
			if v != r {
				panic(v)
			}
			failed = r.failed
		}
	}()
	return readWant(r, p), ""
}

func TestReadWant(t *testing.T) {
	wf, failed := readWantText(t, "# a case\nrule runs.parse\npass - \"x\"\n")
	if failed != "" || wf.rule != "runs.parse" || len(wf.want) != 1 || wf.want[0].line != 3 {
		t.Errorf("readWant(rule runs.parse, one pass line) = rule %q, %d expectations, failed %q; want runs.parse, 1 at line 3", wf.rule, len(wf.want), failed)
	}
	wf, failed = readWantText(t, "rule runs.exit\nnot-applied \"no exit status\"\n")
	if failed != "" || wf.notApplied == nil || !wf.notApplied.MatchString("no exit status recorded") || len(wf.want) != 0 {
		t.Errorf("readWant(not-applied) = %v, %d expectations, failed %q; want a reason pattern, none", wf.notApplied, len(wf.want), failed)
	}
	wf, failed = readWantText(t, "error `^strataspec\\.json:\\d+: `\n")
	if failed != "" || wf.err == nil || !wf.err.MatchString("strataspec.json:3: rules.x: unknown key") || wf.notApplied != nil {
		t.Errorf("readWant(error) = %v, failed %q; want an error pattern", wf.err, failed)
	}
	for _, text := range []string{
		"error \"x\"\nnot-applied \"y\"\n",       // an error and a reason
		"error \"x\"\npass - \"y\"\n",            // an error, yet a finding wanted
		"",                                       // no expectation
		"# only a comment\n",                     // no expectation
		"rule a\nrule b\npass - \"x\"\n",         // two rule lines
		"not-applied \"x\"\npass - \"y\"\n",      // not applied, yet a finding wanted
		"not-applied \"x\"\nnot-applied \"y\"\n", // two reasons
		"not-applied x\n",                        // unquoted
		"pass - \"(\"\n",                         // bad pattern
	} {
		if _, failed := readWantText(t, text); failed == "" {
			t.Errorf("readWant(%q) did not fail; want it to", text)
		}
	}
}
