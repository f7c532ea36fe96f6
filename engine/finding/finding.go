// Package finding defines the value every rule produces: a rule id, a
// severity, a place, the quoted text, the raw values and a message.
package finding

import "fmt"

// Severity orders findings: Pass < Warn < Fail.
type Severity int

// Severities.
const (
	Pass Severity = iota
	Warn
	Fail
)

var severityNames = [...]string{Pass: "pass", Warn: "warn", Fail: "fail"}

// String returns "pass", "warn" or "fail".
func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("Severity(%d)", int(s))
	}
	return severityNames[s]
}

// MarshalText encodes the severity as "pass", "warn" or "fail".
func (s Severity) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(severityNames) {
		return nil, fmt.Errorf("finding: invalid severity %d", int(s))
	}
	return []byte(severityNames[s]), nil
}

// UnmarshalText decodes "pass", "warn" or "fail".
func (s *Severity) UnmarshalText(b []byte) error {
	for i, n := range severityNames {
		if n == string(b) {
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
}

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
