package plan

import (
	"fmt"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
)

// Stale is rule plan.stale.
var Stale = newAnalyzer("plan.stale",
	"every claims row still finds its quote in PLAN at its place, its source in the archive, and the caveat it names beside the quote",
	true, planStale)

func planStale(pc *check) []finding.Finding {
	var out []finding.Finding
	const rule = "plan.stale"
	for _, s := range pc.Result.MissingSections {
		kind := "claim section"
		for _, sk := range pc.Table.Skips {
			if sk == s {
				kind = "skip section"
			}
		}
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: pc.Table.File, Line: s.Line, Quote: s.Place,
			Message: fmt.Sprintf("%s %s is not in %s", kind, s.Place, pc.Doc.File)})
	}
	for _, s := range pc.Result.EmptySections {
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Warn, File: pc.Table.File, Line: s.Line, Quote: s.Place,
			Message: fmt.Sprintf("claim section %s holds no number in %s: the line gates nothing", s.Place, pc.Doc.File),
			Fix:     "point the section line at the part of the plan that quotes the runs, or remove it"})
	}
	fresh := 0
	for _, b := range pc.Result.Bindings {
		switch b.Status {
		case gate.Stale:
			out = append(out, finding.Finding{Rule: rule, ID: b.Row.ID, Severity: finding.Fail, File: pc.Table.File, Line: b.Row.Line,
				Quote: b.Row.Quote, Message: b.Msg})
		case gate.BadSource:
			// the mistake is in the row, not in the plan: the finding (and
			// its annotation) is on the PLAN.claims line
			out = append(out, finding.Finding{Rule: rule, ID: b.Row.ID, Severity: finding.Fail, File: pc.Table.File, Line: b.Row.Line,
				Quote: b.Row.Quote, Message: b.Msg,
				Fix: "correct the row's source in " + pc.Table.File + ": a run and a metric the archive has (-metrics lists them), a declared set or constant"})
		case gate.CaveatMissing:
			if b.Significance != nil && len(b.Row.Caveats) == 0 {
				// a comparison not shown significant: compare.significance
				// reports it, with its own fix
				fresh++
				continue
			}
			out = append(out, bindingFinding(pc, rule, b, finding.Fail, b.Msg))
		default:
			fresh++
		}
	}
	if fresh > 0 {
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Pass, File: pc.Table.File,
			Message: fmt.Sprintf("%d quotes of %d claims rows found in %s with readable sources and their caveats stated", fresh, len(pc.Table.Rows), pc.Doc.File)})
	}
	return dedupeFindings(out)
}
