// Package plan holds the plan gate's rules, as analyzers requiring the
// gate's result (gate.Analyzer: PLAN.md, PLAN.claims and every run's and record's
// metrics, bound and checked once): every number of the claim sections
// bound to a source that prints it (plan.unsourced), every claims row
// still finding its quote (plan.stale), quoted ranges over every run of
// their set (plan.range), measurement-like numbers outside the claim
// sections listed and counted (plan.uncovered), and configuration labels
// agreeing with the bound runs (plan.label). Rules read facts, never files.
package plan

import (
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
	planmd "github.com/strataspec/strataspec/engine/plan"
)

// Analyzers returns the plan gate's rules, in report order.
func Analyzers() []*analysis.Analyzer {
	return []*analysis.Analyzer{Label, Range, Stale, Uncovered, Unsourced}
}

// check is what a plan rule reads: the plan check, and the runs its
// bindings name (argv, environment, model file).
type check struct {
	*gate.PlanCheck
	first map[facts.Cold]string   // model file and binary → the first run reading it
	runs  map[string]*archive.Run // the archive's runs by name
	// records are the route_parity records by key (their metrics' key)
	records map[string]*archive.Record
}

// newAnalyzer returns a plan rule: f over the plan check. Without a plan
// the rule does not apply ("no PLAN.md": a folder of logs being adopted);
// without a claims table, a rule that needsClaims does not apply either,
// and the others (plan.uncovered) read the plan against an empty table.
func newAnalyzer(name, doc string, needsClaims bool, f func(*check) []finding.Finding) *analysis.Analyzer {
	a := &analysis.Analyzer{Name: name, Doc: doc, Fix: fixes()[name],
		Requires: []*analysis.Analyzer{facts.ColdRuns.Analyzer, gate.Analyzer.Analyzer}}
	a.Run = func(p *analysis.Pass) (any, error) {
		pc := gate.Analyzer.Of(p) // without a plan the gate, and so the rule, does not apply: "no PLAN.md"
		if pc.NoClaims && needsClaims {
			return nil, analysis.NotApplicable("no %s, so no number of %s is bound; plan.uncovered lists them as ungated", pc.Table.File, pc.Doc.File)
		}
		snap := p.Snap
		c := &check{PlanCheck: pc, first: facts.ColdRuns.Of(p), runs: make(map[string]*archive.Run, len(snap.Runs))}
		for _, r := range snap.Runs {
			c.runs[r.Name] = r
		}
		c.records = make(map[string]*archive.Record, len(snap.Parity))
		for _, rec := range snap.Parity {
			c.records[rec.Key()] = rec
		}
		for _, f := range f(c) {
			p.Report(f)
		}
		return nil, nil
	}
	return a
}

// isRangeRow reports whether a binding is a quoted range, the kind
// plan.range reports: over a run set, or bound to its two endpoint runs
// (judged as the set of those runs).
func isRangeRow(b gate.Binding) bool {
	return b.Token.Kind == planmd.Range && len(b.Row.Sources) >= 1
}

// bindingFinding builds the finding of one binding.
func bindingFinding(pc *check, rule string, b gate.Binding, sev finding.Severity, msg string) finding.Finding {
	return finding.Finding{Rule: rule, ID: b.Row.ID, Severity: sev, File: pc.Doc.File, Line: b.Token.Line,
		Quote: b.Token.Text, Raw: b.Raw, Source: b.Source, Message: msg}
}

// dedupeFindings drops the findings identical to an earlier one, keeping
// order: two occurrences of a quote on one line give one finding, not the
// same twice.
func dedupeFindings(fs []finding.Finding) []finding.Finding {
	seen := make(map[finding.Finding]bool, len(fs))
	out := fs[:0]
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

func itemList(items []eval.Item, q func(eval.Item) string) string {
	var out []string
	for _, it := range items {
		out = append(out, q(it))
	}
	return strings.Join(out, ", ")
}

func placeOr(place, file string) string {
	if place == "" {
		return file
	}
	return place
}

// fixes are the plan rules' "what to fix" lines.
func fixes() map[string]string {
	return map[string]string{
		"plan.unsourced": "quote the number a run printed, at its precision, or bind the quote in PLAN.claims to the run that printed it",
		"plan.stale":     "update the PLAN.claims rows whose quote, source or caveat is no longer in the plan",
		"plan.range":     "quote the range over every run of its set, the cold first run included, or state why a run is left out",
		"plan.label":     "make the settings a claim names agree with the runs it is bound to, or bind it to runs that ran with them",
		"plan.uncovered": "declare the section as claims and bind its numbers, or declare it not claims (skip PLACE in PLAN.claims)",
	}
}
