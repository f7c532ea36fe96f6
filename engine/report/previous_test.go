package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/finding"
)

func TestCompare(t *testing.T) {
	fail := func(rule, id, file string, line int, quote string) finding.Finding {
		return finding.Finding{Rule: rule, ID: id, Severity: finding.Fail, File: file, Line: line, Quote: quote, Message: "m " + quote}
	}
	pass := func(f finding.Finding) finding.Finding { f.Severity = finding.Pass; return f }
	moved := fail("plan.unsourced", "F11", "PLAN.md", 578, "3,194.23 ms")
	fixedByValue := fail("plan.unsourced", "F12", "PLAN.md", 578, "5,793.62 ms")
	gone := fail("code", "F19", "run.py", 680, "/ 65.0")
	stillWarn := finding.Finding{Rule: "tf", ID: "F36", Severity: finding.Warn, File: "data/tf.txt", Line: 7, Quote: "<think>"}
	regressed := fail("cache", "F26", "probe.json", 17, "1.00 → 1.00")
	prev := []finding.Finding{moved, fixedByValue, gone, stillWarn, pass(regressed)}

	movedNow := moved
	movedNow.Line = 601 // a line inserted above: the same finding
	fixedNow := pass(fixedByValue)
	fixedNow.Quote = "5,793.65 ms" // the plan now quotes the raw value, same line
	brandNew := fail("compare.unlike", "F17", "PLAN.md", 284, "2.67×")
	cur := []finding.Finding{movedNow, fixedNow, stillWarn, regressed, brandNew}

	r := New("r", nil, cur)
	r.Compare("old.json", prev)
	c := r.Previous
	if c == nil {
		t.Fatal("Compare(old.json): Previous = nil; want the comparison")
	}
	if c.Fixed != 2 || c.Still != 2 || c.New != 2 {
		t.Errorf("Compare(old.json) = %d fixed, %d still, %d new; want 2, 2, 2", c.Fixed, c.Still, c.New)
	}
	want := []string{StatusStill, "", StatusStill, StatusNew, StatusNew}
	for i := range cur {
		if got := c.mark(i); got != want[i] {
			t.Errorf("mark(%s %s) = %q; want %q", cur[i].ID, cur[i].Quote, got, want[i])
		}
	}
	var fixed []string
	for _, m := range c.Findings {
		if m.Status == StatusFixed {
			fixed = append(fixed, m.ID)
		}
	}
	if diff := cmp.Diff([]string{"F12", "F19"}, fixed); diff != "" {
		t.Errorf("Compare(old.json) fixed ids mismatch (-want +got):\n%s", diff)
	}
	// the verdict does not change
	if r.Verdict != VerdictFalsifier {
		t.Errorf("Verdict after Compare = %q; want %q", r.Verdict, VerdictFalsifier)
	}

	for _, tt := range []struct {
		format string
		wants  []string
	}{
		{"text", []string{
			"\nagainst old.json: 2 fixed, 2 still, 2 new\n",
			"[still] PLAN.md:601",
			"[new] F17 compare.unlike",
			"fixed since old.json: 2\n  F12 plan.unsourced PLAN.md:578 5,793.62 ms\n  F19 code run.py:680 / 65.0\n",
		}},
		{"json", []string{`"previous": {`, `"status": "fixed"`}},
	} {
		out := write(t, r, tt.format, Options{})
		for _, want := range tt.wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s report against old.json lacks %q:\n%s", tt.format, want, out)
			}
		}
	}
}

