package analysistest

import (
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
)

func TestParseWant(t *testing.T) {
	for _, tt := range []struct {
		text  string
		sev   finding.Severity
		check string
		file  string
		at    int
		ok    bool
	}{
		{`warn/unread runs/a.log:1 "^run a"`, finding.Warn, "unread", "runs/a.log", 1, true},
		{`fail PLAN.md "x"`, finding.Fail, "", "PLAN.md", -1, true},
		{`pass/runs - "0 of 1"`, finding.Pass, "runs", "", -1, true},
		{`bad PLAN.md "x"`, 0, "", "", 0, false},
		{`warn PLAN.md:x "y"`, 0, "", "", 0, false},
		{`warn PLAN.md unquoted`, 0, "", "", 0, false},
		{`warn PLAN.md "("`, 0, "", "", 0, false},
		{`warn`, 0, "", "", 0, false},
	} {
		e, err := parseWant(tt.text)
		if (err == nil) != tt.ok {
			t.Errorf("parseWant(%q) error = %v; want ok %v", tt.text, err, tt.ok)
			continue
		}
		if tt.ok && (e.severity != tt.sev || e.check != tt.check || e.file != tt.file || e.at != tt.at) {
			t.Errorf("parseWant(%q) = %s/%s %s:%d; want %s/%s %s:%d", tt.text, e.severity, e.check, e.file, e.at, tt.sev, tt.check, tt.file, tt.at)
		}
	}
}
