package all

import (
	"slices"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/metric"
)

// TestAnalyzersDescribed: every rule says what it checks, where reports
// group it, what fixes it and names are unique.
func TestAnalyzersDescribed(t *testing.T) {
	families := []string{analysis.FamilyPlan, analysis.FamilyRuns, analysis.FamilyInputs, analysis.FamilyInvariants,
		analysis.FamilyCache, analysis.FamilyTFKLD, analysis.FamilyCode}
	seen := map[string]bool{}
	for _, a := range Analyzers() {
		if seen[a.Name] {
			t.Errorf("two analyzers named %s", a.Name)
		}
		seen[a.Name] = true
		if a.Doc == "" || a.Fix == "" || a.Run == nil {
			t.Errorf("analyzer %s: doc %q, fix %q; want both set", a.Name, a.Doc, a.Fix)
		}
		if !slices.Contains(families, a.Family) {
			t.Errorf("analyzer %s: family %q is not one of %v", a.Name, a.Family, families)
		}
	}
}

// TestAnalyzerMetricsInVocabulary: every metric an analyzer declares it
// reads is a name of the metric vocabulary, with a unit and kind there; the
// rules that read the engine's logs declare some.
func TestAnalyzerMetricsInVocabulary(t *testing.T) {
	declared := 0
	for _, a := range Analyzers() {
		for _, name := range a.Metrics {
			d, ok := metric.Lookup(name)
			if !ok {
				t.Errorf("analyzer %s declares metric %q, which the vocabulary (engine/metric) does not define", a.Name, name)
				continue
			}
			if d.Kind != metric.Deterministic && d.Kind != metric.Measured {
				t.Errorf("metric.Lookup(%q).Kind = %v; want deterministic or measured", name, d.Kind)
			}
			declared++
		}
	}
	for _, name := range []string{"arena", "scratch", "memory", "parity", "selftest", "tf", "kld"} {
		i := slices.IndexFunc(Analyzers(), func(a *analysis.Analyzer) bool { return a.Name == name })
		if i < 0 || len(Analyzers()[i].Metrics) == 0 {
			t.Errorf("analyzer %s declares no metrics; want the metrics it reads", name)
		}
	}
	if declared == 0 {
		t.Error("no analyzer declares a metric")
	}
}
