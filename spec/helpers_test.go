package spec

import (
	"fmt"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	gatecheck "github.com/strataspec/strataspec/engine/gate"
)

// auditFindings audits the snapshot at root with the rules named in ruleList
// (comma-separated, as tools/strataspec's -rules takes them) and returns the
// report's findings; a snapshot or rule that cannot be read fails the test.
func auditFindings(t testing.TB, root, ruleList string) []finding.Finding {
	t.Helper()
	r, err := audit.Audit(root, ruleList)
	if err != nil {
		t.Fatalf("audit.Audit(%q, %q): %v", root, ruleList, err)
	}
	return r.Findings
}

// failures returns the fail findings of fs.
func failures(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Severity == finding.Fail {
			out = append(out, f)
		}
	}
	return out
}

// planCheck returns the plan check of a loaded snapshot (gatecheck.Analyzer). A
// snapshot without PLAN.claims is an error here: the tests that call it
// check claims rows.
func planCheck(c *audit.Context) (*gatecheck.PlanCheck, error) {
	pc, err := c.PlanCheck()
	if err == nil && pc.NoClaims {
		return nil, fmt.Errorf("%s: no claims table", c.Snap.Spec.Claims)
	}
	return pc, err
}
