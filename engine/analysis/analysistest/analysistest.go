// Package analysistest is the harness of the rule tests, after
// golang.org/x/tools/go/analysis/analysistest. RunWant runs one analyzer
// over a snapshot under testdata and checks its findings against the
// expectations written beside it (CASE.want), and RunCases runs every case
// of a rule family's testdata so; Run and Findings run one
// analyzer, with its requirements, over any snapshot (a fixture, or a copy
// edited with Copy and Edit) and return its findings for the test to
// check. It is imported only from _test.go files.
package analysistest

import (
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/metric"
)

// Run loads the snapshot at root and runs a over it. A snapshot that does
// not load fails the test; the analyzer's own error is returned, and so is
// the reason it did not apply ("" when it did).
func Run(t testing.TB, root string, a *analysis.Analyzer) (fs []finding.Finding, notApplied string, err error) {
	t.Helper()
	snap, err := archive.Load(root, format.For)
	if err == nil {
		err = snap.Spec.CheckUnits(metric.CheckUnit) // as engine/audit loads
	}
	if err != nil {
		t.Fatalf("analysistest: loading %s: %v", root, err)
	}
	return RunSnapshot(snap, a)
}

// RunSnapshot runs a over a loaded snapshot (one built by hand, or
// loaded and changed), as Run does.
func RunSnapshot(snap *archive.Snapshot, a *analysis.Analyzer) (fs []finding.Finding, notApplied string, err error) {
	d := analysis.NewDriver(snap)
	res, err := d.Run([]*analysis.Analyzer{a})
	if err != nil {
		return nil, "", err
	}
	if failed := d.Failed(); len(failed) > 0 {
		return nil, "", failed[0].Err
	}
	return res[0].Findings, res[0].NotApplied, nil
}

// NotApplied runs a over the snapshot at root and returns the reason it
// did not apply, failing the test when it errs, reports a finding or
// applies.
func NotApplied(t testing.TB, root string, a *analysis.Analyzer) string {
	t.Helper()
	fs, na, err := Run(t, root, a)
	if err != nil {
		t.Fatalf("%s over %s: %v", a.Name, root, err)
	}
	if len(fs) != 0 || na == "" {
		t.Fatalf("%s over %s = %d findings, not applied %q; want none and a reason", a.Name, root, len(fs), na)
	}
	return na
}

// Findings runs a over the snapshot at root and returns its findings,
// failing the test when the analyzer errs or does not apply.
func Findings(t testing.TB, root string, a *analysis.Analyzer) []finding.Finding {
	t.Helper()
	fs, na, err := Run(t, root, a)
	if err != nil {
		t.Fatalf("%s over %s: %v", a.Name, root, err)
	}
	if na != "" {
		t.Fatalf("%s over %s did not apply: %s", a.Name, root, na)
	}
	return fs
}
