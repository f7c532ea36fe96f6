package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

const gatePlan = `# p

### 7.1 R

#### #5 — round

- fill 3.66–6.44 GB/s and 6.39–6.44 GB/s; prefill 3,194.23 ms
- decode 9.51 → 13.52 tok/s; 12.5 ms unbound
`

const gateClaims = `section §7.1 #5
set all = r*
set cold = r1
§7.1 #5 | 3.66–6.44 GB/s | range(@all:fill) | id=F08
§7.1 #5 | 6.39–6.44 GB/s | range(@all:fill) | id=F13
§7.1 #5 | 3,194.23 ms | r2:prefill_ms | id=F11
§7.1 #5 | 9.51 → 13.52 tok/s | r1:dec ; r2:dec
§7.1 #5 | 1.00 GB | r1:fill
`

// gateContext builds a context by hand: two runs, a plan and a claims table.
func gateContext(t *testing.T) *Context {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{PlanFile: gatePlan, "PLAN.claims": gateClaims} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap := &archive.Snapshot{Root: dir, Runs: []*archive.Run{
		{Name: "r1", Group: archive.GroupSpeed, Parser: checkout.ParserStrata, Cmd: []string{"cli", "--model", "a.gguf"}},
		{Name: "r2", Group: archive.GroupSpeed, Parser: checkout.ParserStrata, Cmd: []string{"cli", "--model", "a.gguf"}},
		{Name: "r3", Group: archive.GroupSpeed, Parser: checkout.ParserStrata, Cmd: []string{"cli", "--model", "a.gguf"}},
	}}
	m := func(name, text, unit string) tail.Metric {
		return tail.Metric{Name: name, Num: num.MustParse(text), Unit: unit, Line: 1}
	}
	return &Context{Snap: snap, Metrics: map[string]*tail.Metrics{
		"r1": {List: []tail.Metric{m("fill", "3.66", "GB/s"), m("dec", "9.51", "tok/s")}},
		"r2": {List: []tail.Metric{m("fill", "6.44", "GB/s"), m("prefill_ms", "3194.19", "ms"), m("dec", "13.52", "tok/s"), m("x", "12.49", "ms")}},
		"r3": {List: []tail.Metric{m("fill", "6.39", "GB/s")}},
	}}
}

func itoa(n int) string { return num.Format(float64(n), 0) }

// TestColdPairs: the kld rule's sample-size check of pairs quoted from one
// run per side (F30). r1 is the first run on a.gguf, so the decode pair is
// cold on one side; it warns until its row names a caveat PLAN states, and a
// set cold that is not the first run per model file fails.
func TestColdPairs(t *testing.T) {
	tests := []struct {
		name         string
		claims, plan string
		want         []string
	}{
		{"no caveat", gateClaims, gatePlan, []string{
			"pass kld F30 PLAN.claims 3 set cold r1",
			"warn kld F30 PLAN.md 8 9.51 → 13.52 tok/s 9.51 → 13.52 tok/s",
		}},
		{"caveat stated",
			strings.Replace(gateClaims, "r1:dec ; r2:dec", "r1:dec ; r2:dec | caveat=n1", 1),
			gatePlan + "\n> **Caveat** (n1): one run per side.\n",
			[]string{"pass kld F30 PLAN.claims 3 set cold r1", "pass kld F30 PLAN.md 8 9.51 → 13.52 tok/s 9.51 → 13.52 tok/s"}},
		{"caveat named, not stated",
			strings.Replace(gateClaims, "r1:dec ; r2:dec", "r1:dec ; r2:dec | caveat=n1", 1), gatePlan,
			[]string{"pass kld F30 PLAN.claims 3 set cold r1", "warn kld F30 PLAN.md 8 9.51 → 13.52 tok/s 9.51 → 13.52 tok/s"}},
		{"cold set wrong", strings.Replace(gateClaims, "set cold = r1", "set cold = r2", 1), gatePlan, []string{
			"fail kld F30 PLAN.claims 3 set cold r2",
			"warn kld F30 PLAN.md 8 9.51 → 13.52 tok/s 9.51 → 13.52 tok/s",
		}},
		{"no cold set", strings.Replace(gateClaims, "set cold = r1\n", "", 1), gatePlan, nil},
	}
	for _, tt := range tests {
		c := gateContext(t)
		for name, text := range map[string]string{PlanFile: tt.plan, "PLAN.claims": tt.claims} {
			if err := os.WriteFile(filepath.Join(c.Snap.Root, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fs, err := coldPairs(c)
		if err != nil {
			t.Fatalf("%s: coldPairs: %v", tt.name, err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, strings.Join([]string{f.Severity.String(), f.Rule, f.ID, f.File, itoa(f.Line), f.Quote, f.Raw}, " "))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: coldPairs =\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}
