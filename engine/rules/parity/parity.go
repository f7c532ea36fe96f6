// Package parity holds the parity rule, about route parity: for each
// configuration the checkout's spec declares ("rules": {"parity": …}), the
// max error is within its tolerance, identical across repeats, and both
// math modes ran and exited 0.
package parity

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/tail"
)

// Parity checks the route_parity records against the configurations,
// tolerances, math modes and repeat count the spec declares.
var Parity = &analysis.Analyzer{
	Name:     "parity",
	Doc:      "route_parity: max error within tolerance per configuration, identical across repeats, both math modes run and exited 0",
	Fix:      "keep route_parity errors within tolerance and identical across repeats and math modes",
	Requires: []*analysis.Analyzer{facts.RecordMetrics.Analyzer},
	Metrics:  []string{"<config>.max_abs_err", "<config>.pass", "configs_pass", "configs_total"},
	Run:      runParity,
}

// ParitySettings are the parity rule's settings ("rules": {"parity": …}).
type ParitySettings struct {
	// Configs are the configurations route_parity must report, each with
	// the largest max error allowed.
	Configs []ParityConfig `json:"configs"`
	// ModeEnv is the environment variable selecting the math mode;
	// DefaultMode is the mode when it is unset.
	ModeEnv     string `json:"mode_env"`
	DefaultMode string `json:"default_mode"`
	// Modes are the math modes route_parity must be run in.
	Modes []string `json:"modes"`
	// Repeats is how many times each mode is run: the engine's route parity
	// is deterministic, so the repeats' errors must be identical.
	Repeats int `json:"repeats"`
}

// ParityConfig is one route_parity configuration and its tolerance.
type ParityConfig struct {
	Name string  `json:"name"` // as reports print it, e.g. "K=512"
	Key  string  `json:"key"`  // as the route_parity parser names it (tail.ParityKey), e.g. "k512"
	Tol  float64 `json:"tolerance"`
}

func (s ParitySettings) Validate(spec *checkout.Spec) error {
	switch {
	case len(s.Configs) == 0:
		return spec.RuleErrorf("parity", `no "configs"`)
	case len(s.Modes) == 0:
		return spec.RuleErrorf("parity", `no "modes"`)
	case s.Repeats < 1:
		return spec.RuleErrorf("parity", `"repeats" must be at least 1, found %d`, s.Repeats)
	}
	for _, c := range s.Configs {
		if c.Name == "" || c.Key == "" || !(c.Tol > 0) {
			return spec.RuleErrorf("parity", `configuration %q needs "name", "key" and a "tolerance" above 0`, c.Name)
		}
	}
	return nil
}

// parityRun is one route_parity run as the parity rule reads it.
type parityRun struct {
	Name string // run name
	File string // file the tail is in, relative to the snapshot root
	Mode string // math mode; "" when the environment was not recorded
	Exit int
	// NoExit is set when the record gives no exit status.
	NoExit bool
	// Err holds each configuration's max error, by ParityConfig.Key.
	Err map[string]tail.Metric
	// Verdict holds route_parity's own PASS (1) or FAIL (0) per
	// configuration, where it prints one.
	Verdict map[string]tail.Metric
}

func runParity(p *analysis.Pass) (any, error) {
	var cfg ParitySettings
	if err := analysis.Settings(p, "parity", "route_parity configurations", &cfg); err != nil {
		return nil, err
	}
	snap := p.Snap
	recs := facts.RecordMetrics.Of(p)
	runs, err := parityRuns(snap.Parity, recs, cfg)
	if err != nil {
		return nil, err
	}
	p.ReportAll(checkParity(runs, cfg))
	for _, rec := range snap.Parity {
		ms := recs[rec.Key()]
		p.ReportAll(recordErrors(rec, ms))
		p.ReportAll(parityUndeclared(rec, ms, cfg.Configs))
	}
	return nil, nil
}

