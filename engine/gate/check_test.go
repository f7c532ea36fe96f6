package gate

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/claims/eval/evaltest"
	"github.com/strataspec/strataspec/engine/plan"
)

const checkPlan = `# p

### 7.1 R

#### #5 — v3

- fill 6.39–6.44 GB/s, 0.5 s, prefill 3,194.23 ms; dense 4.220 GB
- split 82.17 + 9.38 %; decode 9.51 → 13.52 tok/s; 77.77 %

> **Caveat** (n1): one run per side.

### 8 Outside

- 99.99 % is not in a claim section
`

func TestCheck(t *testing.T) {
	tb := evaltest.Parse("PLAN.claims", `section §7.1 #5
section §9
set s = r*
§7.1 #5 | 6.39–6.44 GB/s | range(@s:fill) | id=F13
§7.1 #5 | 0.5 s | range(@s:fill_s)
§7.1 #5 | 3,194.23 ms | r1:prefill_ms | id=F11
§7.1 #5 | 4.220 GB | r1:dense_gib
§7.1 #5 | 82.17 + 9.38 % | r2:arena ; r2:ra
§7.1 #5 | 9.51 → 13.52 tok/s | r1:dec ; r2:dec | caveat=n1 caveat=cold
§7.1 #5 | 1.23 ms | r1:prefill_ms
§7.1 #5 | 9.51 → 13.52 tok/s | r1:dec ; r9:dec
`)
	if err := tb.Err(); err != nil {
		t.Fatal(err)
	}
	e := evaltest.Env(t, tb, map[string][]string{
		"r1": {"fill=3.66 GB/s", "fill_s=0.9 s", "prefill_ms=3194.19 ms", "dense_gib=4.220 GiB", "dec=9.51 tok/s", "x=77.78 %"},
		"r2": {"fill=6.39 GB/s", "fill_s=0.4 s", "arena=82.17 %", "ra=9.38 %", "dec=13.52 tok/s"},
		"r3": {"fill=6.44 GB/s", "fill_s=0.4 s"},
	}, "r1", "r2", "r3")
	doc := plan.Parse("PLAN.md", []byte(checkPlan))
	res := Check(doc, tb, e)
	type got struct {
		quote  string
		status Status
		raw    string
	}
	var gs []got
	for _, b := range res.Bindings {
		gs = append(gs, got{b.Row.Quote, b.Status, b.Raw})
	}
	want := []got{
		{"6.39–6.44 GB/s", DropsRuns, "3.66–6.44 GB/s"},
		{"0.5 s", Mismatch, "0.4–0.9 s"},
		{"3,194.23 ms", Mismatch, "3,194.19 ms"},
		{"4.220 GB", Mismatch, "4.220 GiB"}, // GB quoted, GiB printed: the unit decides, the raw keeps its own
		{"82.17 + 9.38 %", Match, "82.17 + 9.38 %"},
		{"9.51 → 13.52 tok/s", CaveatMissing, "9.51 → 13.52 tok/s"}, // (n1) stated, (cold) not
		{"1.23 ms", Stale, ""},
		{"9.51 → 13.52 tok/s", BadSource, ""},
	}
	if len(gs) != len(want) {
		t.Fatalf("Check bindings = %+v; want %+v", gs, want)
	}
	for i := range want {
		if gs[i] != want[i] {
			t.Errorf("binding %d = %+v; want %+v", i, gs[i], want[i])
		}
	}
	if d := res.Bindings[0].Dropped; len(d) != 1 || d[0].Run != "r1" {
		t.Errorf("DropsRuns dropped = %+v; want r1", d)
	}
	if !strings.Contains(res.Bindings[3].Msg, "unit: 4.220 is quoted in GB, its source is in GiB") {
		t.Errorf("unit mismatch message = %q", res.Bindings[3].Msg)
	}
	if len(res.Bindings[2].Elsewhere) != 1 || len(res.Bindings[2].Elsewhere[0]) != 0 {
		t.Errorf("3,194.23 elsewhere = %+v; want in no run", res.Bindings[2].Elsewhere)
	}
	if len(res.Unbound) != 1 || res.Unbound[0].Token.Text != "77.77 %" || res.Unbound[0].Token.Line != 8 {
		t.Fatalf("Unbound = %+v; want 77.77 %% on line 8 (and not the 99.99 %% outside the claim sections)", res.Unbound)
	}
	if n := res.Unbound[0].Nearest[0]; len(n) == 0 || n[0].Run != "r1" || n[0].Metric != "x" {
		t.Errorf("nearest to 77.77 %% = %+v; want r1: x (77.78 %%) first", n)
	}
	if len(res.MissingSections) != 1 || res.MissingSections[0].Place != "§9" {
		t.Errorf("MissingSections = %+v; want §9", res.MissingSections)
	}
}

