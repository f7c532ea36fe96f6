package spec

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	plangate "github.com/strataspec/strataspec/engine/rules/plan"
)

// The gate reads the plan as its reader sees it (issue 21): a number no run
// produced, put into claim section §7.1 #5 of a copy of fixtures/m5 in each
// of these forms, fails the audit; a claims row whose source is declared,
// not measured, warns naming the row and fails with -strict.

// planForm is one way of putting a number into §7.1 #5.
type planForm struct {
	name   string
	line   string              // a line added to §7.1 #5, after the IQ3_S hit rates ("" for none)
	edit   func([]byte) []byte // another edit of PLAN.md (nil for none)
	row    string              // a row added to PLAN.claims ("" for none)
	claims func([]byte) []byte // an edit of PLAN.claims (nil for none)
	// declared: the row is declared, not measured: a warning naming it,
	// a fail with -strict
	declared bool
	// ungated: the form takes this quote out of the claim sections: a
	// plan.uncovered warning quoting it, a fail with -strict
	ungated string
}

const formAnchor = "- IQ3_S, 43-tok: arena + RA 52.60 + 24.72 % (77.32 % combined).\n"

func editOnce(old, new string) func([]byte) []byte {
	return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
}

var planForms = []planForm{
	// digits that are not ASCII, and character references
	{name: "fullwidth digits", line: "- fill ９.９９ GB/s."},
	{name: "one fullwidth digit", line: "- fill 9.9９ GB/s."},
	{name: "Arabic-Indic digits", line: "- fill ٩٫٩٩ GB/s."},
	{name: "math bold digits", line: "- fill 𝟗.𝟗𝟗 GB/s."},
	{name: "decimal character reference", line: "- fill &#57;.99 GB/s."},
	{name: "hex character reference", line: "- fill &#x39; GB/s."},
	// math
	{name: "math span", line: "- fill $9.99$ GB/s."},
	// numbers glued to words or marks
	{name: "glued to a colon", line: "- fill:9.99 GB/s."},
	{name: "leading decimal point", line: "- the fill takes .35 s."},
	{name: "after #", line: "- fill #9.99."},
	{name: "after a hyphen", line: "- fill x-9.99."},
	{name: "after a slash", line: "- fill GB/9.99 s."},
	{name: "Hangul filler before the digits", line: "- fill \u31649.99 GB/s."},
	// glued or unknown units, version-like, scientific
	{name: "glued unknown unit", line: "- prefill 3,194.23msec."},
	{name: "k suffix", line: "- the arena holds 2.4k slots."},
	{name: "lower-case unit", line: "- fill 9.99gb/s."},
	{name: "version-like", line: "- fill 9.99.1."},
	{name: "integer mantissa, bytes", line: "- the arena reads 65536e3 B."},
	{name: "integer mantissa, tokens", line: "- decode of 12345e6 tokens."},
	{name: "huge exponent", line: "- decode at 1e99999999999999999999 tok/s."},
	// structure
	{name: "sub-heading #1 under a skip §7.1 #1", line: "\n##### #1 — Warm runs\n\n- fill 9.99 GB/s."},
	{name: "sub-heading 1.3 under a skip §1.3", line: "\n##### 1.3 Warm runs\n\n- fill 9.99 GB/s."},
	{name: "heading in a multi-line comment", line: "\n<!--\n#### #6 — hidden\n-->\n\n- done."},
	{name: "unclosed comment", line: "\n<!--\n- fill 9.99 GB/s."},
	{name: "broken link destination", line: "- fill [see](#x, peak 9.99 GB/s)."},
	// code
	{name: "code span quoting part of a tail line", edit: editOnce("1,024 tokens in 3,194.19 ms", "1,024 tokens in 3,194.19 ms (`94.19 ms`)")},
	{name: "code span setting holding a metric", line: "- fill `fill_gb_s=9.99`."},
	{name: "code span flag no run has", line: "- fill `--fill-rate 9.99`."},
	{name: "unitless number in a fenced block", line: "\n```\nfill 999\n```"},
	// the realistic attack: a bound number edited behind a comment
	{name: "bound number edited behind a comment", edit: editOnce("1,024 tokens in 3,194.19 ms", "1,024 tokens in &#50;,&#49;&#57;&#52;.&#49;&#57; ms<!--\n  3,194.19 ms -->")},
	// labels
	{name: "setting beside route_parity figures", edit: editOnce("(K=256, MoCE=0.85) in default math", "(K=256, MoCE=0.86) in default math")},
	// claims rows declared, not measured
	{name: "row bound to its own number", line: "- fill 9.99 GB/s.", row: "§7.1 #5 | 9.99 GB/s | 9.99", declared: true},
	{name: "row bound to a const", line: "- fill 9.99 GB/s.", row: "const fill = 9.99 GB/s\n§7.1 #5 | 9.99 GB/s | $fill", declared: true},
	{name: "row with a fudge factor", edit: editOnce("1,024 tokens in 3,194.19 ms", "1,024 tokens in 3,194.23 ms"),
		row: "§7.1 #5 | 3,194.23 ms | mul(strata_q2_0_moce085_prefill_1024tok:prefill_ms, 1.0000125)", declared: true},
	// forms of our own
	{name: "zero-width space inside", line: "- fill 9.\u200b99 GB/s."},
	{name: "combining mark on a digit", line: "- fill 9.9\u03039 GB/s."},
	{name: "superscript digits", line: "- fill ⁹.⁹⁹ GB/s."},
	{name: "HTML span", line: "- fill <span>9.99 GB/s</span>."},
	{name: "number in an inline HTML comment", line: "- fill <!-- 9.99 GB/s --> measured."},
	{name: "backslash before the digit", line: "- fill \\9.99 GB/s."},
	{name: "number in a table cell", line: "\n| fill | 9.99 GB/s |\n|---|---|\n"},
	{name: "number in an ordered-list item", line: "\n1. fill 9.99 GB/s\n"},
	{name: "number in a bold label", line: "\n**9.99 GB/s** fill\n"},
}

