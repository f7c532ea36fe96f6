package spec

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// A llama-cli tail whose performance lines were cut off yields no metric:
// the audit says so in a finding naming the run and the tail's last line,
// never a silent zero.
func TestLlamaCLITailCutOff(t *testing.T) {
	const run = "llama_unpatched_step2_ub1024"
	_, fs := gateCopyRules(t, "summary",
		edit{"results/phase0_phase2_m5_validation.json", `\n[ Prompt: 14.3 t/s | Generation: 1.4 t/s ]`, ""})
	var hits []finding.Finding
	for _, f := range fs {
		if f.Severity == finding.Fail && strings.Contains(f.Message, "run "+run+": tail line") &&
			strings.Contains(f.Message, "llama-cli: no performance metric in the tail") {
			hits = append(hits, f)
		}
	}
	if len(hits) != 1 || hits[0].Source != run || hits[0].Line == 0 {
		t.Errorf("findings about %s's cut tail = %+v; want one fail naming the run and a tail line", run, hits)
	}
}

// fixtures/llamacpp, a folder of real llama.cpp outputs with a plan: every
// quoted number is bound, every run's output is read, every comparison is
// like for like or states its caveat, and the llama-bench comparison shows
// its U and p.
func TestLlamaCppFixture(t *testing.T) {
	fs := auditFindings(t, snaptest.Fixture(t, "llamacpp"), "plan,runs,compare")
	if f := failures(fs); len(f) != 0 {
		t.Errorf("fixtures/llamacpp: %d fail findings: %+v", len(f), f)
	}
	found := false
	for _, f := range fs {
		if f.Rule == "plan.unsourced" && f.Severity == finding.Pass && strings.Contains(f.Raw, "significant: Mann-Whitney U=2, p=0.03175") {
			found = true
		}
	}
	if !found {
		t.Errorf("fixtures/llamacpp: no pass finding with the prefill comparison's U and p")
	}
}
