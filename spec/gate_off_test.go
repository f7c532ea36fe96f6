package spec

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/stretchr/testify/require"
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
		require.NoError(t, err)
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