// checkParity checks route_parity runs against the spec's configurations,
// modes and repeat count. Runs of a mode are repeats in the order given.
func checkParity(runs []parityRun, cfg ParitySettings) []finding.Finding {
	var out []finding.Finding
	f := func(sev finding.Severity, check, file, raw, source, format string, args ...any) {
		out = append(out, finding.Finding{Severity: sev, Check: check, File: file,
			Raw: raw, Source: source, Message: fmt.Sprintf(format, args...)})
	}
	byMode := map[string][]parityRun{}
	for _, r := range runs {
		byMode[r.Mode] = append(byMode[r.Mode], r)
	}
	for _, r := range runs {
		switch {
		case r.Mode == "":
			f(finding.Fail, "mode", r.File, "", r.Name, "route_parity run %s: no environment recorded (no header, no sidecar run record), so its math mode is unknown", r.Name)
		case !slices.Contains(cfg.Modes, r.Mode):
			f(finding.Fail, "mode", r.File, r.Mode, r.Name, "route_parity run %s: unknown math mode %q (want one of %s)", r.Name, r.Mode, strings.Join(cfg.Modes, ", "))
		}
	}
	for _, mode := range cfg.Modes {
		rs := byMode[mode]
		if len(rs) == 0 {
			f(finding.Fail, "repeats", "", "", "", "route_parity %s math: no run; want %d repeats", mode, cfg.Repeats)
			continue
		}
		if len(rs) != cfg.Repeats {
			f(finding.Fail, "repeats", rs[0].File, strconv.Itoa(len(rs)), parityNames(rs), "route_parity %s math: %d repeats (%s); want %d", mode, len(rs), parityNames(rs), cfg.Repeats)
		}
		exitOK := true
		for _, r := range rs {
			switch {
			case r.NoExit:
				exitOK = false
				f(finding.Fail, "exit", r.File, "", r.Name, "route_parity %s math, run %s: no exit status recorded (no header, no sidecar run record); want 0", mode, r.Name)
			case r.Exit != 0:
				exitOK = false
				f(finding.Fail, "exit", r.File, strconv.Itoa(r.Exit), r.Name, "route_parity %s math, run %s: exit %d; want 0", mode, r.Name, r.Exit)
			}
		}
		for _, c := range cfg.Configs {
			out = append(out, parityConfig(mode, c, rs, exitOK)...)
		}
	}
	return out
}

// parityConfig checks one configuration across the repeats of one mode.
func parityConfig(mode string, cfg ParityConfig, rs []parityRun, exitOK bool) []finding.Finding {
	var out []finding.Finding
	fail := func(r parityRun, m tail.Metric, format string, args ...any) {
		out = append(out, finding.Finding{Severity: finding.Fail, Check: "config", File: r.File, Line: m.Line,
			Quote: m.Num.Text, Raw: m.Num.Text, Source: r.Name, Message: fmt.Sprintf(format, args...)})
	}
	label := fmt.Sprintf("route_parity %s math, %s", mode, cfg.Name)
	var first tail.Metric
	var firstRun parityRun
	firstRepeat, have := 0, 0
	ok := exitOK
	for i, r := range rs {
		m, found := r.Err[cfg.Key]
		if !found {
			ok = false
			fail(r, m, "%s: repeat %d (run %s) reports no max error", label, i+1, r.Name)
			continue
		}
		if v, printed := r.Verdict[cfg.Key]; printed && v.Value() != 1 {
			ok = false
			fail(r, v, "%s: repeat %d (run %s): route_parity itself reports FAIL", label, i+1, r.Name)
		}
		switch v := m.Value(); {
		case v < 0 || math.IsNaN(v):
			ok = false
			fail(r, m, "%s: repeat %d (run %s) max err %s is not an error magnitude", label, i+1, r.Name, m.Num.Text)
		case v > cfg.Tol:
			ok = false
			fail(r, m, "%s: repeat %d (run %s) max err %s above the tolerance %s", label, i+1, r.Name, m.Num.Text, parityTol(cfg.Tol))
		}
		if have == 0 {
			first, firstRun, firstRepeat = m, r, i+1
		} else if m.Num.Text != first.Num.Text || m.Value() != first.Value() {
			ok = false
			fail(r, m, "%s: repeat %d (run %s) max err %s differs from repeat %d (run %s) %s; repeats must be identical",
				label, i+1, r.Name, m.Num.Text, firstRepeat, firstRun.Name, first.Num.Text)
		}
		have++
	}
	if ok && have == len(rs) {
		out = append(out, finding.Finding{Severity: finding.Pass, Check: "config", File: firstRun.File, Line: first.Line,
			Quote: first.Num.Text, Raw: first.Num.Text, Source: parityNames(rs),
			Message: fmt.Sprintf("%s: max err %s ≤ %s, identical in %d repeats, all exit 0", label, first.Num.Text, parityTol(cfg.Tol), len(rs))})
	}
	return out
}

