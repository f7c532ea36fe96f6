package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/report"
	plangate "github.com/strataspec/strataspec/engine/rules/plan"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestGateSwitchedOff: a claims table that declares no claim section binds
// nothing and would let every plan number through. The gate must fail, not
// report a pass with nothing checked (found in review: an empty PLAN.claims
// gave PASS with zero findings).
func TestGateSwitchedOff(t *testing.T) {
	for _, content := range []string{"", "# only a comment\n", "set q2_0 = strata_q2_0_*\n"} {
		root := snaptest.CopyFixture(t, "m5")
		snaptest.Write(t, filepath.Join(root, "PLAN.claims"), content)
		rep, err := audit.Audit(root, "plan")
		if err != nil {
			t.Fatalf("audit(-rules plan) with PLAN.claims %q = %v", content, err)
		}
		if !rep.Failed() {
			t.Errorf("audit(-rules plan) with PLAN.claims %q = %s; want a fail", content, rep.Verdict)
			continue
		}
		found := false
		for _, f := range rep.Findings {
			found = found || strings.Contains(f.Message, "declares no claim section")
		}
		if !found {
			t.Errorf("audit(-rules plan) with PLAN.claims %q: no finding says the table declares no claim section", content)
		}
	}
}

// TestGateRemoved: deleting PLAN.claims switches the gate off too. It used
// to stop the audit (exit 2, "PLAN.claims: not in the snapshot"); a plan
// without claims is now the first step of adopting the gate (README), so
// the audit goes on, and the removal stays visible: plan.uncovered lists
// every measurement-like number of the plan as ungated (a warning, a fail
// with -strict), the counts say none is gated, and the rules that need
// claims rows say why they did not apply.
func TestGateRemoved(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	if err := os.Remove(filepath.Join(root, "PLAN.claims")); err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Audit(root, "plan")
	if err != nil {
		t.Fatalf("audit(-rules plan) without PLAN.claims = %v", err)
	}
	ungated, gate := 0, ""
	for _, f := range rep.Findings {
		if f.Rule == "plan.uncovered" && f.Check == plangate.UncoveredCheck && f.Severity == finding.Warn {
			ungated++
		}
		if f.Check == plangate.GateCheck {
			gate = f.Raw
		}
	}
	if ungated < 50 || !strings.HasPrefix(gate, "gated=0 ") || rep.Summary.Pass != 0 {
		t.Errorf("audit(-rules plan) without PLAN.claims: %d ungated warnings, counts %q, %d passes; want the plan's numbers listed, gated=0, no pass", ungated, gate, rep.Summary.Pass)
	}
	if len(rep.Rules) != len(plangate.Analyzers()) {
		t.Errorf("audit(-rules plan) without PLAN.claims reports %d rules; want the %d plan rules", len(rep.Rules), len(plangate.Analyzers()))
	}
	for _, r := range rep.Rules {
		if r.Name != "plan.uncovered" && (r.Applied || !strings.HasPrefix(r.Reason, "no PLAN.claims")) {
			t.Errorf("%s without PLAN.claims: applied %v, reason %q; want not applied: no PLAN.claims", r.Name, r.Applied, r.Reason)
		}
	}
	strict := report.NewWithRules(rep.Root, rep.Rules, plangate.Strict(rep.Findings))
	// the adopt fail (no claims table) and each ungated number
	if !strict.Failed() || strict.Summary.Fail != ungated+1 {
		t.Errorf("-strict without PLAN.claims: %d fails; want the adopt fail and the %d ungated numbers", strict.Summary.Fail, ungated)
	}

	// a folder of logs with no plan at all: the plan rules do not apply
	if err := os.Remove(filepath.Join(root, "PLAN.md")); err != nil {
		t.Fatal(err)
	}
	rep, err = audit.Audit(root, "plan")
	if err != nil {
		t.Fatalf("audit(-rules plan) without PLAN.md = %v", err)
	}
	if len(rep.Rules) != len(plangate.Analyzers()) {
		t.Errorf("audit(-rules plan) without PLAN.md reports %d rules; want the %d plan rules", len(rep.Rules), len(plangate.Analyzers()))
	}
	for _, r := range rep.Rules {
		if r.Applied || r.Reason != "no PLAN.md" {
			t.Errorf("%s without PLAN.md: applied %v, reason %q; want not applied: no PLAN.md", r.Name, r.Applied, r.Reason)
		}
	}
	if len(rep.Findings) != 0 {
		t.Errorf("audit(-rules plan) without PLAN.md: findings %v; want none", rep.Findings)
	}
}
