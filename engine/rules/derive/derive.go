// Package derive holds the derive rule: the runner's derived fields
// (pure_gpu, miss reductions, KLD macros, copied fields) recompute by the
// derivations "rules": {"derive": …} in the checkout's spec declares.
package derive

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
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/rules/internal/runnertables"
	"github.com/strataspec/strataspec/engine/tables"
	"github.com/strataspec/strataspec/engine/tail"
)

// Derive recomputes the runner's derived fields from the tails by the
// derivations the spec declares: differences of two metrics, reductions
// between two runs, means over runs, and copies (or quotients) of values
// the runner read from other programs' tails.
var Derive = &analysis.Analyzer{
	Name:     "derive",
	Doc:      "the runner's derived fields recompute from the tails by the spec's declared derivations (differences, reductions, means, copies)",
	Fix:      "recompute derived fields from the raw values they derive from",
	Requires: []*analysis.Analyzer{facts.Results.Analyzer, facts.RunMetrics.Analyzer},
	Run:      runDerive,
}

// DeriveSettings are the derive rule's settings ("rules": {"derive": …}):
// the runner's derivations, each with the sub-check its findings carry.
type DeriveSettings struct {
	Differences []Difference `json:"differences,omitempty"`
	Reductions  []Reduction  `json:"reductions,omitempty"`
	Means       []Mean       `json:"means,omitempty"`
	Copies      []Copy       `json:"copies,omitempty"`
	// StepMetrics maps a field of a copied step to the tail metrics it is
	// read from, in order of preference.
	StepMetrics map[string][]string `json:"step_metrics,omitempty"`
	// StepRatios maps a field of a copied step to a quotient of two tail
	// metrics.
	StepRatios map[string]Ratio `json:"step_ratios,omitempty"`
}

// Operand is a tail metric and its name in messages.
type Operand struct {
	Metric string `json:"metric"`
	Label  string `json:"label"`
}

// Difference: the field Field of every per-run dict in Table equals
// Minuend − Subtrahend from the run's tail.
type Difference struct {
	Check      string     `json:"check"`
	Table      tables.Loc `json:"table"`
	Field      string     `json:"field"`
	Label      string     `json:"label"`
	Minuend    Operand    `json:"minuend"`
	Subtrahend Operand    `json:"subtrahend"`
}

// Reduction: each field "<A><Separator><B>" of the dict Table is the
// percentage by which run A's Metric is below run B's, 100 × (1 − a/b),
// where A and B are the runs of the rows of Configs whose ConfigKey
// member is A and B.
type Reduction struct {
	Check     string     `json:"check"`
	Label     string     `json:"label"`
	Table     tables.Loc `json:"table"`
	Configs   tables.Loc `json:"configs"`
	ConfigKey string     `json:"config_key"`
	RunKey    string     `json:"run_key"`
	Separator string     `json:"separator"`
	Metric    Operand    `json:"metric"`
}

// Mean: each row of Table lists its runs (RunsKey) and, per value, the
// runs' values and their mean, which must equal the tails; the rows of
// Summary (by the same key) repeat the means.
type Mean struct {
	Check   string      `json:"check"`
	Label   string      `json:"label"`
	Table   tables.Loc  `json:"table"`
	Summary tables.Loc  `json:"summary,omitempty"`
	RunsKey string      `json:"runs_key"`
	Values  []MeanValue `json:"values"`
}

// MeanValue is one averaged value: per-run values in the list List, read
// from the tail metric Metric, their mean in the field Mean (and in the
// summary's field Summary). Decimals is the precision recomputed values
// are printed at, Shown the precision the pass finding shows.
type MeanValue struct {
	List     string `json:"list"`
	Metric   string `json:"metric"`
	Mean     string `json:"mean"`
	Summary  string `json:"summary,omitempty"`
	Label    string `json:"label"`
	Decimals int    `json:"decimals"`
	Shown    int    `json:"shown"`
}

