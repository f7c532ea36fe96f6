package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/finding"
)

// Widths of the text report: a finding's line and the unsourced table's
// columns are cut to these many runes (-v prints everything in full).
const (
	textLineWidth = 160
	colWhere      = 24
	colQuote      = 24
	colSource     = 56
)

// writeText writes the report in the reader's order: the verdict; the
// comparison with a previous report; the unsourced numbers as a table; the
// other fails by family, one line each; the warnings; what to fix; the
// passes counted per rule; the rules that did not apply. With o.Verbose,
// every finding follows in full.
func (r *Report) writeText(w io.Writer, o Options) error {
	ew := &errWriter{w: w}
	d := r.digest()
	ew.printf("%s\n", r.headline())
	if r.Previous != nil {
		ew.printf("%s\n", r.Previous.line())
	}
	ew.printf("\n")
	if len(d.Unsourced) > 0 {
		ew.printf("unsourced numbers: %d quoted in the plan, printed by no archived run\n", len(d.Unsourced))
		rows := [][]string{{"where", "plan says", "raw says", "source", "id"}}
		for _, e := range d.Unsourced {
			rows = append(rows, []string{
				markPrefix(e.Mark) + shorten(clean(place(e.Finding)), colWhere),
				shorten(clean(e.Quote), colQuote), shorten(clean(e.Raw), colQuote),
				shorten(clean(e.Source), colSource), clean(e.ID)})
		}
		writeColumns(ew, "  ", rows)
	}
	writeSections(ew, d, sections{
		groupHead: func(g group) string {
			return fmt.Sprintf("%s: %d fail\n", clean(familyTitle(g.Family)), len(g.Entries))
		},
		warnsHead: func(n int) string { return fmt.Sprintf("warnings: %d\n", n) },
		fixesHead: "\nwhat to fix:\n",
		item:      func(s string) string { return "  " + s + "\n" },
		line:      textLine,
		fix:       func(fl fixLine) string { return "- " + clean(fl.covers()) + ": " + clean(fl.Fix) },
	})
	ew.printf("\n%s\n", passLine(d.Passes, r.Summary.Pass, o.Verbose))
	for _, na := range d.NotApplied {
		ew.printf("did not apply: %s (%s)\n", clean(na.Rule), clean(na.Reason))
	}
	for _, i := range r.Info {
		ew.printf("info: %s\n", clean(i))
	}
	if len(d.Fixed) > 0 {
		ew.printf("\nfixed since %s: %d\n", clean(r.Previous.File), len(d.Fixed))
		for _, m := range d.Fixed {
			ew.printf("  %s\n", shorten(clean(idRule(m.ID, m.Rule)+" "+markPlace(m)+" "+m.Quote), textLineWidth))
		}
	}
	if o.Verbose {
		ew.printf("\nevery finding:\n")
		for _, sev := range []finding.Severity{finding.Fail, finding.Warn, finding.Pass} {
			for i, f := range r.Findings {
				if f.Severity == sev {
					writeFull(ew, f, r.Previous.mark(i))
				}
			}
		}
	}
	return ew.err
}

// passLine counts the pass findings per rule.
func passLine(ps []ruleCount, total int, verbose bool) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("%s %d", clean(p.Rule), p.N))
	}
	hint := " (-v lists them)"
	if verbose {
		hint = ""
	}
	return fmt.Sprintf("passes: %d%s: %s", total, hint, strings.Join(parts, ", "))
}

func idRule(id, rule string) string {
	if id == "" {
		return rule
	}
	return id + " " + rule
}

func markPlace(m Mark) string {
	return place(finding.Finding{File: m.File, Line: m.Line})
}

func markPrefix(mark string) string {
	if mark == "" {
		return ""
	}
	return "[" + mark + "] "
}

// textLine is a finding on one line: mark, id, rule, place and message.
func textLine(e entry) string {
	s := clean(idRule(e.ID, e.Rule) + " " + place(e.Finding) + ": " + e.Message)
	return shorten(markPrefix(e.Mark)+s, textLineWidth)
}

// writeFull writes a finding with its quote, raw values and source (-v).
func writeFull(ew *errWriter, f finding.Finding, mark string) {
	ew.printf("\n%s%s %s  %s\n  %s\n", markPrefix(mark), strings.ToUpper(f.Severity.String()), clean(idRule(f.ID, f.Rule)), clean(place(f)), clean(f.Message))
	for _, kv := range [][2]string{{"check", f.Check}, {"quote", f.Quote}, {"raw", f.Raw}, {"source", f.Source}, {"fix", f.Fix}} {
		if kv[1] != "" {
			ew.printf("  %-7s %s\n", kv[0]+":", clean(kv[1]))
		}
	}
}

// writeColumns writes rows with each column padded to its widest cell.
func writeColumns(ew *errWriter, indent string, rows [][]string) {
	var width []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range row {
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
			}
		}
		ew.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
}
