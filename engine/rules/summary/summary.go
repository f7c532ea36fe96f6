// Package summary holds the summary rule: the runner's per-run dicts and
// summary rows (located by "rules": {"summary": …} in the checkout's spec)
// equal an independent parse of the tails.
package summary

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/rules/internal/runnertables"
	"github.com/strataspec/strataspec/engine/tables"
	"github.com/strataspec/strataspec/engine/tail"
)

// Summary checks the runner's own per-run tables and summary rows against
// an independent parse of the tails: every value the runner wrote for a
// run must be what the run's tail prints.
var Summary = &analysis.Analyzer{
	Name:     "summary",
	Doc:      "the runner's per-run dicts and summary rows equal an independent parse of the tails (declared fields within the runner's rounding)",
	Fix:      "recompute the runner's summaries from the tails it archived",
	Requires: []*analysis.Analyzer{facts.Results.Analyzer, facts.RunMetrics.Analyzer},
	Run:      runSummary,
}

// SummarySettings are the summary rule's settings ("rules": {"summary": …}).
type SummarySettings struct {
	// Runs locates the per-run dicts, an object keyed by run name.
	Runs tables.Loc `json:"runs"`
	// Metric names the runs that must each have a dict: every run whose
	// metrics include it (a vocabulary name, e.g. "arena_gb" for the
	// engine's runs), whoever produced them.
	Metric string `json:"metric"`
	// Rows locate summary tables: arrays of rows, each naming its run in
	// the member RowRun (default "run"); RowsName names them in messages.
	Rows     []tables.Loc `json:"rows,omitempty"`
	RowRun   string       `json:"row_run,omitempty"`
	RowsName string       `json:"rows_name,omitempty"`
	// Rounding lists fields the runner rounds: within half a unit of the
	// last of Decimals digits they equal the tail.
	Rounding []Rounding `json:"rounding,omitempty"`
	// Checks names the sub-check of chosen runs (for their audit ids) and
	// how their pass finding reads.
	Checks map[string]RunCheck `json:"checks,omitempty"`
}

// Rounding is a field the runner rounds to Decimals digits; Label names it
// in messages.
type Rounding struct {
	Field    string `json:"field"`
	Label    string `json:"label"`
	Decimals int    `json:"decimals"`
}

// RunCheck is the sub-check of one run's dict and rows.
type RunCheck struct {
	Check string `json:"check"`
	// Exact: the pass finding says the fields are exact, with Label, and
	// every summary row of the run gets a pass finding too.
	Exact bool   `json:"exact,omitempty"`
	Label string `json:"label,omitempty"`
	// Split counts the fields named Prefix…Suffix apart, as the values of
	// the tail's Line line.
	Split *Split `json:"split,omitempty"`
}

// Split names a group of fields the runner copies from one tail line.
type Split struct {
	Prefix string `json:"prefix"`
	Suffix string `json:"suffix,omitempty"`
	Line   string `json:"line"`
}

// Validate checks the settings.
func (s *SummarySettings) Validate(spec *checkout.Spec) error {
	if s.Runs.Path == "" || s.Metric == "" {
		return spec.RuleErrorf("summary", `needs "runs" (the per-run dicts) and "metric" (the metric of the runs that have one)`)
	}
	if s.RowRun == "" {
		s.RowRun = "run"
	}
	if s.RowsName == "" {
		s.RowsName = "summary rows"
	}
	for _, r := range s.Rounding {
		if r.Field == "" || r.Label == "" || r.Decimals < 0 {
			return spec.RuleErrorf("summary", `a rounding needs "field", "label" and "decimals" ≥ 0`)
		}
	}
	for run, c := range s.Checks {
		if c.Check == "" || c.Exact && c.Label == "" || c.Split != nil && (c.Split.Prefix == "" || c.Split.Line == "") {
			return spec.RuleErrorf("summary", `checks.%s needs "check", a "label" when exact, and a split's "prefix" and "line"`, run)
		}
	}
	return nil
}

func runSummary(p *analysis.Pass) (any, error) {
	var cfg SummarySettings
	t, err := runnertables.Read(p, "summary", "runner tables", &cfg)
	if err != nil {
		return nil, err
	}
	s := &summary{Tables: t, cfg: cfg}
	p.ReportAll(s.tailErrors())
	fs, err := s.check()
	if err != nil {
		return nil, err
	}
	p.ReportAll(fs)
	return nil, nil
}