// Copy: every field of the dict Table is a field of a step of Steps (an
// object of steps, each naming its run in RunKey), copied or divided by a
// constant; each step's values equal its run's tail.
type Copy struct {
	Check  string                 `json:"check"`
	Label  string                 `json:"label"`
	Table  tables.Loc             `json:"table"`
	Steps  tables.Loc             `json:"steps"`
	RunKey string                 `json:"run_key"`
	Fields map[string]CopiedField `json:"fields"`
}

// CopiedField is one copied field: Step's field From, divided by Divisor when
// it is not 0.
type CopiedField struct {
	Step    string  `json:"step"`
	From    string  `json:"from"`
	Divisor float64 `json:"divisor,omitempty"`
}

// Ratio is a step field computed as the quotient of two tail metrics.
type Ratio struct {
	Numerator   string `json:"numerator"`
	Denominator string `json:"denominator"`
}

// Validate checks the settings.
func (s *DeriveSettings) Validate(spec *checkout.Spec) error {
	bad := func(kind string) error {
		return spec.RuleErrorf("derive", "a %s derivation lacks one of its keys (see engine/rules/runs.DeriveSettings)", kind)
	}
	for _, d := range s.Differences {
		if d.Check == "" || d.Table.Path == "" || d.Field == "" || d.Label == "" || d.Minuend.Metric == "" || d.Subtrahend.Metric == "" {
			return bad("difference")
		}
	}
	for _, r := range s.Reductions {
		if r.Check == "" || r.Label == "" || r.Table.Path == "" || r.Configs.Path == "" || r.ConfigKey == "" || r.RunKey == "" || r.Separator == "" || r.Metric.Metric == "" {
			return bad("reduction")
		}
	}
	for _, m := range s.Means {
		if m.Check == "" || m.Label == "" || m.Table.Path == "" || m.RunsKey == "" || len(m.Values) == 0 {
			return bad("mean")
		}
		for _, v := range m.Values {
			if v.List == "" || v.Metric == "" || v.Mean == "" || v.Label == "" || v.Decimals < 0 || v.Shown < 0 {
				return bad("mean")
			}
		}
	}
	for _, c := range s.Copies {
		if c.Check == "" || c.Label == "" || c.Table.Path == "" || c.Steps.Path == "" || c.RunKey == "" || len(c.Fields) == 0 {
			return bad("copy")
		}
		for name, f := range c.Fields {
			if f.Step == "" || f.From == "" || f.Divisor < 0 {
				return spec.RuleErrorf("derive", "copy %s: field %s needs \"step\", \"from\" and a divisor not below 0", c.Table.Path, name)
			}
		}
	}
	for name, r := range s.StepRatios {
		if r.Numerator == "" || r.Denominator == "" {
			return spec.RuleErrorf("derive", "step_ratios.%s needs \"numerator\" and \"denominator\"", name)
		}
	}
	return nil
}

func runDerive(p *analysis.Pass) (any, error) {
	var cfg DeriveSettings
	t, err := runnertables.Read(p, "derive", "derivations of the runner's fields", &cfg)
	if err != nil {
		return nil, err
	}
	d := &derive{Tables: t, cfg: cfg}
	for _, step := range []func() ([]finding.Finding, error){d.differences, d.reductions, d.means, d.copies} {
		fs, err := step()
		if err != nil {
			return nil, err
		}
		p.ReportAll(fs)
	}
	return nil, nil
}

type derive struct {
	*runnertables.Tables
	cfg DeriveSettings
}

