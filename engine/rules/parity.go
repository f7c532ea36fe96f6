package rules

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/tail"
)

// ParityConfig is one route_parity configuration and the largest max error
// the spec allows for it. The engine's route parity is deterministic, so the
// errors themselves must also repeat exactly; the tolerance bounds how far
// the Metal kernels may drift from the reference at all.
type ParityConfig struct {
	Name string  // as reports print it, e.g. "K=512"
	Key  string  // the configuration as the route_parity parser names it
	Tol  float64 // largest max error allowed
}

// ParityConfigs returns the configurations route_parity must report, with
// the spec's tolerances: float32 kernels over d = 2,560 against a float32
// reference, where the audited runs show 2.15e-07–4.00e-07. A tolerance of
// 1e-06 leaves room for reordered reductions and none for a wrong route.
func ParityConfigs() []ParityConfig {
	return []ParityConfig{
		{Name: "K=512", Key: "k512", Tol: 1e-06},
		{Name: "K=256 + MoCE=0.85", Key: "k256_moce085", Tol: 1e-06},
	}
}

// ParityModes returns the math modes route_parity must be run in: the
// default and STRATA_METAL_MATH=fast.
func ParityModes() []string { return []string{"default", "fast"} }

// ParityRepeats is how many times each math mode is run.
const ParityRepeats = 3

// parityRun is one route_parity run as the parity rule reads it.
type parityRun struct {
	Name string // run name
	File string // file the tail is in, relative to the snapshot root
	Mode string // math mode: "default" or "fast"
	Exit int
	// Err holds each configuration's max error, by ParityConfig.Key.
	Err map[string]tail.Metric
	// Verdict holds route_parity's own PASS (1) or FAIL (0) per
	// configuration, where it prints one.
	Verdict map[string]tail.Metric
}

func init() {
	Register(Rule{
		Name: "parity",
		Doc:  "route_parity: max error within tolerance per configuration, identical across repeats, both math modes run and exited 0",
		Check: func(c *Context) ([]finding.Finding, error) {
			runs, err := parityRuns(c)
			if err != nil {
				return nil, err
			}
			configs := ParityConfigs()
			out := checkParity(runs, configs, ParityModes(), ParityRepeats)
			for _, rec := range c.Snap.Parity {
				ms := c.Metrics[rec.File]
				out = append(out, recordErrors("parity", "F41", rec, ms)...)
				out = append(out, parityUndeclared(rec, ms, configs)...)
			}
			return out, nil
		},
	})
}

// checkParity checks route_parity runs against the spec's configurations,
// modes and repeat count. Runs of a mode are repeats in the order given.
func checkParity(runs []parityRun, configs []ParityConfig, modes []string, repeats int) []finding.Finding {
	var out []finding.Finding
	f := func(sev finding.Severity, file string, line int, quote, raw, source, format string, args ...any) {
		out = append(out, finding.Finding{Rule: "parity", ID: "F41", Severity: sev, File: file, Line: line,
			Quote: quote, Raw: raw, Source: source, Message: fmt.Sprintf(format, args...)})
	}
	byMode := map[string][]parityRun{}
	for _, r := range runs {
		byMode[r.Mode] = append(byMode[r.Mode], r)
	}
	for _, r := range runs {
		if !slices.Contains(modes, r.Mode) {
			f(finding.Fail, r.File, 0, "", r.Mode, r.Name, "route_parity run %s: unknown math mode %q (want one of %s)", r.Name, r.Mode, strings.Join(modes, ", "))
		}
	}
	for _, mode := range modes {
		rs := byMode[mode]
		if len(rs) == 0 {
			f(finding.Fail, "", 0, "", "", "", "route_parity %s math: no run; want %d repeats", mode, repeats)
			continue
		}
		if len(rs) != repeats {
			f(finding.Fail, rs[0].File, 0, "", strconv.Itoa(len(rs)), parityNames(rs), "route_parity %s math: %d repeats (%s); want %d", mode, len(rs), parityNames(rs), repeats)
		}
		exitOK := true
		for _, r := range rs {
			if r.Exit != 0 {
				exitOK = false
				f(finding.Fail, r.File, 0, "", strconv.Itoa(r.Exit), r.Name, "route_parity %s math, run %s: exit %d; want 0", mode, r.Name, r.Exit)
			}
		}
		for _, cfg := range configs {
			out = append(out, parityConfig(mode, cfg, rs, exitOK)...)
		}
	}
	return out
}

