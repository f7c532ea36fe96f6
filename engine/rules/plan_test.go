package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/finding"
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

func TestPlanRules(t *testing.T) {
	c := gateContext(t)
	var got []string
	for _, name := range []string{"plan.range", "plan.stale", "plan.unsourced"} {
		rs, err := Select(name)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := rs[0].Check(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range fs {
			if f.Severity != finding.Pass {
				got = append(got, strings.Join([]string{f.Severity.String(), f.Rule, f.ID, f.File, itoa(f.Line), f.Quote, f.Raw}, " "))
			}
		}
	}
	want := []string{
		"fail plan.range F13 PLAN.md 7 6.39–6.44 GB/s 3.66–6.44 GB/s",
		"fail plan.stale  PLAN.claims 8 1.00 GB ",
		"fail plan.unsourced F11 PLAN.md 7 3,194.23 ms 3,194.19 ms",
		"fail plan.unsourced  PLAN.md 8 12.5 ms nearest raw: 12.49 ms (r2: x), 3194.19 ms (r2: prefill_ms)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan rules =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func itoa(n int) string { return num.Format(float64(n), 0) }
