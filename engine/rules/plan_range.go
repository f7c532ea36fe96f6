package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/plan"
)

func init() {
	Register(Rule{
		Name: "plan.range",
		Doc:  "a quoted range over a run set covers every run of the set (the cold first run included); a comparison with a cold run states a caveat",
		Check: func(c *Context) ([]finding.Finding, error) {
			pc, err := LoadPlanCheck(c)
			if err != nil {
				return nil, err
			}
			return planRange(pc)
		},
	})
}

func planRange(pc *PlanCheck) ([]finding.Finding, error) {
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
	// comparisons with a cold first run (F30)
	if pc.Table.Sets[ColdSet] == nil {
		return out, nil
	}
	cold, err := pc.Env.Set(ColdSet)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", claims.File, err)
	}
	isCold := map[string]bool{}
	for _, r := range cold {
		isCold[r] = true
	}
	out = append(out, checkColdSet(pc, cold))
	for _, b := range pc.Result.Bindings {
		if b.Token.Kind != plan.Arrow || b.Status == claims.Stale {
			continue
		}
		runs := b.Row.Runs()
		var hot []string
		for _, r := range runs {
			if isCold[r] {
				hot = append(hot, r)
			}
		}
		if len(runs) < 2 || len(hot) == 0 {
			continue
		}
		id := b.Row.ID
		if id == "" {
			id = "F30"
		}
		what := fmt.Sprintf("%s: %s compares %s with the first, cold run on its expert file (%s), one run per side",
			b.Place, b.Token.Text, strings.Join(runs, " and "), strings.Join(hot, ", "))
		f := bindingFinding(rule, b, finding.Warn, what+", and states no caveat")
		f.ID = id
		if len(b.Row.Caveats) > 0 && b.Status != claims.CaveatMissing {
			f.Severity = finding.Pass
			f.Message = fmt.Sprintf("%s; caveat (%s) stated", what, strings.Join(b.Row.Caveats, "), ("))
		}
		out = append(out, f)
	}
	return out, nil
}

// firstRuns returns, per model file (the --model argument), the first strata
// run in archive order that reads it: the run that finds its expert file cold.
func firstRuns(c *Context) map[string]string {
	first := map[string]string{}
	for _, r := range c.Snap.StrataRuns() {
		for i := 0; i+1 < len(r.Cmd); i++ {
			if r.Cmd[i] == "--model" {
				if _, ok := first[r.Cmd[i+1]]; !ok {
					first[r.Cmd[i+1]] = r.Name
				}
			}
		}
	}
	return first
}

// checkColdSet checks the declared cold set against the archive: it must be
// exactly the first run on each model file.
func checkColdSet(pc *PlanCheck, cold []string) finding.Finding {
	set := pc.Table.Sets[ColdSet]
	f := finding.Finding{Rule: "plan.range", File: claims.File, Line: set.Line, Quote: "set " + ColdSet,
		Raw: strings.Join(cold, " ")}
	var want []string
	var models []string
	for m := range pc.first {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		want = append(want, pc.first[m])
	}
	sort.Strings(want)
	got := append([]string(nil), cold...)
	sort.Strings(got)
	f.Source = "the first strata run per --model in " + "results order: " + strings.Join(want, " ")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		f.Severity = finding.Fail
		f.Message = fmt.Sprintf("set %s names %s; the first run on each model file is %s", ColdSet, strings.Join(got, ", "), strings.Join(want, ", "))
		return f
	}
	f.Message = fmt.Sprintf("set %s is the first run on each model file: %s", ColdSet, strings.Join(want, ", "))
	return f
}
