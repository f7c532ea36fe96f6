package rules

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/tail"
)

// Helpers of the legacy rules still here (scratch, selftest), kept when
// the rules that defined them moved into analyzer families.

// ArenaEnv is the environment variable that sets the arena size in GB.
const ArenaEnv = "STRATA_METAL_ARENA_GB"

// tailLine returns line n (1-based) of a tail, or "".
func tailLine(text string, n int) string {
	if n < 1 {
		return ""
	}
	lines := strings.SplitN(text, "\n", n+1)
	if n > len(lines) {
		return ""
	}
	return strings.TrimSuffix(lines[n-1], "\r")
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
