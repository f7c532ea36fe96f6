package report

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
)

func TestGitHub(t *testing.T) {
	tailFinding := finding.Finding{Rule: "summary", ID: "F01", Severity: finding.Fail,
		File: "results/r.json: runs[3].output_tail", Line: 12, Message: "decode_tok_s differs"}
	r := New("fixtures/m5-v3", nil, append(sample, tailFinding))
	for _, tt := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{
			"::error file=fixtures/m5-v3/PLAN.md,line=578,title=plan.unsourced F11::no run produced 3,194.23 (quote: 3,194.23 ms) (raw: 3,194.19)\n",
			"::warning file=fixtures/m5-v3/results/x.json,title=scratch F24::",
			// a tail line is not a file line
			"::error file=fixtures/m5-v3/results/r.json,title=summary F01::runs[3].output_tail line 12: decode_tok_s differs\n",
		}},
		{"snap/v3", []string{"::error file=snap/v3/PLAN.md,line=578,"}},
		{".", []string{"::error file=PLAN.md,line=578,"}},
	} {
		out := write(t, r, "github", Options{PathPrefix: tt.prefix})
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("github output with prefix %q = %q; want a line %q", tt.prefix, out, w)
			}
		}
		if strings.Contains(out, "F41") {
			t.Errorf("github output annotates a pass finding: %q", out)
		}
	}
}

// TestGitHubEscapesControls: text from a snapshot reaches the Actions log
// with no raw escape sequence, bidirectional override or line break.
func TestGitHubEscapesControls(t *testing.T) {
	f := finding.Finding{Rule: "plan.unsourced", Severity: finding.Fail, File: "PLAN.md", Line: 3,
		Quote: "x\x1b[2Jy\u202eevil", Message: "m\nverdict: PASS"}
	var b strings.Builder
	r := New("root", []string{"plan.unsourced"}, []finding.Finding{f})
	if err := r.Write(&b, "github"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"\x1b", "\u202e", "\nverdict: PASS"} {
		if strings.Contains(out, bad) {
			t.Errorf("github output holds %q raw:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, `\x1b[2Jy\u202eevil`) {
		t.Errorf("github output does not show the escaped quote:\n%s", out)
	}
}