func (d *derive) differences() ([]finding.Finding, error) {
	var out []finding.Finding
	for _, df := range d.cfg.Differences {
		tb, err := d.Table(df.Table)
		if err != nil {
			return out, err
		}
		if tb == nil {
			out = append(out, d.Absent(df.Check, df.Table))
			continue
		}
		var fs []finding.Finding
		fail := func(f tables.Field, raw, source, format string, args ...any) {
			fs = append(fs, finding.Finding{Severity: finding.Fail, Check: df.Check, File: tb.File, Line: f.Line,
				Quote: f.Text(), Raw: raw, Source: source, Message: fmt.Sprintf(format, args...)})
		}
		n := 0
		for _, r := range d.Snap.Runs {
			f, ok := tb.Row(r.Name).Get(df.Field)
			if !ok {
				continue
			}
			ms := d.MS[r.Name]
			a, ok1 := ms.Get(df.Minuend.Metric)
			b, ok2 := ms.Get(df.Subtrahend.Metric)
			if !ok1 || !ok2 {
				fail(f, "", r.Source, "run %s: %s has %s %s but the tail has no %s and %s to derive it from", r.Name, tb.Path, df.Label, f.Num.Text, df.Subtrahend.Label, df.Minuend.Label)
				continue
			}
			v := a.Value() - b.Value()
			if f.Null || !num.Matches(v, f.Num) {
				fail(f, fmt.Sprintf("%s − %s", a.Num.Text, b.Num.Text), fmt.Sprintf("%s line %d", r.Source, a.Line),
					"run %s field %s: runner %s, but %s − %s = %s − %s = %s", r.Name, df.Field, f.Text(), df.Minuend.Label, df.Subtrahend.Label,
					a.Num.Text, b.Num.Text, num.Format(v, max(a.Num.Decimals, b.Num.Decimals)))
				continue
			}
			n++
		}
		if n > 0 && len(fs) == 0 {
			fs = append(fs, finding.Finding{Severity: finding.Pass, Check: df.Check, File: tb.File,
				Message: fmt.Sprintf("%s = %s − %s recomputes in all %d runs that log both", df.Label, df.Minuend.Label, df.Subtrahend.Label, n)})
		}
		out = append(out, fs...)
	}
	return out, nil
}

func (d *derive) reductions() ([]finding.Finding, error) {
	var out []finding.Finding
	for _, rd := range d.cfg.Reductions {
		tb, err := d.Table(rd.Table)
		if err != nil {
			return out, err
		}
		if tb == nil || tb.Dict == nil {
			out = append(out, d.Absent(rd.Check, rd.Table))
			continue
		}
		configs, err := d.Table(rd.Configs)
		if err != nil {
			return out, err
		}
		runOf := func(config string) *archive.Run {
			if configs == nil {
				return nil
			}
			for _, row := range configs.Rows {
				if row.Strings[rd.ConfigKey] == config {
					return d.Snap.Run(row.Strings[rd.RunKey])
				}
			}
			return nil
		}
		for _, f := range tb.Dict.Fields {
			add := func(sev finding.Severity, quote, raw, source, format string, args ...any) {
				out = append(out, finding.Finding{Severity: sev, Check: rd.Check, File: tb.File, Line: f.Line,
					Quote: quote, Raw: raw, Source: source, Message: fmt.Sprintf(format, args...)})
			}
			a, b, ok := strings.Cut(f.Name, rd.Separator)
			ra, rb := runOf(a), runOf(b)
			if !ok || ra == nil || rb == nil {
				add(finding.Fail, f.Num.Text, "", tb.Path+"."+f.Name, "%s %s: cannot tell which runs it compares (want <config>%s<config> of %s)", rd.Label, f.Name, rd.Separator, rd.Configs.Path)
				continue
			}
			ma, ok1 := d.MS[ra.Name].Get(rd.Metric.Metric)
			mb, ok2 := d.MS[rb.Name].Get(rd.Metric.Metric)
			if !ok1 || !ok2 || mb.Value() == 0 {
				add(finding.Fail, f.Num.Text, "", tb.Path+"."+f.Name, "%s %s: runs %s and %s do not both log %s", rd.Label, f.Name, ra.Name, rb.Name, rd.Metric.Label)
				continue
			}
			v := 100 * (1 - ma.Value()/mb.Value())
			calc := fmt.Sprintf("1 − %s/%s = %s%%", ma.Num.Text, mb.Num.Text, num.Format(v, 2))
			source := fmt.Sprintf("%s, %s", ra.Name, rb.Name)
			if f.Null || !num.Matches(v, f.Num) {
				add(finding.Fail, f.Text(), num.Format(v, 2), source, "%s %s: runner %s, but %s", rd.Label, f.Name, f.Text(), calc)
				continue
			}
			add(finding.Pass, f.Num.Text, num.Format(v, 2), source, "%s %s: %s → %s", rd.Label, f.Name, calc, runnertables.Printed(v, f.Num))
		}
	}
	return out, nil
}

