package all

import (
	"slices"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
)

// TestAnalyzersDescribed: every rule says what it checks, where reports
// group it, what fixes it and which facts it reads; names are unique.
func TestAnalyzersDescribed(t *testing.T) {
	families := []string{analysis.FamilyPlan, analysis.FamilyRuns, analysis.FamilyInputs, analysis.FamilyInvariants,
		analysis.FamilyCache, analysis.FamilyTFKLD, analysis.FamilyCode}
	seen := map[string]bool{}
	for _, a := range Analyzers() {
		if seen[a.Name] {
			t.Errorf("two analyzers named %s", a.Name)
		}
		seen[a.Name] = true
		if a.Doc == "" || a.Fix == "" || len(a.Facts) == 0 || a.Run == nil {
			t.Errorf("analyzer %s: doc %q, fix %q, %d facts; want all set", a.Name, a.Doc, a.Fix, len(a.Facts))
		}
		if !slices.Contains(families, a.Family) {
			t.Errorf("analyzer %s: family %q is not one of %v", a.Name, a.Family, families)
		}
	}
}