type summary struct {
	*runnertables.Tables
	cfg SummarySettings
}

// tailErrors turns every parse error of every run's tail into a fail
// finding at the tail's file and line.
func (s *summary) tailErrors() []finding.Finding {
	var out []finding.Finding
	for _, r := range s.Snap.Runs {
		ms := s.MS[r.Name]
		if ms == nil {
			out = append(out, finding.Finding{Severity: finding.Fail, Check: "tail", File: r.Source,
				Message: fmt.Sprintf("run %s: its tail was not parsed", r.Name)})
			continue
		}
		for _, e := range ms.Errors {
			out = append(out, finding.Finding{Severity: finding.Fail, Check: "tail", File: r.Source, Line: e.Line,
				Quote: finding.Clip(r.TailLine(e.Line)), Source: r.Name,
				Message: fmt.Sprintf("run %s: tail line %d: %s", r.Name, e.Line, e.Msg)})
		}
	}
	return out
}

func (s *summary) check() ([]finding.Finding, error) {
	var out []finding.Finding
	perRun, err := s.Table(s.cfg.Runs)
	if err != nil {
		return nil, err
	}
	file := s.cfg.Runs.File
	if file == "" && len(s.Docs.Files) > 0 {
		file = s.Docs.Files[0]
	}
	if perRun != nil {
		file = perRun.File
		for _, d := range perRun.Rows {
			if _, err := s.Run(perRun, d.Line, d.Path, d.Key); err != nil {
				return nil, err
			}
		}
	}
	runs := facts.RunsWith(s.Snap, s.MS, s.cfg.Metric)
	bad := 0
	for _, r := range runs {
		c := s.cfg.Checks[r.Name]
		d := perRun.Row(r.Name)
		if d == nil {
			bad++
			out = append(out, finding.Finding{Severity: finding.Fail, Check: c.Check, File: file,
				Source: r.Name, Message: fmt.Sprintf("run %s has no %s dict", r.Name, s.cfg.Runs.Path)})
			continue
		}
		fs := s.compare(file, r, d, s.cfg.Runs.Path+"."+r.Name, c.Check)
		out = append(out, fs...)
		if len(fs) > 0 {
			bad++
			continue
		}
		out = append(out, s.pass(file, r, d, c))
	}
	// Summary rows equal the tails.
	rowsBad, nRows, firstLine := 0, 0, 0
	for _, loc := range s.cfg.Rows {
		tb, err := s.Table(loc)
		if err != nil {
			return nil, err
		}
		if tb == nil {
			out = append(out, s.Absent("", loc))
			continue
		}
		for _, row := range tb.Rows {
			name, ok := row.Strings[s.cfg.RowRun]
			if !ok {
				return nil, &archive.Error{File: tb.File, Line: row.Line, Path: row.Path, Msg: fmt.Sprintf("a row needs %q, naming its run", s.cfg.RowRun)}
			}
			r, err := s.Run(tb, row.Line, row.Path, name)
			if err != nil {
				return nil, err
			}
			if nRows == 0 {
				firstLine = row.Line
			}
			nRows++
			c := s.cfg.Checks[name]
			fs := s.compare(tb.File, r, row, row.Path, c.Check)
			out = append(out, fs...)
			rowsBad += len(fs)
			if c.Exact && len(fs) == 0 {
				out = append(out, finding.Finding{Severity: finding.Pass, Check: c.Check, File: tb.File, Line: row.Line,
					Source: r.Source, Message: fmt.Sprintf("%s row of %s: %d fields exact against the tail", s.cfg.RowsName, name, len(row.Fields))})
			}
		}
	}
	if bad == 0 && len(runs) > 0 {
		out = append(out, finding.Finding{Severity: finding.Pass, File: file,
			Message: fmt.Sprintf("%s dicts of all %d runs with %s equal the independent parse%s", s.cfg.Runs.Path, len(runs), s.cfg.Metric, s.roundingNote())})
	}
	if rowsBad == 0 && nRows > 0 {
		out = append(out, finding.Finding{Severity: finding.Pass, File: file,
			Line: firstLine, Message: fmt.Sprintf("%s: 0 mismatches in %d rows against the raw runs", s.cfg.RowsName, nRows)})
	}
	return out, nil
}