func (d *derive) means() ([]finding.Finding, error) {
	var out []finding.Finding
	for _, mn := range d.cfg.Means {
		tb, err := d.Table(mn.Table)
		if err != nil {
			return out, err
		}
		if tb == nil {
			out = append(out, d.Absent(mn.Check, mn.Table))
			continue
		}
		summary, err := d.Table(mn.Summary)
		if err != nil {
			return out, err
		}
		rows := append([]*tables.Dict(nil), tb.Rows...)
		sort.Slice(rows, func(i, j int) bool { return rows[i].Key < rows[j].Key })
		for _, row := range rows {
			fs, err := d.mean(mn, tb, row, summary.Row(row.Key))
			if err != nil {
				return out, err
			}
			out = append(out, fs...)
		}
	}
	return out, nil
}

// mean checks one row of a Mean table: its per-run values against the
// tails, its means against theirs, and the summary's copy of the means.
func (d *derive) mean(mn Mean, tb *tables.Table, row *tables.Dict, summary *tables.Dict) ([]finding.Finding, error) {
	var out []finding.Finding
	ok := true
	fail := func(line int, quote, raw, format string, args ...any) {
		out = append(out, finding.Finding{Severity: finding.Fail, Check: mn.Check, File: tb.File, Line: line,
			Quote: quote, Raw: raw, Source: row.Path, Message: fmt.Sprintf(format, args...)})
		ok = false
	}
	cfg := row.Key
	runs := row.Names[mn.RunsKey]
	if len(runs) == 0 {
		return nil, &archive.Error{File: tb.File, Line: row.Line, Path: row.Path, Msg: fmt.Sprintf("no %q: the runs the mean is over", mn.RunsKey)}
	}
	vals := make([][]float64, len(mn.Values))
	var labels []string
	for _, v := range mn.Values {
		labels = append(labels, v.Label)
		if got := len(row.Lists[v.List]); got != len(runs) {
			return nil, &archive.Error{File: tb.File, Line: row.Line, Path: row.Path + "." + v.List, Msg: fmt.Sprintf("want %d numbers (one per run), found %d", len(runs), got)}
		}
	}
	for i, name := range runs {
		if _, err := d.Run(tb, row.Line, row.Path+"."+mn.RunsKey, name); err != nil {
			return nil, err
		}
		ms := d.MS[name]
		got := make([]tail.Metric, len(mn.Values))
		have := true
		for j, v := range mn.Values {
			var found bool
			if got[j], found = ms.Get(v.Metric); !found {
				have = false
			}
		}
		if !have {
			fail(row.Line, "", "", "%s %s: run %s logs no %s", mn.Label, cfg, name, strings.Join(labels, " or "))
			continue
		}
		for j, v := range mn.Values {
			f := row.Lists[v.List][i]
			if f.Null || got[j].Value() != f.Value() {
				fail(f.Line, f.Text(), got[j].Num.Text, "%s %s: run %s field %s: runner %s, tail line %d prints %s", mn.Label, cfg, name, v.List, f.Text(), got[j].Line, got[j].Num.Text)
			}
			vals[j] = append(vals[j], got[j].Value())
		}
	}
	if len(vals[0]) == 0 {
		return out, nil
	}
	var shown, quoted []string
	means := map[string]MeanValue{}
	meanOf := map[string]float64{}
	for j, v := range mn.Values {
		m := runnertables.Mean(vals[j])
		f, _ := row.Get(v.Mean)
		s := num.Format(m, v.Shown)
		if f.Num.Decimals > v.Shown {
			s += " (" + num.Format(m, f.Num.Decimals) + ")"
		}
		shown = append(shown, s)
		quoted = append(quoted, f.Num.Text)
		if f.Null || !num.Matches(m, f.Num) {
			fail(f.Line, f.Text(), num.Format(m, v.Decimals), "%s %s field %s: runner %s, recomputed %s", mn.Label, cfg, v.Mean, f.Text(), num.Format(m, v.Decimals))
		}
		if v.Summary != "" {
			means[v.Summary], meanOf[v.Summary] = v, m
		}
	}
	if summary != nil {
		var want []string
		for _, v := range mn.Values {
			want = append(want, v.Summary)
		}
		for _, f := range summary.Fields {
			v, known := means[f.Name]
			if !known {
				fail(f.Line, f.Num.Text, "", "%s field %s: no known derivation (want %s)", summary.Path, f.Name, strings.Join(want, " or "))
				continue
			}
			if m := meanOf[f.Name]; f.Null || !num.Matches(m, f.Num) {
				fail(f.Line, f.Text(), num.Format(m, v.Decimals), "%s field %s: runner %s, recomputed %s", summary.Path, f.Name, f.Text(), num.Format(m, v.Decimals))
			}
		}
	}
	if ok {
		out = append(out, finding.Finding{Severity: finding.Pass, Check: mn.Check, File: tb.File, Line: row.Line,
			Quote: strings.Join(quoted, " / "), Raw: strings.Join(shown, " / "), Source: strings.Join(runs, ", "),
			Message: fmt.Sprintf("%s %s recomputed from %d tails: %s", mn.Label, cfg, len(vals[0]), strings.Join(shown, " / "))})
	}
	return out, nil
}

