// Package rulestest runs rules over edited copies of the fixture
// snapshots, for the tests of the rule families: copy a fixture, change a
// file of it, audit it with one rule, and look for a finding. It is a test
// helper, imported only from _test.go files outside engine/audit.
package rulestest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// Edit replaces Old with New exactly once in File, a slash path relative
// to the snapshot root.
type Edit struct{ File, Old, New string }

// Results edits the fixtures' results JSON.
func Results(old, new string) Edit { return Edit{snaptest.ResultsFile, old, new} }

// Spec edits the fixtures' strataspec.json.
func Spec(old, new string) Edit { return Edit{"strataspec.json", old, new} }

// Copy copies the fixture name into t.TempDir() and applies edits to it.
func Copy(t testing.TB, name string, edits ...Edit) string {
	t.Helper()
	dst := snaptest.CopyFixture(t, name)
	for _, e := range edits {
		snaptest.Edit(t, filepath.Join(dst, filepath.FromSlash(e.File)), e.Old, e.New)
	}
	return dst
}

// Check audits the snapshot at root with the rules ruleList selects and
// returns the findings, failing the test on an error.
func Check(t testing.TB, root, ruleList string) []finding.Finding {
	t.Helper()
	rep, err := audit.Audit(root, ruleList)
	if err != nil {
		t.Fatalf("audit.Audit(%q, %q): %v", root, ruleList, err)
	}
	return rep.Findings
}

// BySeverity returns the findings of a severity.
func BySeverity(fs []finding.Finding, sev finding.Severity) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Severity == sev {
			out = append(out, f)
		}
	}
	return out
}

// Has reports whether a finding of the severity and id has a message
// containing every one of want.
func Has(fs []finding.Finding, sev finding.Severity, id string, want ...string) bool {
	for _, f := range fs {
		if f.Severity != sev || f.ID != id {
			continue
		}
		ok := true
		for _, w := range want {
			if !strings.Contains(f.Message, w) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}
