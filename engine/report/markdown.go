package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/finding"
)

// What a Markdown report over its limit leaves out, in the order it gives
// things up: mdAll drops nothing.
const (
	mdAll         = iota
	mdNoPasses    // the passes (counted in one line) and their rows in the list of every finding
	mdNoEvery     // the list of every finding
	mdNoInfo      // the info lines and the rules that did not apply
	mdTruncated   // and the end of the report, cut at a line
	mdTruncMarker = "\n…the report stops here: it reached its size limit (`-format json` has every finding).\n"
)

// writeMarkdown writes the report in the order of the text report, with
// the unsourced numbers, the passes and (with o.Verbose) every finding as
// tables. Text from the snapshot is escaped (mdText, mdCell). A report
// over o.MarkdownLimit says so at the top and leaves out the passes first.
func (r *Report) writeMarkdown(w io.Writer, o Options) error {
	limit := o.MarkdownLimit
	if limit == 0 {
		limit = DefaultMarkdownLimit
	}
	size := func(s string) int {
		if o.MarkdownLimitBytes {
			return len(s)
		}
		return utf8.RuneCountInString(s)
	}
	full := r.markdown(o, mdAll, "")
	if limit < 0 || size(full) <= limit {
		_, err := io.WriteString(w, full)
		return err
	}
	unit := "characters"
	if o.MarkdownLimitBytes {
		unit = "bytes"
	}
	for drop := mdNoPasses; drop <= mdTruncated; drop++ {
		note := fmt.Sprintf("> **This report is cut to fit %d %s** (the whole report is %d): %s. `-format json` has every finding.\n\n",
			limit, unit, size(full), mdDropped(drop))
		out := r.markdown(o, drop, note)
		if size(out) <= limit {
			_, err := io.WriteString(w, out)
			return err
		}
		if drop == mdTruncated {
			_, err := io.WriteString(w, cutMarkdown(out, limit-size(mdTruncMarker), size)+mdTruncMarker)
			return err
		}
	}
	return nil
}

// mdDropped says what a report cut at level drop leaves out.
func mdDropped(drop int) string {
	parts := []string{"the passes are counted, not listed"}
	if drop >= mdNoEvery {
		parts = append(parts, "the list of every finding is left out")
	}
	if drop >= mdNoInfo {
		parts = append(parts, "so are the info lines and the rules that did not apply")
	}
	if drop >= mdTruncated {
		parts = append(parts, "and the report stops where the limit falls")
	}
	return strings.Join(parts, "; ")
}

// cutMarkdown cuts s at the last line end that keeps it within limit.
func cutMarkdown(s string, limit int, size func(string) int) string {
	for size(s) > limit {
		i := strings.LastIndexByte(s[:len(s)-1], '\n')
		if i < 0 {
			return ""
		}
		s = s[:i+1]
	}
	return s
}