func (d *derive) copies() ([]finding.Finding, error) {
	var out []finding.Finding
	for _, cp := range d.cfg.Copies {
		block, err := d.Table(cp.Table)
		if err != nil {
			return out, err
		}
		if block == nil || block.Dict == nil {
			out = append(out, d.Absent(cp.Check, cp.Table))
			continue
		}
		steps, err := d.Table(cp.Steps)
		if err != nil {
			return out, err
		}
		ok := true
		fail := func(line int, quote, raw, source, format string, args ...any) {
			out = append(out, finding.Finding{Severity: finding.Fail, Check: cp.Check, File: block.File, Line: line,
				Quote: quote, Raw: raw, Source: source, Message: fmt.Sprintf(format, args...)})
			ok = false
		}
		// Each step equals its archived tail.
		if steps != nil {
			for _, st := range steps.Rows {
				if err := d.step(cp, steps, st, fail); err != nil {
					return out, err
				}
			}
		}
		// Each field of the block is derived from its step.
		var shown []string
		for _, f := range block.Dict.Fields {
			dv, known := cp.Fields[f.Name]
			if !known {
				fail(f.Line, f.Num.Text, "", cp.Table.Path, "%s.%s: no known derivation from %s", cp.Table.Path, f.Name, cp.Steps.Path)
				continue
			}
			sf, has := steps.Row(dv.Step).Get(dv.From)
			if !has || sf.Null {
				fail(f.Line, f.Num.Text, "", cp.Table.Path, "%s.%s: %s.%s has no %s", cp.Table.Path, f.Name, cp.Steps.Path, dv.Step, dv.From)
				continue
			}
			want := sf.Value()
			calc := fmt.Sprintf("%s.%s.%s", cp.Steps.Path, dv.Step, dv.From)
			if dv.Divisor != 0 {
				want = sf.Value() / dv.Divisor
				calc = fmt.Sprintf("%s / %g = %s", num.Format(sf.Value(), sf.Num.Decimals), dv.Divisor, num.Format(want, 2))
			}
			if f.Null || !num.Matches(want, f.Num) {
				fail(f.Line, f.Text(), num.Format(want, f.Num.Decimals), calc, "%s field %s: runner %s, but %s gives %s", cp.Table.Path, f.Name, f.Text(), calc, num.Format(want, f.Num.Decimals))
				continue
			}
			shown = append(shown, num.Format(f.Value(), f.Num.Decimals))
		}
		if ok {
			out = append(out, finding.Finding{Severity: finding.Pass, Check: cp.Check, File: block.File, Line: block.Line,
				Quote: strings.Join(shown, " / "), Source: cp.Steps.Path,
				Message: fmt.Sprintf("%s computed from %s, equal to the archived %s tails: %s", cp.Table.Path, cp.Steps.Path, cp.Label, strings.Join(shown, " / "))})
		}
	}
	return out, nil
}

