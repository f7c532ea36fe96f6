package runs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/snaptest"
)

func exitFindings(t *testing.T, root string) (notApplied string, out []finding.Finding) {
	t.Helper()
	snap, err := archive.Load(root, format.For)
	if err != nil {
		t.Fatalf("archive.Load(%s): %v", root, err)
	}
	res, err := analysis.NewDriver(snap).Run([]*analysis.Analyzer{Exit})
	if err != nil {
		t.Fatalf("runs.exit over %s: %v", root, err)
	}
	for _, f := range res[0].Findings {
		if f.Severity != finding.Pass {
			out = append(out, f)
		}
	}
	return res[0].NotApplied, out
}

func TestExit(t *testing.T) {
	// fixtures/m5 binds strata_q2_0_moce085_prefill_1024tok's prefill time.
	root := snaptest.CopyFixture(t, "m5")
	if _, fs := exitFindings(t, root); len(fs) != 0 {
		t.Fatalf("runs.exit on fixtures/m5 = %v; want no finding", fs)
	}
	results := filepath.Join(root, filepath.FromSlash(snaptest.ResultsFile))
	b := snaptest.Read(t, results)
	i := strings.Index(b, `"name": "strata_q2_0_moce085_prefill_1024tok"`)
	if i <= 0 {
		t.Fatalf("i = %d; want > 0", i)
	}
	j := i + strings.Index(b[i:], `"exit_code": 0`)
	snaptest.Write(t, results, b[:j]+`"exit_code": 134`+b[j+len(`"exit_code": 0`):])
	_, fs := exitFindings(t, root)
	if len(fs) != 1 || fs[0].Severity != finding.Fail || !strings.Contains(fs[0].Message, "strata_q2_0_moce085_prefill_1024tok exited 134, and claims read it") {
		t.Errorf("runs.exit with a bound run exiting 134 = %v; want one fail naming the run and the claims", fs)
	}
	// A failed run no claim reads, and a snapshot with no exit status at
	// all: testdata/unread-failed and testdata/exit-no-status.
}

// TestWant: the cases in testdata, each with the findings it wants
// beside it (analysistest.RunCases).
func TestWant(t *testing.T) { analysistest.RunCases(t, "testdata", Parse, Exit) }
