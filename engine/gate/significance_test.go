package gate

import (
	"os"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/claims/eval/evaltest"
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

const sigPlan = `# p

### 9.1 Bench

#### #1 — Two runs

- prefill 7100.00 → 7263.61 tok/s
- decode 118.88 → 119.84 tok/s
- decode again 118.9 → 119.8 tok/s
- prefill against the CSV run 7100.00 → 7285.68 tok/s

> **Caveat** (one-machine): both runs on one machine, a minute apart.
`

// Two llama-bench runs of one configuration, published in llama.cpp's
// tools/llama-bench/README.md (the corpus of engine/llamacpp): their prefill
// samples separate (U = 2, p = 0.0317 for 5 + 5), their decode samples
// overlap (U = 5, p = 0.151).
func TestCheckSignificance(t *testing.T) {
	read := func(name string) *tail.Metrics {
		b, err := os.ReadFile("../llamacpp/testdata/corpus/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return llamacpp.ParseProgram(llamacpp.ProgramBench, name, string(b))
	}
	tb := evaltest.Parse("PLAN.claims", `section §9.1 #1
§9.1 #1 | 7100.00 → 7263.61 tok/s | a:pp512 ; b:pp512
§9.1 #1 | 118.88 → 119.84 tok/s | a:tg128 ; b:tg128
§9.1 #1 | 118.9 → 119.8 tok/s | a:tg128 ; b:tg128 | caveat=one-machine
§9.1 #1 | 7100.00 → 7285.68 tok/s | a:pp512 ; c:pp512
`)
	if err := tb.Err(); err != nil {
		t.Fatal(err)
	}
	e := eval.NewEnv(tb, []string{"a", "b", "c"}, map[string]*tail.Metrics{
		"a": read("bench-readme-b5163.json"), "b": read("bench-readme-b5163.jsonl"), "c": read("bench-readme-b5163.csv"),
	}, nil)
	res := Check(plan.Parse("PLAN.md", []byte(sigPlan)), tb, e)
	tests := []struct {
		status Status
		has    []string // in Raw for a match, in Msg otherwise
	}{
		{Match, []string{"significant: Mann-Whitney U=2, p=0.03175, n=5+5", "ratio of medians 1.02 (no 95% interval: need ≥ 6 samples a side)"}},
		{CaveatMissing, []string{"§9.1 #1: 118.88 → 119.84 tok/s compares a: tg128 (tail line 39) and b: tg128 (tail line 2)",
			"do not differ significantly", "U=5, p=0.1508, n=5+5", "PLAN.claims:3"}},
		{Match, []string{"not significant, caveat stated: Mann-Whitney U=5, p=0.1508"}},
		{CaveatMissing, []string{"n=5+1", "do not differ significantly"}},
	}
	if len(res.Bindings) != len(tests) {
		t.Fatalf("Check: %d bindings; want %d", len(res.Bindings), len(tests))
	}
	for i, tt := range tests {
		b := res.Bindings[i]
		text := b.Msg
		if tt.status == Match {
			text = b.Raw
		}
		if b.Status != tt.status || b.Significance == nil {
			t.Errorf("binding %d (%s) = %v, significance %v; want %v", i, b.Row.Quote, b.Status, b.Significance, tt.status)
		}
		for _, h := range tt.has {
			if !strings.Contains(text, h) {
				t.Errorf("binding %d (%s) says %q; want it to contain %q", i, b.Row.Quote, text, h)
			}
		}
	}
	// The JSON and JSONL rows agree on every configuration field.
	if u := res.Bindings[0].Significance.Unlike; len(u) != 0 {
		t.Errorf("Unlike(JSON row, JSONL row) = %v; want none", u)
	}
}

// A row comparing metrics without samples is not tested.
func TestCheckSignificanceNoSamples(t *testing.T) {
	e := eval.NewEnv(&claims.Table{}, []string{"a", "b"}, map[string]*tail.Metrics{"a": {List: []tail.Metric{{Name: "m", Line: 1}}}, "b": {List: []tail.Metric{{Name: "m", Line: 1}}}}, nil)
	if s := significance(e, nil, []eval.Value{{Kind: eval.Scalar, X: eval.Item{Run: "a", Metric: "m", Line: 1}}, {Kind: eval.Scalar, X: eval.Item{Run: "b", Metric: "m", Line: 1}}}); s != nil {
		t.Errorf("significance(no samples) = %v; want nil", s)
	}
}
