// Package tail holds the metrics parsed from a run's output tail and the
// parsers for the strata engine's own logs. Parsers read raw text
// independently of the runner that archived it: a metric keeps the text it was
// printed as, so a claim can be compared at the printed precision.
package tail

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
)

// Metric is one number read from a tail.
type Metric struct {
	Name string     // stable metric name, e.g. "decode_tok_s"
	Num  num.Number // value and printed text
	Unit string     // unit as printed: "ms", "tok/s", "GB", "%", ...
	Line int        // 1-based line in the tail
	// Detail holds what a value summarizing several measurements carries
	// (a llama-bench row); nil for a single reading. It is a pointer so that
	// the common metric stays small: a strata log yields millions.
	Detail *Detail
	// At is where a metric not read from the tail was read (a run record's
	// field: its file, JSON path and line); nil for a tail line's metric.
	At *Place
}

// Place is a value's place in a file: the file, its JSON path and line.
type Place struct {
	File string
	Path string
	Line int
}

// Detail is the repetitions and the configuration behind a metric.
type Detail struct {
	// Samples are the repeated measurements the value summarizes
	// (llama-bench's samples_ts), in the order printed; nil when not printed.
	Samples []float64
	// Config is the configuration the value was measured under, as printed
	// (every field of a llama-bench row that is not a result).
	Config []Field
}

// Samples returns the metric's repeated measurements, nil for none.
func (m Metric) Samples() []float64 {
	if m.Detail == nil {
		return nil
	}
	return m.Detail.Samples
}

// Config returns the configuration the metric was measured under, nil when
// the tail prints none.
func (m Metric) Config() []Field {
	if m.Detail == nil {
		return nil
	}
	return m.Detail.Config
}

// Field is one configuration field: a name and its value as printed.
type Field struct {
	Key   string
	Value string
}

// Value returns the metric's value.
func (m Metric) Value() float64 { return m.Num.Value }

// Metrics are the metrics of one tail, in the order they were read.
type Metrics struct {
	Source string   // what was parsed, e.g. "results/x.json: runs[3].output_tail"
	List   []Metric // every metric, in tail order
	Errors []*Error // parse errors; parsing goes on after one
	// Max is the most metrics List holds, 0 for no limit: a parse given a
	// limit keeps memory proportional to it, not to a hostile tail.
	Max int
	// Over says a metric was offered past Max: List is cut there and the
	// parse stopped, so the tail was not read in full.
	Over bool
}

// Add appends a metric, or sets Over when List holds Max already.
func (ms *Metrics) Add(m Metric) {
	if ms.Full() {
		ms.Over = true
		return
	}
	ms.List = append(ms.List, m)
}

// Full reports whether List holds Max metrics, so that a parser can stop
// once the next Add would be over the limit.
func (ms *Metrics) Full() bool { return ms.Max > 0 && len(ms.List) >= ms.Max }

// Prealloc is n, the metrics a parser expects from its text, bounded by
// Max: what it may preallocate for List.
func (ms *Metrics) Prealloc(n int) int {
	if ms.Max > 0 {
		return min(n, ms.Max)
	}
	return n
}

// Get returns the first metric with the given name.
func (ms *Metrics) Get(name string) (Metric, bool) {
	if ms == nil {
		return Metric{}, false
	}
	for _, m := range ms.List {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// All returns every metric with the given name, in tail order.
func (ms *Metrics) All(name string) []Metric {
	if ms == nil {
		return nil
	}
	var out []Metric
	for _, m := range ms.List {
		if m.Name == name {
			out = append(out, m)
		}
	}
	return out
}

// Error is a parse error at a place in a tail. Parsers return errors as
// values and go on; a tail with errors still yields the metrics it could read.
type Error struct {
	File string // the file the tail came from, with a JSON path where it is inside one
	Line int    // 1-based line in the tail; 0 if the error is about the whole tail
	Msg  string
	// Metrics are the metrics a missing required line would have given:
	// a run whose record supplies them (engine/facts: record fields as
	// metrics) does not miss the line.
	Metrics []string
}

// Pos returns the error's place: the tail's file (with its JSON path where
// the tail is inside one) and line.
func (e *Error) Pos() finding.Pos { return finding.Pos{File: e.File, Line: e.Line} }

// Error formats the error as file:line: message, or file: message for an
// error about the whole tail.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Detach copies every string the metrics hold out of the text they were
// parsed from: a metric's printed text is a slice of its tail and would
// keep the whole tail alive. Readers that let tails go (a log read again
// when asked for) detach what they keep.
func (ms *Metrics) Detach() {
	for i := range ms.List {
		m := &ms.List[i]
		m.Name, m.Unit, m.Num.Text = strings.Clone(m.Name), strings.Clone(m.Unit), strings.Clone(m.Num.Text)
		if d := m.Detail; d != nil {
			for j := range d.Config {
				d.Config[j].Key, d.Config[j].Value = strings.Clone(d.Config[j].Key), strings.Clone(d.Config[j].Value)
			}
		}
	}
	for _, e := range ms.Errors {
		e.Msg = strings.Clone(e.Msg)
	}
}
