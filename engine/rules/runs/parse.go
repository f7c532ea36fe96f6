// Package runs holds the runs.* rules, about the runs themselves: every
// run's output is understood (runs.parse), and a run a claim reads exited
// 0 (runs.exit).
package runs

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
)

// Parse reports every run whose output was not understood: a program no
// parser is declared for, a tail of a known program that yields no metric,
// and every line that looked like a metric line and did not parse. Silence
// is the worst answer a checker can give.
var Parse = &analysis.Analyzer{
	Name:     "runs.parse",
	Doc:      "every run's output is understood: a known program, metrics found, no malformed metric line",
	Fix:      "declare the program's parser (or its log format) in " + checkout.File + ", or archive the run's whole output",
	Requires: []*analysis.Analyzer{facts.RunMetrics.Analyzer},
	Run:      runParse,
}

func runParse(p *analysis.Pass) (any, error) {
	snap := p.Snap
	if len(snap.Runs) == 0 {
		return nil, analysis.NotApplicable("the snapshot has no runs")
	}
	ms := facts.RunMetrics.Of(p)
	ok := 0
	for _, r := range snap.Runs {
		m := ms[r.Name]
		switch {
		case r.Parser == "":
			msg := fmt.Sprintf("run %s: no argv recorded and its output is not recognised: it is not read", r.Name)
			quote := ""
			if len(r.Cmd) > 0 {
				quote = r.Cmd[0]
				msg = fmt.Sprintf("run %s: no parser for program %q: its output is not read", r.Name, quote)
			}
			p.Report(finding.Finding{Severity: finding.Warn, Check: "program", File: r.File, Line: r.Line, Quote: quote, Source: r.Source, Message: msg})
		case m == nil || len(m.List) == 0 && len(m.Errors) == 0:
			p.Report(finding.Finding{Severity: finding.Fail, Check: "empty", File: r.File, Line: r.Line, Quote: lastLine(r), Source: r.Source,
				Message: fmt.Sprintf("run %s (%s): its output yields no metric; last line: %q", r.Name, r.Parser, lastLine(r))})
		case len(m.List) > 0:
			ok++
		}
		if m == nil {
			continue
		}
		for _, e := range m.Errors {
			if e.Line == 0 && r.Parser == "" {
				continue // said above
			}
			line := r.Line // the run's record in a results file
			if r.Source == r.File && e.Line > 0 {
				line = e.Line // a log file: the line itself
			}
			p.Report(finding.Finding{Severity: finding.Fail, Check: "line", File: r.File, Line: line, Source: r.Source,
				Quote: finding.Clip(r.TailLine(e.Line)), Message: fmt.Sprintf("run %s: %s", r.Name, e.Error())})
		}
	}
	p.Report(finding.Finding{Severity: finding.Pass, Check: "runs", Source: snap.ResultsFile,
		Message: fmt.Sprintf("%d of %d runs yield metrics from a known program's output", ok, len(snap.Runs))})
	return nil, nil
}

func lastLine(r *archive.Run) string {
	t, _ := r.Text()
	t = strings.TrimRight(t, "\n")
	if i := strings.LastIndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	return finding.Clip(t)
}
