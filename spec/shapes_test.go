package spec

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestShapes audits fixtures/m5-shapes, the m5-v3 data in the shapes of an
// independent checkout (JSON Lines runs with their own keys and record
// fields as metrics, glog-prefixed engine logs, the runner's tables and
// provenance in a second JSON file, text transcripts, a TSV vocabulary,
// ordered-list plan items, host_tmp/), declared only by its strataspec.json
// and PLAN.claims (issue 19). It must give the audit m5-v3 gives: the same
// finding ids failing and warning, every rule that applies on m5-v3
// applying, and each rule's checks with the same outcome.
func TestShapes(t *testing.T) {
	v3 := audited(t, "m5-v3")
	sh := audited(t, "m5-shapes")
	if diff := cmp.Diff(v3.Summary.FailIDs, sh.Summary.FailIDs); diff != "" {
		t.Errorf("summary.fail_ids: m5-shapes differs from m5-v3 (-m5-v3 +m5-shapes):\n%s", diff)
	}
	if diff := cmp.Diff(v3.Summary.WarnIDs, sh.Summary.WarnIDs); diff != "" {
		t.Errorf("summary.warn_ids: m5-shapes differs from m5-v3 (-m5-v3 +m5-shapes):\n%s", diff)
	}
	for _, rule := range v3.Summary.Applied {
		if !slices.Contains(sh.Summary.Applied, rule) {
			t.Errorf("rule %s applies on m5-v3, not on m5-shapes (%s)", rule, reason(sh, rule))
		}
	}
	if diff := cmp.Diff(outcomes(v3), outcomes(sh)); diff != "" {
		t.Errorf("findings by rule, check, id and severity (-m5-v3 +m5-shapes):\n%s", diff)
	}
	if len(v3.Summary.FailIDs) == 0 || len(v3.Summary.Applied) < 20 {
		t.Fatalf("m5-v3 fails %v with %d rules applied: the comparison would prove nothing", v3.Summary.FailIDs, len(v3.Summary.Applied))
	}
}

func audited(t *testing.T, name string) *report.Report {
	t.Helper()
	r, err := audit.Audit(snaptest.Fixture(t, name), "")
	if err != nil {
		t.Fatalf("audit %s: %v", name, err)
	}
	return r
}

// reason is why rule did not apply on r, as the report says.
func reason(r *report.Report, rule string) string {
	for _, na := range r.Summary.NotApplied {
		if na.Rule == rule {
			return "not applied: " + na.Reason
		}
	}
	return "no finding"
}

// outcomes counts a report's findings by rule, check, finding id and
// severity.
func outcomes(r *report.Report) map[string]int {
	out := map[string]int{}
	for _, f := range r.Findings {
		out[fmt.Sprintf("%s/%s %s %s", f.Rule, f.Check, f.ID, f.Severity)]++
	}
	return out
}
