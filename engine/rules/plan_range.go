package rules

import (
	"fmt"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
)

func init() {
	registerPlanRule("plan.range",
		"a quoted range over a run set covers every run of the set (the cold first run included)",
		planRange)
}

func planRange(pc *PlanCheck) []finding.Finding {
	var out []finding.Finding
	const rule = "plan.range"
	for _, b := range pc.Result.Bindings {
		if !isRangeRow(b) {
			continue
		}
		switch b.Status {
		case claims.Match:
			out = append(out, bindingFinding(rule, b, finding.Pass,
				fmt.Sprintf("%s: %s covers every run of its set", b.Place, b.Token.Text)))
		case claims.DropsRuns:
			out = append(out, bindingFinding(rule, b, finding.Fail,
				fmt.Sprintf("%s: %s drops runs: %s; the full range is %s", b.Place, b.Token.Text, b.Msg, b.Raw)))
		}
	}
	return dedupeFindings(out)
}