func TestParsePrevious(t *testing.T) {
	var buf bytes.Buffer
	if err := New("r", []string{"plan.unsourced"}, sample).Write(&buf, "json"); err != nil {
		t.Fatalf("Write(json): %v", err)
	}
	fs, err := ParsePrevious("prev.json", buf.Bytes())
	if err != nil {
		t.Fatalf("ParsePrevious(a JSON report): %v", err)
	}
	if diff := cmp.Diff(sample, fs); diff != "" {
		t.Errorf("ParsePrevious(a JSON report) mismatch (-want +got): a JSON report reads back to its findings\n%s", diff)
	}

	for _, tt := range []struct{ name, in, want string }{
		{"syntax", "{\n  \"verdict\": \"PASS\",\n  \"findings\": [}\n", "prev.json:3:16: not a JSON report"},
		{"type", `{"verdict": "PASS", "findings": {}}`, "prev.json:1:"},
		{"no findings", `{"verdict": "PASS"}`, `prev.json: not an audit report`},
		{"other json", `[1, 2]`, "prev.json:1:1: not a JSON report"},
		{"bad severity", `{"verdict": "PASS", "findings": [{"rule": "x", "severity": "fail"}, {"rule": "x", "severity": "maybe"}]}`, `prev.json: findings[1]: finding: unknown severity "maybe"`},
		{"no rule", `{"verdict": "PASS", "findings": [{"severity": "fail"}]}`, `prev.json: findings[0]: a finding needs a rule`},
		{"empty", ``, "prev.json"},
	} {
		_, err := ParsePrevious("prev.json", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParsePrevious(%s) = %v; want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestCompareGone: passes of the previous report that match no finding now
// (a rule's settings narrowed, a record dropped) are counted per rule and
// named on the comparison line; a pass that still passes, or now fails, is
// not gone; a pass whose message changed is counted as reworded.
func TestCompareGone(t *testing.T) {
	pass := func(rule, file string, line int, quote string) finding.Finding {
		return finding.Finding{Rule: rule, Severity: finding.Pass, File: file, Line: line, Quote: quote, Message: "m " + quote}
	}
	kept := pass("parity", "results/default_1.log", 3, "2.16e-07")
	failsNow := pass("plan.unsourced", "PLAN.md", 578, "3,194.19 ms")
	prev := []finding.Finding{
		kept, failsNow,
		pass("kld", "PLAN.md", 600, "0.064461"), pass("kld", "PLAN.md", 601, "0.327365"),
		pass("summary", "results/x.json", 9, "3.40"),
	}
	failsNow.Severity = finding.Fail
	loose := kept
	loose.Message = "max err 2.16e-07 ≤ 1e+09" // the tolerance raised
	tests := []struct {
		name string
		cur  []finding.Finding
		gone []RuleCount
		line string // in the text report, "" for no gone part
	}{
		{"all kept", prev, nil, ""},
		{"kld and summary gone", []finding.Finding{kept, failsNow}, []RuleCount{{"kld", 2}, {"summary", 1}},
			"; 3 checks gone that passed there (kld 2, summary 1)"},
		{"one kld gone", append([]finding.Finding{kept, failsNow}, prev[2], prev[4]), []RuleCount{{"kld", 1}},
			"; 1 checks gone that passed there (kld 1)"},
		{"parity reworded", append([]finding.Finding{loose, failsNow}, prev[2:]...), nil,
			"; 1 passes worded otherwise (parity 1)"},
	}
	for _, tt := range tests {
		r := New("r", nil, tt.cur)
		r.Compare("old.json", prev)
		if diff := cmp.Diff(tt.gone, r.Previous.GoneRules); diff != "" {
			t.Errorf("%s: Compare(old.json).GoneRules mismatch (-want +got):\n%s", tt.name, diff)
		}
		total := 0
		for _, g := range tt.gone {
			total += g.N
		}
		if reworded := tt.name == "parity reworded"; reworded != (r.Previous.Reworded == 1) || reworded != (len(r.Previous.RewordedRules) == 1) {
			t.Errorf("%s: Compare(old.json) reworded %d %v; want 1 parity pass only for the reworded case", tt.name, r.Previous.Reworded, r.Previous.RewordedRules)
		}
		if r.Previous.Gone != total {
			t.Errorf("%s: Compare(old.json).Gone = %d; want %d", tt.name, r.Previous.Gone, total)
		}
		out := write(t, r, "text", Options{})
		if has := strings.Contains(out, "checks gone"); tt.line == "" && has || tt.line != "" && !strings.Contains(out, tt.line) {
			t.Errorf("%s: text report against old.json = %q; want the gone part %q", tt.name, out, tt.line)
		}
		md := write(t, r, "markdown", Options{})
		if tt.line != "" && !strings.Contains(md, tt.line+".") {
			t.Errorf("%s: Markdown report against old.json lacks %q:\n%s", tt.name, tt.line+".", md)
		}
	}
}