// step checks one step's values against its run's parsed tail.
func (d *derive) step(cp Copy, steps *tables.Table, st *tables.Dict, fail func(int, string, string, string, string, ...any)) error {
	at := steps.Path + "." + st.Key
	name, ok := st.Strings[cp.RunKey]
	if !ok {
		return &archive.Error{File: steps.File, Line: st.Line, Path: st.Path, Msg: fmt.Sprintf("missing key %q (the step's run)", cp.RunKey)}
	}
	r, err := d.Run(steps, st.Line, st.Path, name)
	if err != nil {
		return err
	}
	ms := d.MS[name]
	if ms == nil {
		fail(st.Line, "", "", st.Path, "%s: run %s has no parsed tail", at, name)
		return nil
	}
	for _, f := range st.Fields {
		if ratio, ok := d.cfg.StepRatios[f.Name]; ok {
			a, ok1 := ms.Get(ratio.Numerator)
			b, ok2 := ms.Get(ratio.Denominator)
			if !ok1 || !ok2 || b.Value() == 0 {
				fail(f.Line, f.Num.Text, "", r.Source, "%s field %s: the tail of %s has no %s and %s", at, f.Name, name, ratio.Numerator, ratio.Denominator)
				continue
			}
			if v := a.Value() / b.Value(); !num.Matches(v, f.Num) {
				fail(f.Line, f.Num.Text, num.Format(v, 2), r.Source, "%s field %s: runner %s, but %s %s / %s %s = %s", at, f.Name, f.Num.Text, ratio.Numerator, a.Num.Text, ratio.Denominator, b.Num.Text, num.Format(v, 2))
			}
			continue
		}
		metrics, known := d.cfg.StepMetrics[f.Name]
		var m tail.Metric
		found := false
		for _, mn := range metrics {
			if mm, ok := ms.Get(mn); ok {
				m, found = mm, true
				break
			}
		}
		switch {
		case f.Null:
			// Nothing decoded: the tail must agree (no rate, or 0, inf or nan).
			if found && !(m.Value() == 0 || math.IsInf(m.Value(), 0) || math.IsNaN(m.Value())) {
				fail(f.Line, "null", m.Num.Text, fmt.Sprintf("%s line %d", r.Source, m.Line), "%s field %s: runner null (nothing decoded), but tail line %d prints %s", at, f.Name, m.Line, m.Num.Text)
			}
		case !found:
			if known {
				fail(f.Line, f.Num.Text, "", r.Source, "%s field %s = %s, but the tail of %s prints no such value", at, f.Name, f.Num.Text, name)
			}
		case !num.Matches(m.Value(), f.Num) || !num.Matches(f.Value(), m.Num):
			fail(f.Line, f.Num.Text, m.Num.Text, fmt.Sprintf("%s line %d", r.Source, m.Line), "%s field %s: runner %s, tail line %d prints %s", at, f.Name, f.Num.Text, m.Line, m.Num.Text)
		}
	}
	return nil
}
