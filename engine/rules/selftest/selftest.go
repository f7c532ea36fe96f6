// Package selftest holds the rule about the runner's --self-test: its
// verdict is exactly the runner's PASS line, and the eviction it checks is
// checked by its effect (residency), not by a return value. It belongs to
// the invariants family.
package selftest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/source"
	"github.com/strataspec/strataspec/engine/tail"
)

// DefaultPassLine is the PASS line looked for when the runner's source
// does not show one.
const DefaultPassLine = "self-test: PASS"

// Config is the rule's settings, "rules": {"selftest": {…}} in the spec.
type Config struct {
	// Runner is the runner's source, relative to the root.
	Runner string `json:"runner,omitempty"`
	// Function is the self-test function's name; by default the first
	// function named self_test, selftest, _self_test….
	Function string `json:"function,omitempty"`
	// PassLine is the verdict the self-test prints on success; by default
	// the string literal holding "self-test" and "PASS" the function
	// prints, or DefaultPassLine.
	PassLine string `json:"pass_line,omitempty"`
}

// SelfTest is the rule.
var SelfTest = &analysis.Analyzer{
	Name:     "selftest",
	Doc:      "runner --self-test: the verdict is exactly the runner's PASS line; eviction is asserted by its effect, not a return value",
	Fix:      "make the self-test print its exact PASS line and check eviction by residency, not a return value",
	Requires: []*analysis.Analyzer{facts.RecordMetrics.Analyzer, facts.Sources.Analyzer},
	Metrics:  []string{"verdict_pass", "checks_ok", "checks_failed"},
	Run:      run,
}

func run(p *analysis.Pass) (any, error) {
	var cfg Config
	if _, err := analysis.OptionalSettings(p, &cfg); err != nil {
		return nil, err
	}
	snap := p.Snap
	if snap.SelfTest == nil && cfg.Runner == "" {
		return nil, analysis.NoSettings("no self-test record (records.selftest) and no runner source (rules.selftest.runner) in %s", checkout.File)
	}
	var fn *Func
	if cfg.Runner != "" {
		srcs := facts.Sources.Of(p)
		f, err := srcs.File(cfg.Runner)
		if err != nil && !errors.Is(err, facts.ErrAbsent) {
			return nil, err
		}
		fn = find(f, cfg)
	}
	out, err := Output(p, snap.SelfTest)
	if err != nil {
		return nil, err
	}
	pass := cfg.PassLine
	if pass == "" {
		pass = fn.PassLine()
	}
	for _, f := range Check(out, pass, cfg.Runner) {
		p.Report(f)
	}
	if cfg.Runner != "" {
		p.Report(CheckEviction(fn, cfg.Runner))
	}
	if rec := snap.SelfTest; rec != nil {
		ms := facts.RecordMetrics.Of(p)
		for _, e := range recordErrors(rec, ms[rec.Key()]) {
			p.Report(e)
		}
	}
	return nil, nil
}

// Result is the runner's --self-test output as the rule reads it.
type Result struct {
	File    string // the output's file, relative to the root; "" if absent
	Exit    int
	Verdict tail.Metric // verdict_pass: the verdict line; zero Metric if none
	// VerdictText is the text of the verdict line, as printed.
	VerdictText  string
	ChecksOK     tail.Metric
	ChecksFailed tail.Metric
}

// Output reads the self-test record's parsed metrics (verdict_pass,
// checks_ok, checks_failed); the verdict line's text is the record's line
// at the metric's line number.
func Output(p *analysis.Pass, rec *archive.Record) (Result, error) {
	if rec == nil {
		return Result{}, nil
	}
	all := facts.RecordMetrics.Of(p)
	ms := all[rec.Key()]
	if ms == nil {
		return Result{}, fmt.Errorf("%s: no parsed metrics for this record", rec.File)
	}
	r := Result{File: rec.File, Exit: rec.Exit}
	r.Verdict, _ = ms.Get("verdict_pass")
	r.ChecksOK, _ = ms.Get("checks_ok")
	r.ChecksFailed, _ = ms.Get("checks_failed")
	if r.Verdict.Line > 0 {
		lines := strings.Split(rec.Text, "\n")
		if r.Verdict.Line > len(lines) {
			return r, fmt.Errorf("%s: verdict at line %d of a %d-line file", rec.File, r.Verdict.Line, len(lines))
		}
		r.VerdictText = lines[r.Verdict.Line-1]
	}
	return r, nil
}

// recordErrors turns the record's parse errors into fail findings at its
// file and line: a line the parser could not read is never passed over.
func recordErrors(rec *archive.Record, ms *tail.Metrics) []finding.Finding {
	if ms == nil {
		return nil
	}
	var out []finding.Finding
	for _, e := range ms.Errors {
		out = append(out, finding.Finding{Severity: finding.Fail, Check: "verdict", File: rec.File, Line: e.Line,
			Quote: archive.Line(rec.Text, e.Line), Source: rec.Name, Message: fmt.Sprintf("%s: %s", rec.File, e.Msg)})
	}
	return out
}

// Func is the runner's self-test function: its file and lines.
type Func struct {
	File       *source.File
	Start, End int // 1-based, inclusive
}

var selftestName = regexp.MustCompile(`^_?self_?test\w*$`)

// find returns the self-test function of f, nil when f is nil or has none.
func find(f *source.File, cfg Config) *Func {
	if f == nil {
		return nil
	}
	for _, fn := range f.Funcs {
		if cfg.Function == fn.Name || cfg.Function == "" && selftestName.MatchString(fn.Name) {
			return &Func{File: f, Start: fn.Start, End: fn.End}
		}
	}
	return &Func{File: f}
}

// PassLine returns the PASS line the self-test prints: the string literal
// with "self-test" and "PASS" on a print line of the function (of the whole
// file when there is no function), or DefaultPassLine.
func (fn *Func) PassLine() string {
	if fn == nil {
		return DefaultPassLine
	}
	start, end := fn.Start, fn.End
	if start == 0 {
		start, end = 1, len(fn.File.Lines)
	}
	for l := start; l <= end; l++ {
		if !strings.Contains(fn.File.Code[l-1], "print(") {
			continue
		}
		for _, lit := range fn.File.Strings[l-1] {
			if strings.Contains(lit, "self-test") && strings.Contains(lit, "PASS") {
				return lit
			}
		}
	}
	return DefaultPassLine
}
