// Package runnertables reads the runner's own tables (per-run dicts,
// summary rows, derivation tables) for the rules that check them against
// the tails, summary and derive: the settings that locate them, the results
// JSON that holds them, and every run's parsed tail.
package runnertables

import (
	"errors"
	"fmt"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tables"
	"github.com/strataspec/strataspec/engine/tail"
)

// Tables reads the runner's tables the settings locate, and every run's
// parsed tail.
type Tables struct {
	Snap *archive.Snapshot
	Docs *facts.ResultsDocs
	MS   map[string]*tail.Metrics // parsed tails by run name
}

// Read decodes the rule's settings into cfg (see analysis.Settings)
// and reads the facts the runner's tables are checked against.
func Read(p *analysis.Pass, rule, what string, cfg analysis.Validator) (*Tables, error) {
	if err := analysis.Settings(p, rule, what, cfg); err != nil {
		return nil, err
	}
	snap := p.Snap
	// The tables may be in any JSON file of the checkout: a location
	// names its file, or means the first results file.
	docs := facts.Results.Of(p)
	ms := facts.RunMetrics.Of(p)
	return &Tables{Snap: snap, Docs: docs, MS: ms}, nil
}

// Table reads the table at loc; nil when the results file does not have it.
func (t *Tables) Table(loc tables.Loc) (*tables.Table, error) {
	if loc.Path == "" {
		return nil, nil
	}
	tb, err := t.Docs.Table(loc)
	if errors.Is(err, tables.ErrMissing) {
		return nil, nil
	}
	return tb, err
}

// Absent is the warning about a table the spec declares and the results
// file does not have: what it would have checked is not checked.
func (t *Tables) Absent(check string, loc tables.Loc) finding.Finding {
	file := loc.File
	if file == "" && len(t.Docs.Files) > 0 {
		file = t.Docs.Files[0]
	}
	if file == "" {
		return finding.Finding{Severity: finding.Warn, Check: check, Quote: loc.Path,
			Message: fmt.Sprintf("the spec declares the runner's table %s in no file, and the snapshot has no results JSON: not checked", loc.Path)}
	}
	return finding.Finding{Severity: finding.Warn, Check: check, File: file, Quote: loc.Path,
		Message: fmt.Sprintf("the spec declares the runner's table %s, which %s does not have: not checked", loc.Path, file)}
}

// Run returns the run a table names (a row key or member), or an error
// at the table's place.
func (t *Tables) Run(tb *tables.Table, line int, path, name string) (*archive.Run, error) {
	if r := t.Snap.Run(name); r != nil {
		return r, nil
	}
	return nil, &archive.Error{File: tb.File, Line: line, Path: path, Msg: fmt.Sprintf("no run named %q in runs", name)}
}

// Mean returns the mean of vs.
func Mean(vs []float64) float64 {
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

// Printed formats v at the precision of n, with thousands separators.
func Printed(v float64, n num.Number) string { return num.Format(v, n.Decimals) }
