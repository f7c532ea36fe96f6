package compare

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
)

// Significance judges every claims row that compares two runs' metrics (an
// arrow pair "A:m ; B:m", a ratio(A:m, B:m)) for evidence of a difference.
// With repeated samples on a side (llama-bench's samples_ts) the pair is
// tested as benchstat tests one (Mann-Whitney U, α = 0.05, engine/gate):
// a difference that is not significant fails unless the row names a caveat
// the plan states. With one run a side (llama-cli, strata runs) nothing can
// be tested: without a caveat that is a warning, and a fail when one side
// is the cold first run on its model file (a cold run against a warm one
// measures the page cache, not the change).
var Significance = &analysis.Analyzer{
	Name:     "compare.significance",
	Doc:      "a comparison of two runs' metrics is significant (Mann-Whitney U over repeated samples), or states a caveat; one run a side is a warning, a fail when one is a cold first run",
	Fix:      "repeat the runs (llama-bench -r 5 and more) and compare the samples, or name a caveat (caveat=ID) the plan states beside the quote",
	Requires: []*analysis.Analyzer{facts.ColdRuns.Analyzer},
	Uses:     []*analysis.Analyzer{gate.Analyzer.Analyzer, facts.RunMetrics.Analyzer},
	Run:      runSignificance,
}

func runSignificance(p *analysis.Pass) (any, error) {
	pc, ok := gate.Analyzer.Lookup(p)
	if !ok {
		why := p.Why(gate.Analyzer.Analyzer) // "no PLAN.md", or its claims table failed
		if why == "" {
			why = "no plan check"
		}
		return nil, analysis.NotApplicable("%s", why)
	}
	ms, _ := facts.RunMetrics.Lookup(p) // the charts' values; a plan check implies them
	cold := map[string]string{}         // run → its model file, for the cold first runs
	for c, run := range facts.ColdRuns.Of(p) {
		cold[run] = c.Model
	}
	n := 0
	seen := map[[2]int]bool{}
	for _, b := range pc.Result.Bindings {
		pair := comparedPair(b.Row)
		key := [2]int{b.Row.Line, b.Token.Line}
		switch {
		case pair == nil || seen[key]:
			continue
		case len(pair) == 1 && b.Significance == nil:
			continue // two metrics of one run, not a comparison of runs
		case b.Status != gate.Match && b.Significance == nil:
			continue // a quote its source does not print: plan.unsourced says so
		}
		seen[key] = true
		n++
		fd := finding.Finding{Severity: finding.Pass, Check: "samples", File: pc.Doc.File, Line: b.Token.Line, Quote: b.Token.Text,
			Raw: b.Raw, Source: fmt.Sprintf("%s:%d", pc.Table.File, b.Row.Line), ID: b.Row.ID}
		fd.Plot = comparePlot(comparison{row: b.Row, line: b.Token.Line, runs: pair, quoted: partValues(b.Token)}, ms)
		stated := statedCaveats(pc, b.Row)
		switch s := b.Significance; {
		case s != nil && s.Passed():
			fd.Message = fmt.Sprintf("%s: %s is significant: %s", b.Place, b.Token.Text, s)
		case s != nil && len(stated) > 0:
			fd.Message = fmt.Sprintf("%s: %s is not shown significant (%s); the plan states caveat %s beside it", b.Place, b.Token.Text, s, strings.Join(stated, ", "))
		case s != nil:
			fd.Severity = finding.Fail
			fd.Message = b.Msg
		default:
			fd.Check = "single"
			var colds []string
			for _, run := range pair {
				if m, ok := cold[run]; ok {
					colds = append(colds, fmt.Sprintf("%s (the first run on %s)", run, m))
				}
			}
			one := fmt.Sprintf("%s: %s compares one run a side (%s): n = 1 + 1, no test can show a difference", b.Place, b.Token.Text, strings.Join(pair, " vs "))
			switch {
			case len(stated) > 0:
				fd.Message = one + "; the plan states caveat " + strings.Join(stated, ", ") + " beside it"
			case len(colds) > 0:
				fd.Severity, fd.Check = finding.Fail, "cold"
				fd.Message = one + ", and " + strings.Join(colds, ", ") + " read its model cold; no caveat is stated"
			default:
				fd.Severity = finding.Warn
				fd.Message = one + "; no caveat is stated"
			}
		}
		p.Report(fd)
	}
	if n == 0 {
		return nil, analysis.NotApplicable("no claims row compares two runs' metrics")
	}
	return nil, nil
}

// comparedPair returns the two runs a row compares, in source order: the
// row reads exactly two run metrics (RUN:METRIC), of two runs or two
// occurrences of one; nil for any other row.
func comparedPair(row *claims.Row) []string {
	var runs []string
	var walk func(e *claims.Expr)
	walk = func(e *claims.Expr) {
		switch e.Op {
		case claims.OpMetric:
			runs = append(runs, e.Run)
		case claims.OpSetMetric, claims.OpSet:
			runs = append(runs, "", "", "") // a set: not a pair
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	for _, e := range row.Sources {
		walk(e)
	}
	if len(runs) != 2 || runs[0] == "" {
		return nil
	}
	if runs[0] == runs[1] {
		return runs[:1]
	}
	return runs
}

// statedCaveats returns the caveats a row names that the plan states
// beside its quote.
func statedCaveats(pc *gate.PlanCheck, row *claims.Row) []string {
	var out []string
	for _, id := range row.Caveats {
		if _, ok := pc.Doc.Caveat(id, row.Place); ok {
			out = append(out, id)
		}
	}
	return out
}
