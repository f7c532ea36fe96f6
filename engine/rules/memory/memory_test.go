package memory_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/rules/memory"
	"github.com/strataspec/strataspec/engine/snaptest"
)

func TestMemoryFixtures(t *testing.T) {
	fs := analysistest.Findings(t, snaptest.Fixture(t, "m5-v3"), memory.Memory)
	if bad := analysistest.BySeverity(fs, finding.Fail); len(bad) > 0 {
		t.Errorf("memory fails on m5-v3: %v", bad)
	}
	for _, w := range []struct {
		sev  finding.Severity
		id   string
		text []string
	}{
		{finding.Pass, "F07", []string{"0.0 MiB swapout in all 22 runs", "min_avail 2.85–3.36 GiB"}},
		{finding.Pass, "F22", []string{"all 14 tails that log an expert arena", "1,024-tok run 4.73 → 4.67 and 7.65 → 7.60", "2,048-tok run 4.73 → 4.67 and 7.65 → 7.60"}},
		{finding.Warn, "F25", []string{"XNU bills only", "hypothesis", "0.052 GB", "xnu-billing-hypothesis"}},
	} {
		if !analysistest.Has(fs, w.sev, w.id, w.text...) {
			t.Errorf("m5-v3: no %s %s finding with %q in %v", w.sev, w.id, w.text, fs)
		}
	}
}

func TestMemoryDetectsChanges(t *testing.T) {
	tests := []struct {
		name  string
		edits []analysistest.Edit
		sev   finding.Severity
		id    string
		want  []string
	}{
		{"swapout in one run",
			[]analysistest.Edit{analysistest.Results(`(0.0 MiB swapout)\n[runner] min_avail 3.36 GiB`, `(1.5 MiB swapout)\n[runner] min_avail 3.36 GiB`)},
			finding.Fail, "F07", []string{"run strata_tf_iq3_s_ops_tools swapped", "1.5 MiB"}},
		{"memory pressure",
			[]analysistest.Edit{analysistest.Results("[runner] min_avail 3.36 GiB", "[runner] min_avail 0.36 GiB")},
			finding.Warn, "F07", []string{"run strata_tf_iq3_s_ops_tools", "0.36 GiB"}},
		{"prompt_region missing",
			[]analysistest.Edit{analysistest.Results(`prompt_region(false): phys_footprint 4.73 GB -> 4.67 GB, resident_size 7.65 GB -> 7.60 GB\ndecode: [16/64] 13.27`, `decode: [16/64] 13.27`)},
			finding.Fail, "F22", []string{"run strata_q2_0_moce085_prefill_1024tok", "no prompt_region(false) line"}},
		{"prompt_region grows",
			[]analysistest.Edit{analysistest.Results(`phys_footprint 4.73 GB -> 4.67 GB, resident_size 7.65 GB -> 7.60 GB\ndecode: [16/64] 13.27`, `phys_footprint 4.73 GB -> 4.79 GB, resident_size 7.65 GB -> 7.60 GB\ndecode: [16/64] 13.27`)},
			finding.Warn, "F22", []string{"run strata_q2_0_moce085_prefill_1024tok", "grew"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := analysistest.Findings(t, analysistest.Copy(t, "m5-v3", tt.edits...), memory.Memory)
			if !analysistest.Has(fs, tt.sev, tt.id, tt.want...) {
				t.Errorf("memory after %s: no %s %s finding naming %q in %v", tt.name, tt.sev, tt.id, tt.want, fs)
			}
		})
	}
}

// TestMemoryXNUCaveat: a caveat in the claim's section turns the F25 warning
// into a pass; one in another section does not.
func TestMemoryXNUCaveat(t *testing.T) {
	plan := snaptest.Read(t, filepath.Join(snaptest.Fixture(t, "m5-v3"), "PLAN.md"))
	lines := strings.Split(plan, "\n")
	claim := -1
	for i, l := range lines {
		if strings.Contains(l, "XNU bills only") {
			claim = i
		}
	}
	if claim < 0 {
		t.Fatal("fixtures/m5-v3/PLAN.md no longer states the XNU claim (audit §2 ⚠, F25)")
	}
	caveat := "> **Caveat** (xnu-billing-hypothesis): the billing mechanism is a hypothesis; it was not measured."
	withCaveat := strings.Join(append(append(append([]string{}, lines[:claim+1]...), "", caveat, ""), lines[claim+1:]...), "\n")
	fs := analysistest.Findings(t, analysistest.Copy(t, "m5-v3", analysistest.Edit{File: "PLAN.md", Old: plan, New: withCaveat}), memory.Memory)
	if !analysistest.Has(fs, finding.Pass, "F25", "labelled a hypothesis") || analysistest.Has(fs, finding.Warn, "F25") {
		t.Errorf("memory with the caveat in the section: want an F25 pass and no warn, got %v", fs)
	}
	elsewhere := strings.Join(append([]string{"# Preface", "", caveat, ""}, lines...), "\n")
	fs = analysistest.Findings(t, analysistest.Copy(t, "m5-v3", analysistest.Edit{File: "PLAN.md", Old: plan, New: elsewhere}), memory.Memory)
	if !analysistest.Has(fs, finding.Warn, "F25", "hypothesis") {
		t.Errorf("memory with the caveat outside the section: want the F25 warn, got %v", fs)
	}
}
