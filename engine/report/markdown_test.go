package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/finding"
)

// TestMarkdownLimit: a Markdown report over its limit says so at the top,
// drops the passes before anything else, and fits the limit; under it the
// report is whole and says nothing.
func TestMarkdownLimit(t *testing.T) {
	fs := []finding.Finding{{Rule: "plan.unsourced", ID: "F11", Severity: finding.Fail, File: "PLAN.md", Line: 578,
		Quote: "3,194.23 ms", Raw: "3,194.19", Message: "no run produced 3,194.23"}}
	for i := range 1000 {
		fs = append(fs, finding.Finding{Rule: "parity", Severity: finding.Pass, File: "p.log", Line: i + 1,
			Message: fmt.Sprintf("parity holds for configuration %d, identical across repeats (ä)", i)})
	}
	r := New("snap", []string{"plan.unsourced", "parity"}, fs)
	whole := write(t, r, "markdown", Options{Verbose: true, MarkdownLimit: -1})
	for _, tt := range []struct {
		limit    int
		bytes    bool
		cut      bool
		hasEvery bool // the list of every finding is kept (its fail row)
	}{
		{-1, false, false, true},
		{utf8.RuneCountInString(whole), false, false, true},
		{utf8.RuneCountInString(whole) - 1, false, true, true},
		{len(whole) - 1, true, true, true},
		{2000, false, true, true},
	} {
		out := write(t, r, "markdown", Options{Verbose: true, MarkdownLimit: tt.limit, MarkdownLimitBytes: tt.bytes})
		size := utf8.RuneCountInString(out)
		if tt.bytes {
			size = len(out)
		}
		if tt.limit > 0 && size > tt.limit {
			t.Errorf("markdown(limit %d, bytes %v) = %d long; want at most %d", tt.limit, tt.bytes, size, tt.limit)
		}
		said := strings.Contains(out, "This report is cut to fit")
		if said != tt.cut {
			t.Errorf("markdown(limit %d, bytes %v) says it is cut: %v; want %v", tt.limit, tt.bytes, said, tt.cut)
		}
		if tt.cut {
			if strings.Contains(out, "parity holds for configuration") {
				t.Errorf("markdown(limit %d) still lists pass findings", tt.limit)
			}
			if i, j := strings.Index(out, "This report is cut"), strings.Index(out, "## Unsourced"); i < 0 || j < i {
				t.Errorf("markdown(limit %d): the note is not above the report", tt.limit)
			}
		}
		if got := strings.Contains(out, "| fail | `plan.unsourced` |"); got != tt.hasEvery {
			t.Errorf("markdown(limit %d) lists every finding: %v; want %v", tt.limit, got, tt.hasEvery)
		}
		if !strings.Contains(out, "| PLAN.md:578 | 3,194.23 ms |") {
			t.Errorf("markdown(limit %d) lost the unsourced table", tt.limit)
		}
	}
	// A limit below what the report needs with everything dropped: cut at
	// a line, saying so at the end.
	out := write(t, r, "markdown", Options{MarkdownLimit: 300})
	if n := utf8.RuneCountInString(out); n > 300 || !strings.HasSuffix(out, mdTruncMarker) {
		t.Errorf("markdown(limit 300) = %d long, ends %q; want at most 300 ending with the marker", n, out[max(0, len(out)-60):])
	}
}
