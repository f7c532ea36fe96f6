package rules

import (
	"fmt"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
)

func init() {
	Register(Rule{
		Name: "plan.stale",
		Doc:  "every claims row still finds its quote in PLAN at its place, its source in the archive, and the caveat it names beside the quote",
		Check: func(c *Context) ([]finding.Finding, error) {
			pc, err := LoadPlanCheck(c)
			if err != nil {
				return nil, err
			}
			return planStale(pc), nil
		},
	})
}

func planStale(pc *PlanCheck) []finding.Finding {
	var out []finding.Finding
	const rule = "plan.stale"
	for _, s := range pc.Result.MissingSections {
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: claims.File, Line: s.Line, Quote: s.Place,
			Message: fmt.Sprintf("claim section %s is not in %s", s.Place, PlanFile)})
	}
	fresh := 0
	for _, b := range pc.Result.Bindings {
		switch b.Status {
		case claims.Stale:
			out = append(out, finding.Finding{Rule: rule, ID: b.Row.ID, Severity: finding.Fail, File: claims.File, Line: b.Row.Line,
				Quote: b.Row.Quote, Message: b.Msg})
		case claims.BadSource, claims.CaveatMissing:
			out = append(out, bindingFinding(rule, b, finding.Fail, b.Msg))
		default:
			fresh++
		}
	}
	if fresh > 0 {
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Pass, File: claims.File,
			Message: fmt.Sprintf("%d quotes of %d claims rows found in %s with readable sources and their caveats stated", fresh, len(pc.Table.Rows), PlanFile)})
	}
	return dedupeFindings(out)
}