func TestMeasurement(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"14.27 tok/s", true}, {"75.00 %", true}, {"2.67×", true}, {"1,024-token", true},
		{"6.39–6.44", true}, {"9.51 → 13.52", true}, {"0.064 ± 0.002", true},
		{"14", false}, {"×3", false}, {"5 + 9 + 4 + 4", false}, {"82.17 + 9.38 %", true},
	}
	for _, tt := range tests {
		toks := plan.Scan(tt.in)
		if len(toks) != 1 {
			t.Fatalf("Scan(%q) = %v; want one token", tt.in, toks)
		}
		if got := Measurement(toks[0]); got != tt.want {
			t.Errorf("Measurement(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

// TestHeadingPlaces: a skip or section line names a place by its number or
// by its heading path; one that names no heading of the plan is missing,
// at its line (a llama.cpp user's plan: an untitled first heading of design
// targets, and skips that named nothing).
func TestHeadingPlaces(t *testing.T) {
	doc := plan.Parse("PLAN.md", []byte("# Inference plan — design targets\n\n10 tok/s\n\n## 1. Runs\n\n### Warm runs\n\n9.5 tok/s\n"))
	checkPlaces(t, doc, []placeCase{
		{"skip Inference plan — design targets", false},
		{"skip inference plan —  design targets", false},
		{"skip §1 > Warm runs", false},
		{"skip Inference plan — design targets > Warm runs", false},
		{"skip Inference plan > Warm runs", true}, // a path element is a whole heading text
		{"skip §0", true},
		{"skip #1", true},
		{"skip §1.0", true},
		{"skip Design targets", true},
	})
	if err := evaltest.Parse("PLAN.claims", "skip 1.3 Targets\n").Err(); err == nil || !strings.Contains(err.Error(), "PLAN.claims:1") {
		t.Errorf("Parse(skip 1.3 Targets) error = %v; want a syntax error at PLAN.claims:1", err)
	}
}

// TestCheckLeavesEnv: Check writes nothing it is given: a second check of
// the same plan in the same environment gives the same bindings and the
// same nearest values, and the environment's values are as they were.
func TestCheckLeavesEnv(t *testing.T) {
	tb := evaltest.Parse("PLAN.claims", "section §7.1 #5\nset s = r*\n§7.1 #5 | 3,194.23 ms | r1:prefill_ms\n§7.1 #5 | 6.39–6.44 GB/s | range(@s:fill)\n§7.1 #5 | 82.17 + 9.38 % | r2:arena ; r2:ra\n")
	e := evaltest.Env(t, tb, map[string][]string{
		"r1": {"fill=3.66 GB/s", "prefill_ms=3194.19 ms", "x=77.78 %"},
		"r2": {"fill=6.39 GB/s", "arena=82.17 %", "ra=9.38 %"},
	}, "r1", "r2")
	items := slices.Clone(e.Items(""))
	doc := plan.Parse("PLAN.md", []byte(checkPlan))
	summary := func(res *Result) []string {
		var out []string
		for _, b := range res.Bindings {
			out = append(out, fmt.Sprintf("%s %s %s %s", b.Row.Quote, b.Status, b.Raw, b.Msg))
		}
		for _, u := range res.Unbound {
			out = append(out, fmt.Sprintf("unbound %s %v", u.Token.Text, u.Nearest))
		}
		return out
	}
	first, second := summary(Check(doc, tb, e)), summary(Check(doc, tb, e))
	if len(first) == 0 {
		t.Fatal("Check = no bindings and nothing unbound; want both")
	}
	if d := cmp.Diff(first, second); d != "" {
		t.Errorf("Check twice in one environment differs (-first +second):\n%s", d)
	}
	if d := cmp.Diff(items, e.Items("")); d != "" {
		t.Errorf("Env.Items after Check differs (-before +after):\n%s", d)
	}
}
