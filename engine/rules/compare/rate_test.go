package compare_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/rules/compare"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// A divisor that converts the amount's unit into the unit the plan quotes
// is a unit conversion, not a hard-coded rate (a checkout whose GPU times
// are in µs/tok divides by 1000 for the plan's ms/tok; that was a false
// F19); a literal that converts into another unit than the quote's, or
// converts nothing, is still a literal divisor.
func TestRateUnitConversion(t *testing.T) {
	const row = `§7.1 #5 | 16.11 + 56.29 ms/tok | strata_metal_optimized_k256_q2_0_moce085:host_wait_ms_per_tok ;`
	const host = `strata_metal_optimized_k256_q2_0_moce085:host_wait_ms_per_tok`
	tests := []struct {
		source string
		sev    finding.Severity
		msg    string
	}{
		{"div(to(" + host + ", us/tok), 1000)", finding.Pass, "divides by 1000, the conversion of µs/tok into the ms/tok it is quoted in: a unit conversion, not a rate"},
		{"div(to(" + host + ", ns/tok), 1000)", finding.Fail, "which divides by the number 1000, not by the run's own token count"},
		{"div(mul(" + host + ", 65), 65)", finding.Fail, "which divides by the number 65, not by the run's own token count"},
	}
	for _, tt := range tests {
		root := snaptest.CopyFixture(t, "m5")
		snaptest.Edit(t, filepath.Join(root, "PLAN.claims"), row, `§7.1 #5 | 16.11 + 56.29 ms/tok | `+tt.source+` ;`)
		var got []finding.Finding
		for _, f := range analysistest.Findings(t, root, compare.Rate) {
			if f.Check == "claims" {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Severity != tt.sev || !strings.Contains(got[0].Message, tt.msg) {
			t.Errorf("compare.rate on a row bound to %s = %v; want one %s finding saying %q", tt.source, got, tt.sev, tt.msg)
		}
	}
}