// markdown renders the report leaving out what drop says, with note (if
// any) under the verdict.
func (r *Report) markdown(o Options, drop int, note string) string {
	var b strings.Builder
	ew := &errWriter{w: &b}
	d := r.digest()
	ew.printf("# %s — audit of `%s`\n\n", r.Verdict, mdText(r.Root))
	ew.printf("%s", note)
	ew.printf("%d fail, %d warn, %d pass in %d rules.", r.Summary.Fail, r.Summary.Warn, r.Summary.Pass, len(r.Summary.Rules))
	if r.Previous != nil {
		ew.printf(" Against `%s`: %d fixed, %d still, %d new", mdText(r.Previous.File), r.Previous.Fixed, r.Previous.Still, r.Previous.New)
		ew.printf("%s.", mdText(r.Previous.weakened()))
	}
	ew.printf("\n")
	for _, e := range d.Start {
		ew.printf("\n**Start here:** %s. %s.\n", mdText(e.Message), mdText(r.fixOf(e.Finding)))
	}
	if len(d.Unsourced) > 0 {
		ew.printf("\n## Unsourced numbers (%d)\n\nQuoted in the plan, printed by no archived run.\n\n", len(d.Unsourced))
		ew.printf("| where | plan says | raw says | source | id |\n|---|---|---|---|---|\n")
		for _, e := range d.Unsourced {
			ew.printf("| %s%s | %s | %s | %s | %s |\n", markPrefix(e.Mark), mdCell(place(e.Finding)), mdCell(e.Quote), mdCell(e.Raw), mdCell(e.Source), mdCell(e.ID))
		}
	}
	if len(d.Declared) > 0 {
		ew.printf("\n## Declared, not measured (%d)\n\nClaims rows that bind a quote to a literal, a constant or a literal factor.\n\n", len(d.Declared))
		ew.printf("| row | plan says | source | severity |\n|---|---|---|---|\n")
		for _, e := range d.Declared {
			ew.printf("| %s%s | %s | %s | %s |\n", markPrefix(e.Mark), mdCell(fmt.Sprintf("%s:%d", e.File, e.Line)), mdCell(e.Quote), mdCell(e.Source), mdCell(e.Severity.String()))
		}
	}
	writeSections(ew, d, sections{
		failsHead: "\n## Fails\n",
		groupHead: func(g group) string {
			return fmt.Sprintf("\n### %s (%d)\n\n", mdText(g.Section.title()), len(g.Entries))
		},
		warnsHead: func(n int) string { return fmt.Sprintf("\n## Warnings (%d)\n\n", n) },
		fixesHead: "\n## What to fix\n\n",
		item:      func(s string) string { return "- " + s + "\n" },
		line:      mdLine,
		fix:       func(fl fixLine) string { return mdText(fl.covers()) + ": " + mdText(fl.Fix) },
	})
	ew.printf("\n## Passes (%d)\n\n", r.Summary.Pass)
	if drop >= mdNoPasses {
		ew.printf("%d pass findings in %d rules, left out to fit the limit.\n", r.Summary.Pass, len(d.Passes))
	} else {
		if !o.Verbose {
			ew.printf("Counted per rule; `-v` lists them.\n\n")
		}
		ew.printf("| rule | pass |\n|---|---|\n")
		for _, p := range d.Passes {
			ew.printf("| `%s` | %d |\n", mdCell(p.Rule), p.N)
		}
	}
	if len(d.NotApplied) > 0 && drop < mdNoInfo {
		ew.printf("\n## Did not apply\n\n")
		for _, na := range d.NotApplied {
			ew.printf("- `%s`: %s\n", mdText(na.Rule), mdText(na.Reason))
		}
	}
	if len(r.Info) > 0 && drop < mdNoInfo {
		ew.printf("\n## Info\n\nInputs kept but used by no rule.\n\n")
		for _, i := range r.Info {
			ew.printf("- %s\n", mdText(i))
		}
	}
	if len(d.Fixed) > 0 {
		ew.printf("\n## Fixed since `%s` (%d)\n\n| id | rule | where | quote |\n|---|---|---|---|\n", mdText(r.Previous.File), len(d.Fixed))
		for _, m := range d.Fixed {
			ew.printf("| %s | `%s` | %s | %s |\n", mdCell(m.ID), mdCell(m.Rule), mdCell(markPlace(m)), mdCell(m.Quote))
		}
	}
	if o.Verbose && drop < mdNoEvery {
		sevs := []finding.Severity{finding.Fail, finding.Warn, finding.Pass}
		if drop >= mdNoPasses {
			sevs = sevs[:2]
		}
		ew.printf("\n## Every finding\n\n| severity | rule | id | where | quote | raw | source | message |\n|---|---|---|---|---|---|---|---|\n")
		for _, sev := range sevs {
			for i, f := range r.Findings {
				if f.Severity == sev {
					ew.printf("| %s%s | `%s` | %s | %s | %s | %s | %s | %s |\n", markPrefix(r.Previous.mark(i)), f.Severity, mdCell(f.Rule), mdCell(f.ID),
						mdCell(place(f)), mdCell(f.Quote), mdCell(f.Raw), mdCell(f.Source), mdCell(f.Message))
				}
			}
		}
	}
	return b.String()
}

// mdLine is a finding as a list item: mark, id, rule, place and message.
func mdLine(e entry) string {
	s := markPrefix(e.Mark)
	if e.ID != "" {
		s += "**" + mdText(e.ID) + "** "
	}
	return s + "`" + mdText(e.Rule) + "` " + mdText(place(e.Finding)) + ": " + mdText(e.Message)
}
