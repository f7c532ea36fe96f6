// Package tfstate gathers what the tf and kld rules read, once per pass:
// the TF fact (the manifest's files, decoded with its vocabulary, and the
// runs that read them), every run's parsed tail, and the place where the
// plan quotes the teacher-forcing figures, in whose section the rules look
// for their caveats.
package tfstate

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

// Place is where the plan quotes the teacher-forcing figures: the first
// plan line holding a quote that a claims row binds to metrics of TF runs
// alone (directly or through a set, e.g. mean(@tf_iq3_s:kld_mean); a row
// over every strata run is not a TF figure). The rules point their plan
// findings at that line and look for their caveats in its section. Without
// a claims table, or with no row reading a TF run, there is no such place:
// findings point at the plan with no line, and a caveat anywhere counts.
type Place struct {
	Doc     *plan.Doc // nil when the snapshot has no plan
	File    string    // the plan's file
	Line    int
	Section string
}

// FindPlace finds the place from the plan check, or from the plan alone
// when the checkout has no claims table.
func FindPlace(p *analysis.Pass, runs []*facts.TFRun) *Place {
	spec := p.Spec
	pl := &Place{File: spec.Plan}
	pc, ok := gate.Analyzer.Lookup(p)
	if !ok {
		pl.Doc, _ = facts.Plan.Lookup(p)
		return pl
	}
	pl.Doc = pc.Doc
	tfRuns := map[string]bool{}
	for _, r := range runs {
		tfRuns[r.Run.Name] = true
	}
	for _, b := range pc.Result.Bindings {
		if b.Status == gate.Stale || b.Token.Line == 0 || !onlyTF(b.Row.MetricRuns(pc.Env), tfRuns) {
			continue
		}
		if pl.Line == 0 || b.Token.Line < pl.Line {
			pl.Line, pl.Section = b.Token.Line, b.Place
		}
	}
	return pl
}

// onlyTF reports whether runs is not empty and every run in it is a TF run.
func onlyTF(runs []string, tf map[string]bool) bool {
	for _, r := range runs {
		if !tf[r] {
			return false
		}
	}
	return len(runs) > 0
}

// Quote returns the text of the plan line quoting the TF figures, "" where
// there is none.
func (pl *Place) Quote() string {
	if pl.Doc == nil || pl.Line < 1 || pl.Line > len(pl.Doc.Lines) {
		return ""
	}
	return strings.TrimSpace(pl.Doc.Lines[pl.Line-1].Text)
}

// Caveat returns where the plan states the caveat with the id, in the
// section of the TF figures.
func (pl *Place) Caveat(id string) (string, bool) {
	if pl.Doc == nil {
		return "", false
	}
	c, ok := pl.Doc.Caveat(id, pl.Section)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s:%d: caveat (%s)", pl.File, c.Line, id), true
}

// Where names the plan section a missing caveat belongs in.
func (pl *Place) Where() string {
	if pl.Section != "" {
		return pl.File + " " + pl.Section
	}
	return pl.File
}

// Value returns a run metric's value and printed text.
func Value(ms *tail.Metrics, name string) (float64, string, bool) {
	if ms == nil {
		return 0, "", false
	}
	m, ok := ms.Get(name)
	return m.Value(), m.Num.Text, ok
}

// State is what the tf and kld rules read, gathered once per pass.
type State struct {
	Report func(finding.Finding) // the pass's Report
	Snap   *archive.Snapshot
	Set    *facts.TFSet
	MS     map[string]*tail.Metrics // parsed tails by run name
	Place  *Place
}

// Load gathers the state of a pass; without teacher-forcing files the
// rule does not apply (the error wraps facts.ErrAbsent).
func Load(p *analysis.Pass) (*State, error) {
	set, ok := facts.TF.Lookup(p)
	if !ok {
		return nil, analysis.NotApplicable("no teacher-forcing files")
	}
	return &State{Report: p.Report, Snap: p.Snap, Set: set, MS: facts.RunMetrics.Of(p), Place: FindPlace(p, set.Runs)}, nil
}

// Add reports a finding of the pass's rule.
func (s *State) Add(sev finding.Severity, check, file string, line int, quote, raw, source, format string, args ...any) {
	s.Report(finding.Finding{Severity: sev, Check: check, File: file, Line: line,
		Quote: quote, Raw: raw, Source: source, Message: fmt.Sprintf(format, args...)})
}

// ConfigOf returns the configuration a TF run belongs to, from the
// runner's table the manifest locates, or the run name when it lists none.
func (s *State) ConfigOf(run string) string {
	if cfg, ok := s.Set.ConfigOf[run]; ok {
		return cfg
	}
	return run
}
