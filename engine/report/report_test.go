package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
)

var sample = []finding.Finding{
	{Rule: "plan.unsourced", ID: "F11", Severity: finding.Fail, File: "PLAN.md", Line: 578,
		Quote: "3,194.23 ms", Raw: "3,194.19", Source: "q2_0_moce085_1024: prefill_ms", Message: "no run produced 3,194.23"},
	{Rule: "scratch", ID: "F24", Severity: finding.Warn, File: "results/x.json", Message: "cap check only logs"},
	{Rule: "parity", ID: "F41", Severity: finding.Pass, Message: "identical, 100%, a,b:c"},
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

func TestJSONShape(t *testing.T) {
	var buf bytes.Buffer
	if err := New("fixtures/m5-v3", []string{"plan.unsourced"}, sample).Write(&buf, "json"); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("json output does not parse: %v\n%s", err, buf.String())
	}
	for _, k := range []string{"verdict", "root", "findings", "summary"} {
		if _, ok := got[k]; !ok {
			t.Errorf("json output lacks %q", k)
		}
	}
	f := got["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"rule", "id", "severity", "file", "line", "quote", "raw", "source", "message"} {
		if _, ok := f[k]; !ok {
			t.Errorf("json finding lacks %q", k)
		}
	}
	if f["severity"] != "fail" || f["line"] != float64(578) {
		t.Errorf("json finding severity, line = %v, %v; want fail, 578", f["severity"], f["line"])
	}
}

func TestGitHub(t *testing.T) {
	var buf bytes.Buffer
	tailFinding := finding.Finding{Rule: "summary", ID: "F01", Severity: finding.Fail,
		File: "results/r.json: runs[3].output_tail", Line: 12, Message: "decode_tok_s differs"}
	if err := New("fixtures/m5-v3", nil, append(sample, tailFinding)).Write(&buf, "github"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	want := "::error file=fixtures/m5-v3/PLAN.md,line=578,title=plan.unsourced F11::no run produced 3,194.23 (quote: 3,194.23 ms) (raw: 3,194.19)\n"
	if !strings.Contains(out, want) {
		t.Errorf("github output = %q; want a line %q", out, want)
	}
	if !strings.Contains(out, "::warning file=fixtures/m5-v3/results/x.json,title=scratch F24::") {
		t.Errorf("github output = %q; want a warning annotation for F24", out)
	}
	if want := "::error file=fixtures/m5-v3/results/r.json,title=summary F01::runs[3].output_tail line 12: decode_tok_s differs\n"; !strings.Contains(out, want) {
		t.Errorf("github output = %q; want a line %q (a tail line is not a file line)", out, want)
	}
	if strings.Contains(out, "F41") {
		t.Errorf("github output annotates a pass finding: %q", out)
	}
}

func TestEscapes(t *testing.T) {
	for _, tt := range []struct {
		f        func(string) string
		in, want string
	}{
		{ghEscapeData, "50% a\nb", "50%25 a%0Ab"},
		{ghEscapeProperty, "a,b:c", "a%2Cb%3Ac"},
		{mdCell, "a|b\nc", `a\|b<br>c`},
	} {
		if got := tt.f(tt.in); got != tt.want {
			t.Errorf("escape(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestTextAndMarkdown(t *testing.T) {
	r := New("fixtures/m5-v3", []string{"plan.unsourced"}, sample)
	for _, format := range []string{"text", "markdown"} {
		var buf bytes.Buffer
		if err := r.Write(&buf, format); err != nil {
			t.Fatalf("Write(%q) = %v", format, err)
		}
		out := buf.String()
		// Fails come first, so a reader sees them without scrolling.
		if i, j := strings.Index(out, "F11"), strings.Index(out, "F41"); i < 0 || j < 0 || i > j {
			t.Errorf("Write(%q): F11 at %d, F41 at %d; want the fail before the pass\n%s", format, i, j, out)
		}
		if !strings.Contains(out, VerdictFalsifier) {
			t.Errorf("Write(%q) lacks the verdict:\n%s", format, out)
		}
	}
	if err := r.Write(&bytes.Buffer{}, "yaml"); err == nil {
		t.Errorf("Write(yaml) = nil; want an error")
	}
}
