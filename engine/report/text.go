package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/finding"
)

// Widths of the text report: lines wrap at word boundaries to
// Options.Width (DefaultTextWidth when 0); the unsourced table's columns
// are cut to these many runes (-v prints everything in full).
const (
	DefaultTextWidth = 100 // columns, when the terminal's width is unknown
	colWhere         = 24
	colQuote         = 24
	colSourceMin     = 16
)

// wrap breaks s into lines of at most width runes at spaces, the first
// line starting with first and the others with rest, each line ending in
// a newline. A word is never cut: one longer than the line stands alone.
func wrap(s string, width int, first, rest string) string {
	return wrapLines(s, width, first, rest, 0)
}

// textItemLines is how many lines a finding takes in the text report
// without -v; the rest of its message is left for -v, at a word boundary.
const textItemLines = 2

// wrapLines is wrap keeping at most maxLines lines (0 for all): text past
// them is dropped at a word boundary and the last line ends in " …".
func wrapLines(s string, width int, first, rest string, maxLines int) string {
	if width <= 0 {
		width = DefaultTextWidth
	}
	var lines []string
	line, n := first, utf8.RuneCountInString(first)
	empty := true // no word on the line yet
	words := strings.Split(s, " ")
	for _, w := range words {
		wn := utf8.RuneCountInString(w)
		if !empty && n+1+wn > width {
			if maxLines > 0 && len(lines)+1 == maxLines {
				// the last line allowed: end it with a mark that more follows
				for !empty && n+2 > width {
					j := strings.LastIndexByte(line, ' ')
					if j < len(rest) {
						break
					}
					line = line[:j]
					n = utf8.RuneCountInString(line)
				}
				lines = append(lines, line+" …")
				return strings.Join(lines, "\n") + "\n"
			}
			lines = append(lines, line)
			line, n, empty = rest, utf8.RuneCountInString(rest), true
		}
		if !empty {
			line += " "
			n++
		}
		line += w
		n += wn
		empty = false
	}
	lines = append(lines, strings.TrimRight(line, " "))
	return strings.Join(lines, "\n") + "\n"
}

