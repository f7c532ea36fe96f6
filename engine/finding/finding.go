// Package finding defines the value every rule produces: a rule id, a
// severity, a place, the quoted text, the raw values and a message.
package finding

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// Severity orders findings: Pass < Warn < Fail. The zero value is invalid:
// a finding that forgets its severity is neither a pass nor a fail, and the
// driver reports it as a programming error instead of counting it.
type Severity int

// Severities.
const (
	Invalid Severity = iota
	Pass
	Warn
	Fail
)

var severityNames = [...]string{Pass: "pass", Warn: "warn", Fail: "fail"}

// String returns "pass", "warn" or "fail".
func (s Severity) String() string {
	if s <= Invalid || int(s) >= len(severityNames) {
		return fmt.Sprintf("Severity(%d)", int(s))
	}
	return severityNames[s]
}

// MarshalText encodes the severity as "pass", "warn" or "fail".
func (s Severity) MarshalText() ([]byte, error) {
	if s <= Invalid || int(s) >= len(severityNames) {
		return nil, fmt.Errorf("finding: invalid severity %d", int(s))
	}
	return []byte(severityNames[s]), nil
}

// UnmarshalText decodes "pass", "warn" or "fail".
func (s *Severity) UnmarshalText(b []byte) error {
	for i, n := range severityNames {
		if n != "" && n == string(b) {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("finding: unknown severity %q", b)
}

// Finding is one result of one rule. File is relative to the snapshot root;
// Line is 1-based, 0 when the finding has no line.
type Finding struct {
	Rule     string   `json:"rule"`         // rule id, e.g. "plan.unsourced"
	ID       string   `json:"id,omitempty"` // the audit finding it reproduces, F01–F42
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Quote    string   `json:"quote"`  // the text checked, as quoted
	Raw      string   `json:"raw"`    // the raw value(s) it was checked against
	Source   string   `json:"source"` // where the raw value(s) came from
	Message  string   `json:"message"`
	// Check names the check inside the rule that produced the finding,
	// e.g. "threads" for compare.unlike; a checkout's spec maps rule/check
	// pairs to audit finding ids.
	Check string `json:"check,omitempty"`
	// Fix is one line saying what would make the finding pass, written by
	// the rule; reports list each distinct fix once.
	Fix string `json:"fix,omitempty"`
	// Plot holds the values behind the finding for charts (ranges and
	// comparisons); nil when the finding has none.
	Plot *Plot `json:"plot,omitempty"`
}

// Plot is the data behind a range or comparison finding, for charts.
type Plot struct {
	// Kind is "range" (Quoted holds the quoted low and high) or "compare"
	// (Points are grouped by Series, one series a side).
	Kind   string    `json:"kind"`
	Quoted []float64 `json:"quoted,omitempty"` // the plan's numbers, as quoted
	Unit   string    `json:"unit,omitempty"`
	Points []Point   `json:"points"`
}

// Add appends a point to the plot, unless its value is not a finite number
// (a damaged tail's NaN), which no axis can place and JSON cannot encode.
func (p *Plot) Add(pt Point) {
	if math.IsNaN(pt.Value) || math.IsInf(pt.Value, 0) {
		return
	}
	p.Points = append(p.Points, pt)
}

// Point is one value behind a plot: a run's metric or one sample.
type Point struct {
	Series string  `json:"series,omitempty"` // side of a comparison, "" for a range
	Label  string  `json:"label"`            // run name, or run name and sample index
	Value  float64 `json:"value"`
	Note   string  `json:"note,omitempty"` // e.g. "cold first run", "dropped by the quote"
}

// Valid reports whether the severity is one of Pass, Warn and Fail.
func (s Severity) Valid() bool { return s >= Pass && s <= Fail }

// String formats a finding as "file:line: severity rule [id]: message".
func (f Finding) String() string {
	loc := f.File
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	id := ""
	if f.ID != "" {
		id = " " + f.ID
	}
	return fmt.Sprintf("%s: %s %s%s: %s", loc, f.Severity, f.Rule, id, f.Message)
}

// Clip shortens a line a finding quotes (a tail's line, say) to 120 bytes
// at a character boundary, marking the cut with "…".
func Clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	n := 120
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