// parityConfig checks one configuration across the repeats of one mode.
func parityConfig(mode string, cfg ParityConfig, rs []parityRun, exitOK bool) []finding.Finding {
	var out []finding.Finding
	fail := func(r parityRun, m tail.Metric, format string, args ...any) {
		out = append(out, finding.Finding{Rule: "parity", ID: "F41", Severity: finding.Fail, File: r.File, Line: m.Line,
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
		out = append(out, finding.Finding{Rule: "parity", ID: "F41", Severity: finding.Pass, File: firstRun.File, Line: first.Line,
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

// parityRuns reads the route_parity runs: the snapshot's route_parity
// records (math mode from their STRATA_METAL_MATH, exit code from their
// header) and their parsed metrics "<key>.max_abs_err" and "<key>.pass".
func parityRuns(c *Context) ([]parityRun, error) {
	if c.Snap == nil {
		return nil, fmt.Errorf("parity: no snapshot")
	}
	var out []parityRun
	for _, rec := range c.Snap.Parity {
		ms, err := metricsOfRecord(c, rec)
		if err != nil {
			return nil, fmt.Errorf("parity: %w", err)
		}
		mode := rec.Env[ParityMathEnv]
		if mode == "" {
			mode = "default"
		}
		r := parityRun{Name: rec.Name, File: rec.File, Mode: mode, Exit: rec.Exit,
			Err: map[string]tail.Metric{}, Verdict: map[string]tail.Metric{}}
		for _, cfg := range ParityConfigs() {
			if m, ok := ms.Get(cfg.Key + ".max_abs_err"); ok {
				r.Err[cfg.Key] = m
			}
			if m, ok := ms.Get(cfg.Key + ".pass"); ok {
				r.Verdict[cfg.Key] = m
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// ParityMathEnv selects route_parity's math mode; unset is "default".
const ParityMathEnv = "STRATA_METAL_MATH"

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
	add := func(sev finding.Severity, m tail.Metric, format string, args ...any) {
		out = append(out, finding.Finding{Rule: "parity", ID: "F41", Severity: sev, File: rec.File, Line: m.Line,
			Quote: tailLine(rec.Text, m.Line), Source: rec.Name, Message: fmt.Sprintf(format, args...)})
	}
	pass, ok1 := ms.Get("configs_pass")
	total, ok2 := ms.Get("configs_total")
	if ok1 && ok2 && pass.Value() != total.Value() {
		add(finding.Fail, pass, "route_parity run %s: its summary passes %s of %s configurations", rec.Name, pass.Num.Text, total.Num.Text)
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
		add(finding.Warn, m, "route_parity run %s reports configuration %s (max err %s), which the spec declares no tolerance for: not checked", rec.Name, key, m.Num.Text)
	}
	return out
}

// recordErrors turns the parse errors of a record beside the results (a
// route_parity log, the self-test output) into fail findings at the
// record's file and line: a line the parser could not read is never passed
// over in silence.
func recordErrors(rule, id string, rec *archive.Record, ms *tail.Metrics) []finding.Finding {
	if ms == nil {
		return nil
	}
	var out []finding.Finding
	for _, e := range ms.Errors {
		out = append(out, finding.Finding{Rule: rule, ID: id, Severity: finding.Fail, File: rec.File, Line: e.Line,
			Quote: tailLine(rec.Text, e.Line), Source: rec.Name,
			Message: fmt.Sprintf("%s: %s", rec.File, e.Msg)})
	}
	return out
}

// metricsOfRecord returns the parsed metrics of a record beside the results
// (a route_parity log, the self-test output), which the audit keys by the
// record's file. Missing metrics are an error: the rule cannot read its input.
func metricsOfRecord(c *Context, rec *archive.Record) (*tail.Metrics, error) {
	if ms := c.Metrics[rec.File]; ms != nil {
		return ms, nil
	}
	return nil, fmt.Errorf("%s: no parsed metrics for this record", rec.File)
}
