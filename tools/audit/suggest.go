package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/report"
	plangate "github.com/strataspec/strataspec/engine/rules/plan"
)

// gateFlags are the plan gate's flags: -suggest prints claims rows for the
// numbers the gate cannot source; -strict fails the numbers it does not
// gate (plan.uncovered's warnings).
type gateFlags struct {
	suggest, strict *bool
}

func addGateFlags(fs *flag.FlagSet) gateFlags {
	return gateFlags{
		suggest: fs.Bool("suggest", false, "print, for every number the plan gate cannot source, the PLAN.claims rows that would bind it (never writes PLAN.claims)"),
		strict:  fs.Bool("strict", false, "fail, not warn, on measurement-like numbers outside the claim sections (rule plan.uncovered)"),
	}
}

// strictReport returns the report with plan.uncovered's warnings about
// ungated numbers made failures (plan.Strict), the summary and verdict
// recomputed.
func strictReport(rep *report.Report) *report.Report {
	out := report.NewWithRules(rep.Root, rep.Rules, plangate.Strict(rep.Findings))
	out.Info = rep.Info
	return out
}

// runSuggest prints the suggestions for the snapshot at root: for each
// quote, a comment naming its lines and why it is not sourced, then its
// row when its source is unique, its candidate rows (commented: choose
// one) when several sources print it, or its nearest raw values when none
// does. A range whose row ranges over a set gets only sets holding every
// run of it: never a narrower set that would hide the runs it leaves out. Only rows with a unique source are left uncommented, so that the
// output appended to PLAN.claims binds exactly those.
func runSuggest(stdout, stderr io.Writer, root string) int {
	ctx, err := audit.Load(root)
	if err != nil {
		fmt.Fprintf(stderr, "audit: %v\n", err)
		return 2
	}
	pc, err := ctx.PlanCheck()
	if err == nil && pc.NoClaims {
		err = fmt.Errorf("%s: not in the snapshot: declare its claim sections first (see the README, \"Adopting the gate\")", ctx.Snap.Spec.Claims)
	}
	if err != nil {
		fmt.Fprintf(stderr, "audit: %v\n", err)
		return 2
	}
	ss := claims.Suggest(pc.Table, pc.Env, pc.Result)
	writeSuggestions(stdout, ctx.Snap.Spec.Plan, ss)
	return 0
}

func writeSuggestions(w io.Writer, planFile string, ss []claims.Suggestion) {
	if len(ss) == 0 {
		fmt.Fprintf(w, "# every number of the claim sections is bound and sourced: nothing to suggest\n")
		return
	}
	unique := 0
	for _, s := range ss {
		var lines []string
		for _, l := range s.Lines {
			lines = append(lines, fmt.Sprint(l))
		}
		fmt.Fprintf(w, "# %s:%s %s %q: %s\n", planFile, strings.Join(lines, ","), s.Place, s.Quote, s.Why)
		switch {
		case s.Unique():
			unique++
			fmt.Fprintln(w, s.Rows[0])
		case len(s.Rows) > 1:
			fmt.Fprintf(w, "#   %d sources print it; choose one:\n", len(s.Rows))
			for _, r := range s.Rows {
				fmt.Fprintf(w, "#   %s\n", r)
			}
		case len(s.Keep) > 0:
			// a narrower set would bind the quote and hide the runs it
			// leaves out: none is suggested
			fmt.Fprintf(w, "#   no declared set holding the %d runs of the row's set gives this range: quote the range over all of them, or name a caveat (caveat=ID) the plan states for the runs it leaves out\n", len(s.Keep))
		default:
			for i, c := range s.Parts {
				q := strings.TrimSpace(s.Token.Parts[i].Text + " " + s.Token.Units[i])
				switch {
				case len(c) == 0:
					fmt.Fprintf(w, "#   %s: no run metric or derivation over two metrics prints it; %s\n", q, s.NearestText(i))
				default:
					fmt.Fprintf(w, "#   %s: %s\n", q, strings.Join(c, " | "))
				}
			}
		}
	}
	fmt.Fprintf(w, "# %d quotes, %d with a unique source (the uncommented rows)\n", len(ss), unique)
}
