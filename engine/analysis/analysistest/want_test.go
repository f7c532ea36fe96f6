package analysistest

import (
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

func TestReadWantRule(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.want")
	if err := os.WriteFile(p, []byte("# a case\nrule runs.parse\npass - \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wf := readWant(t, p)
	if wf.rule != "runs.parse" || len(wf.want) != 1 || wf.want[0].line != 3 {
		t.Errorf("readWant(rule runs.parse, one pass line) = rule %q, %d expectations; want runs.parse, 1 at line 3", wf.rule, len(wf.want))
	}
}
