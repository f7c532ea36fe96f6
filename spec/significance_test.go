package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// A claims row comparing two llama-bench configurations is tested for the
// significance of the difference (Mann-Whitney U, α = 0.05), as benchstat
// tests one. The snapshot is fixtures/m5 with two llama-bench runs added:
// the JSON and the JSONL output published in llama.cpp's
// tools/llama-bench/README.md (b5163; engine/llamacpp's corpus, kept as
// found). Their prefill samples separate (U = 2, p = 0.0317, 5 + 5): the
// comparison passes, with U and p in its finding. Their decode samples
// overlap (U = 5, p = 0.151): without a caveat the comparison fails as not
// significant.
func TestSignificanceOfComparisons(t *testing.T) {
	corpus := filepath.Join(snaptest.Root(), "engine", "llamacpp", "testdata", "corpus")
	run := func(name, format, file string) string {
		b, err := os.ReadFile(filepath.Join(corpus, file))
		if err != nil {
			t.Fatal(err)
		}
		r, err := json.Marshal(map[string]any{
			"name": name, "group": "llama_patched", "env": nil, "exit_code": 0, "duration_s": 12.5,
			"cmd":         []string{"/opt/llama.cpp/build/bin/llama-bench", "-m", "models/Qwen2.5-7B-Instruct-Q4_K_M.gguf", "-o", format},
			"output_tail": string(b),
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(r)
	}
	const lastLine = "- How much of the prompt scratch XNU charges to the process, measured rather than inferred.\n"
	// plan.unsourced passes a significant comparison; compare.significance
	// fails one that is not, under its own rule and fix.
	_, fs := gateCopyRules(t, "plan,compare.significance",
		edit{"results/phase0_phase2_m5_validation.json", "\n  \"runs\": [", "\n  \"runs\": [" +
			run("bench_json", "json", "bench-readme-b5163.json") + ",\n" + run("bench_jsonl", "jsonl", "bench-readme-b5163.jsonl") + ",\n"},
		edit{"PLAN.md", lastLine, lastLine + `
## 9. llama-bench

### 9.1 Repeated runs

#### #1 — One configuration, twice

- prefill 7100.00 → 7263.61 tok/s
- decode 118.88 → 119.84 tok/s
`},
		edit{"PLAN.claims", "section §7.1 #5\n", `section §7.1 #5
section §9.1 #1
§9.1 #1 | 7100.00 → 7263.61 tok/s | bench_json:pp512 ; bench_jsonl:pp512
§9.1 #1 | 118.88 → 119.84 tok/s | bench_json:tg128 ; bench_jsonl:tg128
`})
	find := func(quote string) []finding.Finding {
		var out []finding.Finding
		for _, f := range fs {
			if f.Quote == quote && (f.Severity == finding.Fail || f.Rule == "plan.unsourced") {
				out = append(out, f)
			}
		}
		return out
	}
	prefill := find("7100.00 → 7263.61 tok/s")
	if len(prefill) != 1 || prefill[0].Severity != finding.Pass ||
		!strings.Contains(prefill[0].Message, "significant: Mann-Whitney U=2, p=0.03175, n=5+5") {
		t.Errorf("prefill comparison findings = %+v; want one pass with U=2, p=0.03175", prefill)
	}
	decode := find("118.88 → 119.84 tok/s")
	var failed []finding.Finding
	for _, f := range decode {
		if f.Severity == finding.Fail && f.Rule == "compare.significance" {
			failed = append(failed, f)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0].Message, "do not differ significantly") ||
		!strings.Contains(failed[0].Message, "Mann-Whitney U=5, p=0.1508, n=5+5") {
		t.Errorf("decode comparison findings = %+v; want one fail, not significant, with U=5, p=0.1508", decode)
	}
}