// TestPlanForms puts each form into a copy of fixtures/m5.
func TestPlanForms(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	if fs := failures(gate(t, base)); len(fs) != 0 {
		t.Fatalf("fixtures/m5 fails before any form: %v", fs)
	}
	if !bytes.Contains(pt, []byte(formAnchor)) {
		t.Fatalf("fixtures/m5/PLAN.md lost the line the forms go after: %q", formAnchor)
	}
	for _, f := range append(planForms, redteamForms...) {
		t.Run(strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			p := bytes.Clone(pt)
			if f.line != "" {
				p = bytes.Replace(p, []byte(formAnchor), []byte(formAnchor+f.line+"\n"), 1)
			}
			if f.edit != nil {
				q := f.edit(p)
				if bytes.Equal(q, p) {
					t.Fatalf("the edit changed nothing")
				}
				p = q
			}
			c := bytes.Clone(ct)
			if f.claims != nil {
				q := f.claims(c)
				if bytes.Equal(q, c) {
					t.Fatalf("the PLAN.claims edit changed nothing")
				}
				c = q
			}
			rowLine := 0
			if f.row != "" {
				rowLine = bytes.Count(c, []byte("\n")) + strings.Count(f.row, "\n") + 1
				c = append(c, f.row+"\n"...)
			}
			fs := gate(t, withFiles(t, base, p, c))
			if f.declared {
				var warn *finding.Finding
				for i := range fs {
					if fs[i].Check == plangate.DeclaredCheck && fs[i].Line == rowLine && fs[i].Severity == finding.Warn {
						warn = &fs[i]
					}
				}
				if warn == nil {
					t.Fatalf("no declared-not-measured warning naming PLAN.claims:%d among\n%s", rowLine, listFindings(fs))
				}
				if fails := failures(plangate.Strict(fs)); len(fails) == 0 {
					t.Errorf("-strict: no fail")
				}
				return
			}
			if f.ungated != "" {
				warned := false
				for _, x := range fs {
					warned = warned || x.Check == plangate.UncoveredCheck && x.Quote == f.ungated && x.Severity == finding.Warn
				}
				if !warned {
					t.Fatalf("no plan.uncovered warning quoting %q among\n%s", f.ungated, listFindings(fs))
				}
				if fails := failures(plangate.Strict(fs)); len(fails) == 0 {
					t.Errorf("-strict: no fail")
				}
				return
			}
			if fails := failures(fs); len(fails) == 0 {
				t.Errorf("PASS; want a fail. Findings:\n%s", listFindings(fs))
			}
		})
	}
}

func listFindings(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		if f.Severity != finding.Pass {
			fmt.Fprintf(&b, "%s %s %s:%d %q %s\n", f.Severity, f.Rule, f.File, f.Line, f.Quote, f.Message)
		}
	}
	return b.String()
}
