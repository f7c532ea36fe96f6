package analysistest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// Edited copies of the fixtures, for the cases a testdata snapshot would
// repeat a whole fixture for: copy a fixture, change a file of it, run one
// analyzer over it (Findings), and look for a finding.

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