func parityNames(rs []parityRun) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name
	}
	return strings.Join(names, ", ")
}

func parityTol(t float64) string { return strconv.FormatFloat(t, 'e', -1, 64) }

// parityRuns reads the route_parity runs: each record's math mode from
// its environment (the spec's mode variable; unset is the default mode),
// its exit status, and its parsed metrics "<key>.max_abs_err" and
// "<key>.pass". A record without parsed metrics is input the rule cannot
// read: an error naming the file.
func parityRuns(recs []*archive.Record, ms map[string]*tail.Metrics, cfg ParitySettings) ([]parityRun, error) {
	var out []parityRun
	for _, rec := range recs {
		m := ms[rec.Key()]
		if m == nil {
			return nil, fmt.Errorf("%s: no parsed metrics for this record", rec.File)
		}
		mode := ""
		if rec.Env != nil {
			mode = rec.Env[cfg.ModeEnv]
			if mode == "" {
				mode = cfg.DefaultMode
			}
		}
		r := parityRun{Name: rec.Name, File: rec.File, Mode: mode, Exit: rec.Exit, NoExit: !rec.HasExit,
			Err: map[string]tail.Metric{}, Verdict: map[string]tail.Metric{}}
		for _, c := range cfg.Configs {
			if v, ok := m.Get(c.Key + ".max_abs_err"); ok {
				r.Err[c.Key] = v
			}
			if v, ok := m.Get(c.Key + ".pass"); ok {
				r.Verdict[c.Key] = v
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// parityUndeclared checks what a route_parity log reports beyond the
// declared configurations: its own summary must count every configuration
// as passing (a FAIL the spec has no row for is still a FAIL), and a
// configuration the spec does not declare is reported as unchecked (warn),
// since no tolerance binds it.
func parityUndeclared(rec *archive.Record, ms *tail.Metrics, configs []ParityConfig) []finding.Finding {
	if ms == nil {
		return nil
	}
	var out []finding.Finding
	add := func(sev finding.Severity, check string, m tail.Metric, format string, args ...any) {
		out = append(out, finding.Finding{Severity: sev, Check: check, File: rec.File, Line: m.Line,
			Quote: archive.Line(rec.Text, m.Line), Source: rec.Name, Message: fmt.Sprintf(format, args...)})
	}
	pass, ok1 := ms.Get("configs_pass")
	total, ok2 := ms.Get("configs_total")
	if ok1 && ok2 && pass.Value() != total.Value() {
		add(finding.Fail, "summary", pass, "route_parity run %s: its summary passes %s of %s configurations", rec.Name, pass.Num.Text, total.Num.Text)
	}
	declared := map[string]bool{}
	for _, c := range configs {
		declared[c.Key] = true
	}
	for _, m := range ms.List {
		key, ok := strings.CutSuffix(m.Name, ".max_abs_err")
		if !ok || declared[key] {
			continue
		}
		add(finding.Warn, "undeclared", m, "route_parity run %s reports configuration %s (max err %s), which the spec declares no tolerance for: not checked", rec.Name, key, m.Num.Text)
	}
	return out
}

// recordErrors turns the parse errors of a record beside the results into
// fail findings at the record's file and line: a line the parser could not
// read is never passed over in silence.
func recordErrors(rec *archive.Record, ms *tail.Metrics) []finding.Finding {
	if ms == nil {
		return nil
	}
	var out []finding.Finding
	for _, e := range ms.Errors {
		out = append(out, finding.Finding{Severity: finding.Fail, Check: "record", File: rec.File, Line: e.Line,
			Quote: archive.Line(rec.Text, e.Line), Source: rec.Name,
			Message: fmt.Sprintf("%s: %s", rec.File, e.Msg)})
	}
	return out
}