// roundingNote says which fields differ by the runner's rounding only.
func (s *summary) roundingNote() string {
	var notes []string
	for _, r := range s.cfg.Rounding {
		notes = append(notes, fmt.Sprintf("%s differs by %d-dp rounding only", r.Label, r.Decimals))
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}

// rounding returns the runner's rounding of a field, if it declares one.
func (s *summary) rounding(name string) (Rounding, bool) {
	for _, r := range s.cfg.Rounding {
		if r.Field == name {
			return r, true
		}
	}
	return Rounding{}, false
}

// equal compares a runner value with the parsed metric: equal values, or
// for a rounded field within half a unit of its last digit.
func (s *summary) equal(runner tables.Field, m tail.Metric) (ok, rounded bool) {
	if runner.Null {
		return false, false
	}
	a, b := runner.Value(), m.Value()
	if a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) {
		return true, false
	}
	if r, ok := s.rounding(runner.Name); ok && math.Abs(a-b) <= 0.5*math.Pow10(-r.Decimals)+1e-9 {
		return true, true
	}
	return false, false
}

// compare compares every field of a runner dict with the run's parsed tail
// and returns the mismatches as fail findings.
func (s *summary) compare(file string, r *archive.Run, d *tables.Dict, path, check string) []finding.Finding {
	ms := s.MS[r.Name]
	var out []finding.Finding
	for _, f := range d.Fields {
		m, ok := ms.Get(f.Name)
		if !ok {
			out = append(out, finding.Finding{Severity: finding.Fail, Check: check, File: file, Line: f.Line,
				Quote: f.Num.Text, Source: r.Source,
				Message: fmt.Sprintf("%s.%s = %s, but the tail of run %s prints no %s", path, f.Name, f.Text(), r.Name, f.Name)})
			continue
		}
		if eq, _ := s.equal(f, m); !eq {
			out = append(out, finding.Finding{Severity: finding.Fail, Check: check, File: file, Line: f.Line,
				Quote: f.Num.Text, Raw: m.Num.Text, Source: fmt.Sprintf("%s line %d", r.Source, m.Line),
				Message: fmt.Sprintf("run %s field %s: runner %s = %s, tail line %d prints %s", r.Name, f.Name, path, f.Text(), m.Line, m.Num.Text)})
		}
	}
	return out
}

// pass is the pass finding of a run whose dict equals its tail.
func (s *summary) pass(file string, r *archive.Run, d *tables.Dict, c RunCheck) finding.Finding {
	ms := s.MS[r.Name]
	var notes []string
	for _, f := range d.Fields {
		rd, ok := s.rounding(f.Name)
		if !ok {
			continue
		}
		m, _ := ms.Get(f.Name)
		if _, rounded := s.equal(f, m); rounded {
			notes = append(notes, fmt.Sprintf("%s %s vs %s: %d-dp rounding", rd.Label, f.Num.Text, m.Num.Text, rd.Decimals))
		}
	}
	path := s.cfg.Runs.Path
	msg := fmt.Sprintf("%s.%s: %d fields equal the tail", path, r.Name, len(d.Fields))
	switch {
	case c.Split != nil:
		var group []string
		derived := 0
		for _, f := range d.Fields {
			if !strings.HasPrefix(f.Name, c.Split.Prefix) || !strings.HasSuffix(f.Name, c.Split.Suffix) {
				derived++
				continue
			}
			text := f.Num.Text
			if m, ok := ms.Get(f.Name); ok {
				text = m.Num.Text
			}
			group = append(group, strings.TrimSuffix(strings.TrimPrefix(f.Name, c.Split.Prefix), c.Split.Suffix)+" "+text)
		}
		msg = fmt.Sprintf("%s.%s: all %d derived fields equal the raw", path, r.Name, derived)
		if len(group) > 0 {
			msg += fmt.Sprintf("; %s equal the %s line", strings.Join(group, ", "), c.Split.Line)
		}
	case c.Exact:
		msg = fmt.Sprintf("%s.%s (%s): %d fields exact against the tail", path, r.Name, c.Label, len(d.Fields))
	}
	if len(notes) > 0 {
		sort.Strings(notes)
		msg += " (" + strings.Join(notes, "; ") + ")"
	}
	return finding.Finding{Severity: finding.Pass, Check: c.Check, File: file, Line: d.Line, Source: r.Source, Message: msg}
}
