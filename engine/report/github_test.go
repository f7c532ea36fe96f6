package report

import (
	"fmt"
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

// TestGitHubOrderAndCap: GitHub shows 10 errors and 10 warnings per step,
// so the annotations put the unsourced numbers first, then plan.range,
// then the other fails, print at most 10 of each kind, and count the rest
// in one notice.
func TestGitHubOrderAndCap(t *testing.T) {
	var fs []finding.Finding
	for i := range 15 { // rule order puts these first, as the audit sorts findings
		fs = append(fs, finding.Finding{Rule: "code", Severity: finding.Fail, File: "a.py", Line: i + 1, Message: fmt.Sprintf("code %d", i)})
	}
	fs = append(fs, finding.Finding{Rule: "plan.range", Severity: finding.Fail, File: "PLAN.md", Line: 3, Message: "range"})
	for i := range 3 {
		fs = append(fs, finding.Finding{Rule: "plan.unsourced", Severity: finding.Fail, File: "PLAN.md", Line: 10 + i, Message: fmt.Sprintf("unsourced %d", i)})
	}
	for i := range 12 {
		fs = append(fs, finding.Finding{Rule: "tf", Severity: finding.Warn, File: "t.txt", Line: i + 1, Message: fmt.Sprintf("warn %d", i)})
	}
	r := New("snap", nil, fs)
	out := write(t, r, "github", Options{PathPrefix: "."})
	var errs, warns, notices []string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "::error "):
			errs = append(errs, l)
		case strings.HasPrefix(l, "::warning "):
			warns = append(warns, l)
		case strings.HasPrefix(l, "::notice "):
			notices = append(notices, l)
		}
	}
	if len(errs) != GitHubAnnotationCap || len(warns) != GitHubAnnotationCap || len(notices) != 1 {
		t.Fatalf("github output has %d errors, %d warnings, %d notices; want %d, %d, 1:\n%s", len(errs), len(warns), len(notices), GitHubAnnotationCap, GitHubAnnotationCap, out)
	}
	for i, want := range []string{"title=plan.unsourced::unsourced 0", "title=plan.unsourced::unsourced 1", "title=plan.unsourced::unsourced 2", "title=plan.range::range", "title=code::code 0"} {
		if !strings.Contains(errs[i], want) {
			t.Errorf("error %d = %q; want %q", i+1, errs[i], want)
		}
	}
	if want := "9 more fail and 2 more warn findings"; !strings.Contains(notices[0], want) {
		t.Errorf("notice = %q; want it to count %q", notices[0], want)
	}
	// Under the cap, no notice.
	if out := write(t, New("snap", nil, fs[15:19]), "github", Options{}); strings.Contains(out, "::notice") {
		t.Errorf("github output under the cap has a notice:\n%s", out)
	}
}
