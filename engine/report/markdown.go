package report

import (
	"fmt"
	"io"

	"github.com/strataspec/strataspec/engine/finding"
)

// writeMarkdown writes the report in the order of the text report, with
// the unsourced numbers, the passes and (with o.Verbose) every finding as
// tables. Text from the snapshot is escaped (mdText, mdCell).
func (r *Report) writeMarkdown(w io.Writer, o Options) error {
	ew := &errWriter{w: w}
	d := r.digest()
	ew.printf("# %s — audit of `%s`\n\n", r.Verdict, mdText(r.Root))
	ew.printf("%d fail, %d warn, %d pass in %d rules.", r.Summary.Fail, r.Summary.Warn, r.Summary.Pass, len(r.Summary.Rules))
	if r.Previous != nil {
		ew.printf(" Against `%s`: %d fixed, %d still, %d new.", mdText(r.Previous.File), r.Previous.Fixed, r.Previous.Still, r.Previous.New)
	}
	ew.printf("\n")
	if len(d.Unsourced) > 0 {
		ew.printf("\n## Unsourced numbers (%d)\n\nQuoted in the plan, printed by no archived run.\n\n", len(d.Unsourced))
		ew.printf("| where | plan says | raw says | source | id |\n|---|---|---|---|---|\n")
		for _, e := range d.Unsourced {
			ew.printf("| %s%s | %s | %s | %s | %s |\n", markPrefix(e.Mark), mdCell(place(e.Finding)), mdCell(e.Quote), mdCell(e.Raw), mdCell(e.Source), mdCell(e.ID))
		}
	}
	writeSections(ew, d, sections{
		failsHead: "\n## Fails\n",
		groupHead: func(g group) string {
			return fmt.Sprintf("\n### %s (%d)\n\n", mdText(familyTitle(g.Family)), len(g.Entries))
		},
		warnsHead: func(n int) string { return fmt.Sprintf("\n## Warnings (%d)\n\n", n) },
		fixesHead: "\n## What to fix\n\n",
		item:      func(s string) string { return "- " + s + "\n" },
		line:      mdLine,
		fix:       func(fl fixLine) string { return mdText(fl.covers()) + ": " + mdText(fl.Fix) },
	})
	ew.printf("\n## Passes (%d)\n\n", r.Summary.Pass)
	if !o.Verbose {
		ew.printf("Counted per rule; `-v` lists them.\n\n")
	}
	ew.printf("| rule | pass |\n|---|---|\n")
	for _, p := range d.Passes {
		ew.printf("| `%s` | %d |\n", mdCell(p.Rule), p.N)
	}
	if len(d.NotApplied) > 0 {
		ew.printf("\n## Did not apply\n\n")
		for _, na := range d.NotApplied {
			ew.printf("- `%s`: %s\n", mdText(na.Rule), mdText(na.Reason))
		}
	}
	if len(r.Info) > 0 {
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
	if o.Verbose {
		ew.printf("\n## Every finding\n\n| severity | rule | id | where | quote | raw | source | message |\n|---|---|---|---|---|---|---|---|\n")
		for _, sev := range []finding.Severity{finding.Fail, finding.Warn, finding.Pass} {
			for i, f := range r.Findings {
				if f.Severity == sev {
					ew.printf("| %s%s | `%s` | %s | %s | %s | %s | %s | %s |\n", markPrefix(r.Previous.mark(i)), f.Severity, mdCell(f.Rule), mdCell(f.ID),
						mdCell(place(f)), mdCell(f.Quote), mdCell(f.Raw), mdCell(f.Source), mdCell(f.Message))
				}
			}
		}
	}
	return ew.err
}

// mdLine is a finding as a list item: mark, id, rule, place and message.
func mdLine(e entry) string {
	s := markPrefix(e.Mark)
	if e.ID != "" {
		s += "**" + mdText(e.ID) + "** "
	}
	return s + "`" + mdText(e.Rule) + "` " + mdText(place(e.Finding)) + ": " + mdText(e.Message)
}
