package runs

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
)

// Exit checks that the runs a plan quotes ended well. A run that exited
// with a non-zero status may have printed partial timings, or numbers of an
// aborted pass: a claim bound to it fails; a failed run no claim reads is a
// warning, so it is not mistaken for evidence later.
var Exit = &analysis.Analyzer{
	Name: "runs.exit",
	Doc:  "a run a claims row reads exited 0 (a failed run's numbers are no evidence); other failed runs are listed",
	Fix:  "re-run the failed run, or bind the claim to a run that exited 0",
	Uses: []*analysis.Analyzer{gate.Analyzer.Analyzer},
	Run:  runExit,
}

func runExit(p *analysis.Pass) (any, error) {
	snap := p.Snap
	recorded := 0
	for _, r := range snap.Runs {
		if r.HasExit {
			recorded++
		}
	}
	if recorded == 0 {
		return nil, analysis.NotApplicable("no run records an exit status")
	}
	// Which rows read each run: without a plan or claims table, none.
	readers := map[string][]*claims.Row{}
	pc, ok := gate.Analyzer.Lookup(p)
	if ok {
		for _, row := range pc.Table.Rows {
			for _, run := range row.MetricRuns(pc.Env) {
				readers[run] = append(readers[run], row)
			}
		}
	}
	failed := 0
	for _, r := range snap.Runs {
		if !r.HasExit || r.ExitCode == 0 {
			continue
		}
		failed++
		f := finding.Finding{Severity: finding.Warn, Check: "unread", File: r.File, Line: r.Line,
			Quote: fmt.Sprintf("exit %d", r.ExitCode), Source: r.Source,
			Message: fmt.Sprintf("run %s exited %d; no claim reads it", r.Name, r.ExitCode)}
		if rows := readers[r.Name]; len(rows) > 0 {
			var places []string
			for _, row := range rows {
				places = append(places, fmt.Sprintf("%s %q (%s:%d)", row.Place, row.Quote, pc.Table.File, row.Line))
			}
			f.Severity, f.Check = finding.Fail, "read"
			f.Message = fmt.Sprintf("run %s exited %d, and claims read it: %s", r.Name, r.ExitCode, strings.Join(places, ", "))
		}
		p.Report(f)
	}
	p.Report(finding.Finding{Severity: finding.Pass, Check: "runs",
		Message: fmt.Sprintf("%d of %d runs with a recorded exit status exited 0", recorded-failed, recorded)})
	return nil, nil
}