// writeText writes the report in the reader's order: the verdict; the
// comparison with a previous report; the unsourced numbers as a table; the
// other fails by section, one line each; the warnings; what to fix; the
// passes counted per rule; the rules that did not apply. With o.Verbose,
// every finding follows in full.
func (r *Report) writeText(w io.Writer, o Options) error {
	ew := &errWriter{w: w}
	d := r.digest()
	ew.printf("%s", wrap(r.headline(), o.Width, "", "  "))
	if r.Previous != nil {
		ew.printf("%s", wrap(r.Previous.line(), o.Width, "", "  "))
	}
	ew.printf("\n")
	for _, e := range d.Start {
		ew.printf("%s", wrap(clean(e.Message), o.Width, "start here: ", "  "))
		ew.printf("%s\n", wrap(clean(r.fixOf(e.Finding)), o.Width, "  ", "  "))
	}
	if len(d.Unsourced) > 0 {
		ew.printf("%s", wrap(fmt.Sprintf("unsourced numbers: %d quoted in the plan, printed by no archived run", len(d.Unsourced)), o.Width, "", "  "))
		rows := [][]string{{"where", "plan says", "raw says", "source", "id"}}
		for _, e := range d.Unsourced {
			rows = append(rows, []string{
				markPrefix(e.Mark) + shorten(clean(place(e.Finding)), colWhere),
				shorten(clean(e.Quote), colQuote), shorten(clean(e.Raw), colQuote),
				clean(e.Source), clean(e.ID)})
		}
		// the source column takes what the line leaves (at least colSourceMin)
		used := 2 + 2*4 // indent and the gaps between five columns
		for _, c := range []int{0, 1, 2, 4} {
			w := 0
			for _, row := range rows {
				w = max(w, utf8.RuneCountInString(row[c]))
			}
			used += w
		}
		width := o.Width
		if width <= 0 {
			width = DefaultTextWidth
		}
		for _, row := range rows[1:] {
			row[3] = shorten(row[3], max(width-used, colSourceMin))
		}
		writeColumns(ew, "  ", rows)
	}
	if len(d.Declared) > 0 {
		width := o.Width
		if width <= 0 {
			width = DefaultTextWidth
		}
		ew.printf("%s", wrap(fmt.Sprintf("declared, not measured (a literal, a const or a literal factor; -strict: fail): %d claims rows", len(d.Declared)), width, "", "  "))
		var rows [][]string
		for _, e := range d.Declared {
			rows = append(rows, []string{
				markPrefix(e.Mark) + shorten(clean(fmt.Sprintf("%s:%d", e.File, e.Line)), colWhere),
				shorten(clean(e.Quote), colQuote), e.Severity.String(), clean(e.Source)})
		}
		for _, row := range rows {
			row[3] = shorten(row[3], max(width-colWhere-colQuote-12, colSourceMin))
		}
		writeColumns(ew, "  ", rows)
	}
	writeSections(ew, d, sections{
		groupHead: func(g group) string {
			return fmt.Sprintf("%s: %d fail\n", clean(g.Section.title()), len(g.Entries))
		},
		warnsHead: func(n int) string { return fmt.Sprintf("warnings: %d\n", n) },
		fixesHead: "\nwhat to fix:\n",
		item: func(s string) string {
			if o.Verbose {
				return wrap(s, o.Width, "  ", "      ")
			}
			return wrapLines(s, o.Width, "  ", "      ", textItemLines)
		},
		line: textLine,
		fix:  func(fl fixLine) string { return "- " + clean(fl.covers()) + ": " + clean(fl.Fix) },
	})
	ew.printf("\n%s", wrap(passLine(d.Passes, r.Summary.Pass, o.Verbose), o.Width, "", "  "))
	for _, line := range notAppliedLines(d.NotApplied, o.Verbose) {
		ew.printf("%s", wrap(line, o.Width, "did not apply: ", "  "))
	}
	for _, i := range r.Info {
		ew.printf("%s", wrap(clean(i), o.Width, "info: ", "  "))
	}
	if len(d.Fixed) > 0 {
		ew.printf("\nfixed since %s: %d\n", clean(r.Previous.File), len(d.Fixed))
		for _, m := range d.Fixed {
			ew.printf("%s", wrap(clean(idRule(m.ID, m.Rule)+" "+markPlace(m)+" "+m.Quote), o.Width, "  ", "      "))
		}
	}
	if o.Verbose {
		ew.printf("\nevery finding:\n")
		for _, sev := range []finding.Severity{finding.Fail, finding.Warn, finding.Pass} {
			for i, f := range r.Findings {
				if f.Severity == sev {
					writeFull(ew, f, r.Previous.mark(i), o.Width)
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

// textLine is a finding, in full: mark, id, rule, place and message (the
// text format wraps it).
func textLine(e entry) string {
	return markPrefix(e.Mark) + clean(idRule(e.ID, e.Rule)+" "+place(e.Finding)+": "+e.Message)
}

// writeFull writes a finding with its quote, raw values and source (-v),
// wrapped to width.
func writeFull(ew *errWriter, f finding.Finding, mark string, width int) {
	ew.printf("\n%s", wrap(markPrefix(mark)+strings.ToUpper(f.Severity.String())+" "+clean(idRule(f.ID, f.Rule))+"  "+clean(place(f)), width, "", "  "))
	ew.printf("%s", wrap(clean(f.Message), width, "  ", "  "))
	for _, kv := range [][2]string{{"check", f.Check}, {"quote", f.Quote}, {"raw", f.Raw}, {"source", f.Source}, {"fix", f.Fix}} {
		if kv[1] != "" {
			ew.printf("%s", wrap(clean(kv[1]), width, fmt.Sprintf("  %-7s ", kv[0]+":"), "          "))
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

// notAppliedLines are the text report's "did not apply" lines: one a rule,
// "rule (reason)", but two or more rules the spec file gives no settings
// for (Unconfigured) are one line naming them all, unless verbose asks for
// each reason.
func notAppliedLines(nas []NotApplied, verbose bool) []string {
	var unconf, rest []string
	for _, na := range nas {
		if na.Unconfigured {
			unconf = append(unconf, clean(na.Rule))
		}
	}
	folded := len(unconf) >= 2 && !verbose
	for _, na := range nas {
		if !folded || !na.Unconfigured {
			rest = append(rest, fmt.Sprintf("%s (%s)", clean(na.Rule), clean(na.Reason)))
		}
	}
	if !folded {
		return rest
	}
	one := strings.Join(unconf, ", ") + " (no settings for them in the spec file; -v gives what each needs)"
	return append([]string{one}, rest...)
}
