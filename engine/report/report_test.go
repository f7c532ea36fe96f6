package report

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/finding"
)

var sample = []finding.Finding{
	{Rule: "plan.unsourced", ID: "F11", Severity: finding.Fail, File: "PLAN.md", Line: 578,
		Quote: "3,194.23 ms", Raw: "3,194.19", Source: "q2_0_moce085_1024: prefill_ms", Message: "no run produced 3,194.23"},
	{Rule: "scratch", ID: "F24", Severity: finding.Warn, File: "results/x.json", Message: "cap check only logs"},
	{Rule: "parity", ID: "F41", Severity: finding.Pass, Message: "identical, 100%, a,b:c"},
}

// write renders a report in a format, failing the test on an error.
func write(t *testing.T, r *Report, format string, o Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteOptions(&buf, format, o); err != nil {
		t.Fatalf("WriteOptions(%q, %+v): %v", format, o, err)
	}
	return buf.String()
}

func TestNewVerdict(t *testing.T) {
	for _, tt := range []struct {
		name     string
		findings []finding.Finding
		verdict  string
		fail     int
	}{
		{"all", sample, VerdictFalsifier, 1},
		{"no fail", sample[1:], VerdictPass, 0},
		{"none", nil, VerdictPass, 0},
	} {
		r := New("fixtures/m5", []string{"x"}, tt.findings)
		if r.Verdict != tt.verdict || r.Summary.Fail != tt.fail || r.Failed() != (tt.fail > 0) {
			t.Errorf("New(%s) = %q fail=%d; want %q fail=%d", tt.name, r.Verdict, r.Summary.Fail, tt.verdict, tt.fail)
		}
	}
}

func TestSummaryIDs(t *testing.T) {
	fs := append([]finding.Finding{{Rule: "x", ID: "F24", Severity: finding.Fail}}, sample...)
	r := New("r", nil, fs)
	if got, want := strings.Join(r.Summary.FailIDs, ","), "F11,F24"; got != want {
		t.Errorf("FailIDs = %q; want %q", got, want)
	}
	if got := strings.Join(r.Summary.WarnIDs, ","); got != "" {
		t.Errorf("WarnIDs = %q; want empty (F24 also fails)", got)
	}
}

// TestSections: fails are grouped under their rule's section, sections in
// the order of their Rank, a rule the report was not told about under
// "other", last; SARIF tags a rule with its section's short name.
func TestSections(t *testing.T) {
	cache := Section{Rank: 4, Tag: "cache", Title: "page cache"}
	runs := Section{Rank: 1, Tag: "runs", Title: "comparisons and runs"}
	r := NewWithRules("r", []RuleInfo{{Name: "newrule", Section: cache, Applied: true}, {Name: "compare.rate", Section: runs, Applied: true}},
		[]finding.Finding{{Rule: "newrule", Severity: finding.Fail, Message: "m"}, {Rule: "unknown", Severity: finding.Fail, Message: "u"},
			{Rule: "compare.rate", Severity: finding.Fail, Message: "c"}})
	if got := r.rule("newrule").Section; got != cache {
		t.Errorf("rule(newrule).Section = %v; want %v (from RuleInfo)", got, cache)
	}
	if got := r.rule("unknown").Section; got != (Section{}) {
		t.Errorf("rule(unknown).Section = %v; want the zero Section", got)
	}
	out := write(t, r, "text", Options{})
	pos := indexes(t, out, "comparisons and runs: 1 fail", "page cache: 1 fail", "other: 1 fail")
	if !sort.IntsAreSorted(pos) {
		t.Errorf("sections at %v in\n%s; want runs, page cache, other in that order", pos, out)
	}
	sarif := write(t, r, "sarif", Options{})
	for _, tag := range []string{`"cache"`, `"runs"`} {
		if !strings.Contains(sarif, tag) {
			t.Errorf("SARIF report lacks the tag %s:\n%s", tag, sarif)
		}
	}
}

func TestJSONShape(t *testing.T) {
	rules := []RuleInfo{{Name: "plan.unsourced", Applied: true}, {Name: "memory", Reason: "no PLAN.md memory claims"}}
	out := write(t, NewWithRules("fixtures/m5-v3", rules, sample), "json", Options{})
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("json output does not parse: %v\n%s", err, out)
	}
	for _, k := range []string{"verdict", "root", "findings", "summary"} {
		if _, ok := got[k]; !ok {
			t.Errorf("json output lacks %q:\n%s", k, out)
		}
	}
	if _, ok := got["previous"]; ok {
		t.Errorf("json output without -previous has a previous section:\n%s", out)
	}
	f := got["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"rule", "id", "severity", "file", "line", "quote", "raw", "source", "message"} {
		if _, ok := f[k]; !ok {
			t.Errorf("json finding lacks %q: %v", k, f)
		}
	}
	if f["severity"] != "fail" || f["line"] != float64(578) {
		t.Errorf("json finding severity, line = %v, %v; want fail, 578", f["severity"], f["line"])
	}
	sum := got["summary"].(map[string]any)
	if diff := cmp.Diff([]any{"plan.unsourced", "memory"}, sum["rules"]); diff != "" {
		t.Errorf("json summary.rules mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{map[string]any{"rule": "memory", "reason": "no PLAN.md memory claims"}}, sum["not_applied"]); diff != "" {
		t.Errorf("json summary.not_applied mismatch (-want +got):\n%s", diff)
	}
}

func TestNotAppliedReason(t *testing.T) {
	r := New("r", []string{"plan.unsourced", "kld"}, sample[:1])
	if len(r.Summary.NotApplied) != 0 {
		t.Errorf("New(rules plan.unsourced, kld).Summary.NotApplied = %+v; want none: New takes every named rule as applied", r.Summary.NotApplied)
	}
	r = NewWithRules("r", []RuleInfo{{Name: "plan.unsourced", Applied: true}, {Name: "kld"}}, sample[:1])
	want := []NotApplied{{Rule: "kld", Reason: NoFindingsReason}} // a rule that gives no reason gets the default
	if diff := cmp.Diff(want, r.Summary.NotApplied); diff != "" {
		t.Errorf("NewWithRules(kld not applied, no reason).Summary.NotApplied mismatch (-want +got):\n%s", diff)
	}
}

func TestUnknownFormat(t *testing.T) {
	if err := New("r", nil, sample).Write(&bytes.Buffer{}, "yaml"); err == nil {
		t.Errorf("Write(yaml) = nil; want an error")
	}
	for _, f := range Formats() {
		if err := New("r", nil, sample).Write(&bytes.Buffer{}, f); err != nil {
			t.Errorf("Write(%q) = %v; want nil", f, err)
		}
	}
}
