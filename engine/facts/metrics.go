package facts

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/tail"
)

// Formats is the registry of formats the snapshot's runs and records are
// read in: the built-ins and those its spec file declares (engine/format).
var Formats = analysis.NewInput("formats", "the formats runs and records are read in", func(p *analysis.Pass) (*format.Registry, error) {
	return format.FromSpec(p.Spec), nil
})

// RunMetrics are the metrics parsed from every run's tail, by run name.
// A tail that parses with errors keeps them in its Metrics; a run whose
// program has no format gets Metrics with one error saying so.
var RunMetrics = analysis.NewInput("run metrics", "every run's parsed output", func(p *analysis.Pass) (map[string]*tail.Metrics, error) {
	reg := Formats.Of(p)
	out := make(map[string]*tail.Metrics, len(p.Snap.Runs))
	lim := limits(p)
	for _, r := range p.Snap.Runs {
		// The parsers stop at the limit: a hostile output costs memory
		// proportional to the limit, not to its lines.
		ms := parseRun(reg, r, lim.Metrics)
		if ms.Over || len(ms.List) > lim.Metrics {
			return nil, &snapfs.LimitError{File: r.Source, What: "metrics in one run's output", Limit: int64(lim.Metrics), Flag: "-max-metrics"}
		}
		ms.Detach() // keep the metrics, not the tail they were sliced from
		out[r.Name] = ms
	}
	return out, nil
}, Formats.Analyzer)

// limits are the limits the snapshot was read within (snapfs.DefaultLimits
// for a snapshot built without a file system).
func limits(p *analysis.Pass) snapfs.Limits {
	if p.Snap.FS == nil {
		return snapfs.DefaultLimits
	}
	return p.Snap.FS.Limits()
}

// RecordMetrics are the metrics of the records beside the runs (route_parity
// logs, the self-test output), by archive.Record.Key (the file, or a block
// of it), each read in its format. They are kept apart from runs: a run
// named like a record's file cannot replace its metrics.
var RecordMetrics = analysis.NewInput("record metrics", "the parsed records beside the runs", func(p *analysis.Pass) (map[string]*tail.Metrics, error) {
	reg := Formats.Of(p)
	out := map[string]*tail.Metrics{}
	lim := limits(p)
	var over error
	read := func(rec *archive.Record, def string) {
		name := rec.Format
		if name == "" {
			name = def
		}
		f, ok := reg.Get(name)
		if !ok {
			out[rec.Key()] = &tail.Metrics{Source: rec.File, Errors: []*tail.Error{{File: rec.File, Msg: "no format " + name}}}
			return
		}
		ms := f.ParseMax(rec.File, rec.Text, lim.Metrics)
		if ms.Over && over == nil {
			over = &snapfs.LimitError{File: rec.File, What: "metrics in one record", Limit: int64(lim.Metrics), Flag: "-max-metrics"}
		}
		out[rec.Key()] = ms
	}
	for _, rec := range p.Snap.Parity {
		read(rec, format.RouteParity)
	}
	if rec := p.Snap.SelfTest; rec != nil {
		read(rec, format.SelfTest)
	}
	if over != nil {
		return nil, over
	}
	return out, nil
}, Formats.Analyzer)

// ParseRun parses a run's tail in the format the spec gives its program
// (engine/format: a built-in, or a format the spec file declares), and adds
// the record fields the spec maps to metrics (archive.Run.Metrics, line 0:
// they are not in the tail); every metric is in its vocabulary unit
// (format.Normalize).
func ParseRun(spec *checkout.Spec, r *archive.Run) *tail.Metrics {
	if spec == nil {
		spec = checkout.Default()
	}
	return parseRun(format.FromSpec(spec), r, 0)
}

// parseRun is ParseRun in the formats of reg, keeping at most max metrics
// (0: no limit; see tail.Metrics.Over).
func parseRun(reg *format.Registry, r *archive.Run, max int) *tail.Metrics {
	ms := parseOutput(reg, r, max)
	for _, m := range r.Metrics { // record fields the spec reads as metrics; not on a tail line
		at := &tail.Place{File: r.File, Path: m.Path, Line: m.Line}
		if m.Null {
			ms.Add(tail.Metric{Name: m.Name, Unit: m.Unit, At: at})
			continue
		}
		n, err := num.Parse(m.Lit)
		if err != nil { // a JSON number the archive took that num does not: say so, never guess
			ms.Errors = append(ms.Errors, &tail.Error{File: r.File, Line: m.Line, Msg: fmt.Sprintf("%s: %s = %s: %v", m.Path, m.Name, m.Lit, err)})
			continue
		}
		ms.Add(tail.Metric{Name: m.Name, Num: n, Unit: m.Unit, At: at})
	}
	if len(r.Metrics) == 0 {
		return ms
	}
	format.Normalize(ms) // the fields' units, as the output's are
	// A required line whose reading the record gives (the runner's vm_stat
	// line, kept as a record field) is not missing.
	kept := ms.Errors[:0]
	for _, e := range ms.Errors {
		supplied := false
		for _, name := range e.Metrics {
			for _, m := range r.Metrics {
				supplied = supplied || m.Name == name
			}
		}
		if !supplied {
			kept = append(kept, e)
		}
	}
	ms.Errors = kept
	return ms
}

// parseOutput reads a run's output in its program's format.
func parseOutput(reg *format.Registry, r *archive.Run, max int) *tail.Metrics {
	text, err := r.Text()
	if err != nil {
		return &tail.Metrics{Source: r.Source, Errors: []*tail.Error{{File: r.Source, Msg: "output cannot be read: " + err.Error()}}}
	}
	f, ok := reg.Get(r.Parser)
	if !ok {
		prog := "(no argv recorded)"
		if len(r.Cmd) > 0 {
			prog = r.Cmd[0]
		}
		return &tail.Metrics{Source: r.Source, Errors: []*tail.Error{{File: r.Source,
			Msg: "no parser for program " + prog + ": declare it under \"programs\" in " + checkout.File}}}
	}
	return f.ParseMax(r.Source, text, max)
}

// Where returns the place of a run's metric for a finding: the tail's
// source and line with the line's text, or, for a metric read from the
// run record's field, the record's file and line with the field's path.
func Where(r *archive.Run, m tail.Metric) (file string, line int, quote string) {
	if m.At != nil {
		return m.At.File, m.At.Line, m.At.Path + ": " + m.Num.Text
	}
	return r.Source, m.Line, r.TailLine(m.Line)
}

// RunsWith returns the runs, in snapshot order, whose metrics include at
// least one of names: the runs a rule that reads those metrics applies to,
// whichever reader produced them.
func RunsWith(snap *archive.Snapshot, ms map[string]*tail.Metrics, names ...string) []*archive.Run {
	var out []*archive.Run
	for _, r := range snap.Runs {
		m := ms[r.Name]
		if m == nil {
			continue
		}
		for _, n := range names {
			if _, ok := m.Get(n); ok {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// NoRunWith says that no run has any of the metrics names: the reason a
// rule that needs them did not apply.
func NoRunWith(names ...string) string {
	if len(names) == 1 {
		return "no run has the metric " + names[0]
	}
	return "no run has any of the metrics " + strings.Join(names, ", ")
}
