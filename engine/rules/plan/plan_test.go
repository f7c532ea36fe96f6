package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/num"
	planmd "github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/tail"
)

const gatePlan = `# p

### 7.1 R

#### #5 — round

- fill 3.66–6.44 GB/s and 6.39–6.44 GB/s; prefill 3,194.23 ms
- decode 9.51 → 13.52 tok/s; 12.5 ms unbound
- at MoCE=0.95 the decode is 13.52 tok/s

### 8 Notes

- 7.5 GB/s outside the claim sections
`

const gateClaims = `section §7.1 #5
set all = r*
§7.1 #5 | 3.66–6.44 GB/s | range(@all:fill) | id=F08
§7.1 #5 | 6.39–6.44 GB/s | range(@all:fill) | id=F13
§7.1 #5 | 3,194.23 ms | r2:prefill_ms | id=F11
§7.1 #5 | 9.51 → 13.52 tok/s | r1:dec ; r2:dec
§7.1 #5 | 13.52 tok/s | r2:dec
§7.1 #5 | 1.00 GB | r1:fill
`

// gateFacts builds a driver over a snapshot made by hand: three runs with their
// metrics, a plan and a claims table.
func gateFacts(t *testing.T, planText, claimsText string) *analysis.Driver {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"PLAN.md": planText, "PLAN.claims": claimsText} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatalf("writing %s: %v", name, err)
		}
	}
	run := func(name, moce string) *archive.Run {
		return &archive.Run{Name: name, Group: "speed", Parser: format.Strata,
			Cmd: []string{"cli", "--model", "K256-Q2_0.gguf", "--moce", moce}}
	}
	snap := &archive.Snapshot{Root: dir, Runs: []*archive.Run{run("r1", "0"), run("r2", "0.85"), run("r3", "0.85")}}
	m := func(name, text, unit string) tail.Metric {
		return tail.Metric{Name: name, Num: num.MustParse(text), Unit: unit, Line: 1}
	}
	d := analysis.NewDriver(snap)
	d.Preset(facts.RunMetrics.Analyzer, map[string]*tail.Metrics{
		"r1": {List: []tail.Metric{m("fill", "3.66", "GB/s"), m("dec", "9.51", "tok/s")}},
		"r2": {List: []tail.Metric{m("fill", "6.44", "GB/s"), m("prefill_ms", "3194.19", "ms"), m("dec", "13.52", "tok/s"), m("x", "12.49", "ms")}},
		"r3": {List: []tail.Metric{m("fill", "6.39", "GB/s")}},
	})
	d.Preset(facts.RecordMetrics.Analyzer, map[string]*tail.Metrics{})
	return d
}

func lines(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Severity != finding.Pass {
			out = append(out, strings.Join([]string{f.Severity.String(), f.Rule, f.ID, f.File, num.Format(float64(f.Line), 0), f.Quote, f.Raw}, " "))
		}
	}
	return out
}

func TestPlanRules(t *testing.T) {
	res, err := gateFacts(t, gatePlan, gateClaims).Run(Analyzers())
	if err != nil {
		t.Fatalf("plan rules over the gate plan: %v", err)
	}
	var got []string
	for _, r := range res {
		if r.NotApplied != "" {
			t.Errorf("%s not applied: %s", r.Analyzer.Name, r.NotApplied)
		}
		got = append(got, lines(r.Findings)...)
	}
	want := []string{
		"fail plan.label  PLAN.md 9 MoCE=0.95 the runs its numbers are bound to ran with --moce 0.85 (r2)",
		"fail plan.range F13 PLAN.md 7 6.39–6.44 GB/s 3.66–6.44 GB/s",
		"fail plan.stale  PLAN.claims 8 1.00 GB ",
		"warn plan.uncovered  PLAN.md 13 7.5 GB/s ",
		"warn plan.uncovered  PLAN.claims 0  gated=6 ungated=1 skipped=0",
		"fail plan.unsourced F11 PLAN.md 7 3,194.23 ms 3,194.19 ms",
		"fail plan.unsourced  PLAN.md 8 12.5 ms nearest raw: 12.49 ms (r2: x), 3194.19 ms (r2: prefill_ms)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan rules =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPlanRulesMissingInput: a snapshot of runs without a plan (a folder
// of logs being adopted) is not a broken one: the plan rules say "no
// PLAN.md". A plan without its claims table must not pass silently:
// plan.uncovered lists its numbers as ungated, and the rules that read
// claims rows say there is no table.
func TestPlanRulesMissingInput(t *testing.T) {
	set := gateFacts(t, gatePlan, gateClaims)
	if err := os.Remove(filepath.Join(set.Snapshot().Root, "PLAN.md")); err != nil {
		t.Fatalf("removing PLAN.md: %v", err)
	}
	res, err := set.Run(Analyzers())
	if err != nil {
		t.Fatalf("plan rules without PLAN.md: %v; want no error", err)
	}
	for _, r := range res {
		if r.NotApplied != "no PLAN.md" || len(r.Findings) != 0 {
			t.Errorf("%s without PLAN.md: not applied %q, %d findings; want \"no PLAN.md\" and none", r.Analyzer.Name, r.NotApplied, len(r.Findings))
		}
	}

	set = gateFacts(t, gatePlan, gateClaims)
	if err := os.Remove(filepath.Join(set.Snapshot().Root, "PLAN.claims")); err != nil {
		t.Fatalf("removing PLAN.claims: %v", err)
	}
	res, err = set.Run(Analyzers())
	if err != nil {
		t.Fatalf("plan rules without PLAN.claims: %v; want no error", err)
	}
	for _, r := range res {
		if r.Analyzer != Uncovered {
			if !strings.HasPrefix(r.NotApplied, "no PLAN.claims") {
				t.Errorf("%s without PLAN.claims: not applied %q; want \"no PLAN.claims…\"", r.Analyzer.Name, r.NotApplied)
			}
			continue
		}
		got := lines(r.Findings)
		want := []string{
			"warn plan.uncovered  PLAN.md 7 3.66–6.44 GB/s ",
			"warn plan.uncovered  PLAN.md 7 6.39–6.44 GB/s ",
			"warn plan.uncovered  PLAN.md 7 3,194.23 ms ",
			"warn plan.uncovered  PLAN.md 8 9.51 → 13.52 tok/s ",
			"warn plan.uncovered  PLAN.md 8 12.5 ms ",
			"warn plan.uncovered  PLAN.md 9 13.52 tok/s ",
			"warn plan.uncovered  PLAN.md 13 7.5 GB/s ",
			"fail plan.uncovered  PLAN.md 0  ", // adopt: no claims table, the gate binds nothing
			"warn plan.uncovered  PLAN.md 0  gated=0 ungated=7 skipped=0",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("plan.uncovered without PLAN.claims: findings (-want +got):\n%s", diff)
		}
		strict := report.New("x", []string{"plan"}, Strict(r.Findings))
		if got := strict.Summary.Fail; got != 8 {
			t.Errorf("-strict without PLAN.claims: %d fails; want 8, the adopt fail and the 7 ungated numbers", got)
		}
	}
}

func TestStrict(t *testing.T) {
	fs := []finding.Finding{
		{Rule: "plan.uncovered", Check: UncoveredCheck, Severity: finding.Warn},
		{Rule: "plan.uncovered", Check: GateCheck, Severity: finding.Pass},
		{Rule: "memory", Severity: finding.Warn},
	}
	got := Strict(fs)
	if got[0].Severity != finding.Fail || got[1].Severity != finding.Pass || got[2].Severity != finding.Warn || fs[0].Severity != finding.Warn {
		t.Errorf("Strict = %v (input after: %v); want only the ungated warning failed, the input unchanged", got, fs)
	}
}

func TestLabelValues(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{{"0.85", "0.850", true}, {"0.95", "0.85", false}, {"fast", "FAST", true}, {"1,024", "1024", true}, {"x", "1", false}}
	for _, tt := range tests {
		if got := sameValue(tt.a, tt.b); got != tt.want {
			t.Errorf("sameValue(%q, %q) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
	for in, want := range map[string]string{"-ub": "ubatch_size", "--ubatch-size": "ubatch_size", "MoCE": "moce", "--n-gen": "n_gen", "STRATA_X": "strata_x"} {
		if got := labelKey(in); got != want {
			t.Errorf("labelKey(%q) = %q; want %q", in, got, want)
		}
	}
	rl := labelsOf(&archive.Run{Cmd: []string{"/bin/llama-cli", "-m", "/m/K256-Q2_K.gguf", "-ub", "1024", "--ctx-size=4096", "-st"}, Env: map[string]string{"STRATA_METAL_MATH": "fast"}}, nil)
	if rl.settings["ubatch_size"] != "1024" || rl.settings["ctx_size"] != "4096" || rl.settings["strata_metal_math"] != "fast" || rl.model != "K256-Q2_K.gguf" || strings.Join(rl.parts, " ") != "K256 Q2_K gguf" {
		t.Errorf("labelsOf = %+v", rl)
	}
	// A metric carrying the configuration it was measured under (a
	// llama-bench row) gives the run its settings, whoever parsed it.
	config := &tail.Detail{Config: []tail.Field{{Key: "n_ubatch", Value: "512"}, {Key: "n_gen", Value: "128"}}}
	bench := &tail.Metrics{List: []tail.Metric{{Name: "pp512", Num: num.MustParse("7100.0"), Detail: config}}}
	rl = labelsOf(&archive.Run{Cmd: []string{"llama-bench"}}, bench)
	if msg, v := checkLabel(planmd.Labels("`-ub 1024`")[0], []string{"b"}, []runLabels{rl}); v != labelDiffers || !strings.Contains(msg, "n_ubatch 512 (b)") {
		t.Errorf("-ub 1024 against a llama-bench record with n_ubatch 512: %q, verdict %v; want a disagreement naming n_ubatch 512", msg, v)
	}
	if _, v := checkLabel(planmd.Labels("--n-gen 128")[0], []string{"b"}, []runLabels{rl}); v != labelAgrees {
		t.Errorf("--n-gen 128 against n_gen 128: verdict %v; want agreement", v)
	}
	if msg, v := checkLabel(planmd.Labels("MoCE=0.85")[0], []string{"b"}, []runLabels{rl}); v != labelUnrecorded || !strings.Contains(msg, "no bound run records setting MoCE") {
		t.Errorf("MoCE=0.85 against a record without MoCE: %q, verdict %v; want \"no bound run records setting MoCE\"", msg, v)
	}
	if _, v := checkLabel(planmd.Labels("MoCE=0.85")[0], nil, nil); v != labelUnchecked {
		t.Errorf("MoCE=0.85 with no bound run: verdict %v; want unchecked", v)
	}
}

// findingsOf runs the plan rules over a plan and claims table and returns
// the findings that are not passes, as lines.
func findingsOf(t *testing.T, planText, claimsText string) []string {
	t.Helper()
	res, err := gateFacts(t, planText, claimsText).Run(Analyzers())
	if err != nil {
		t.Fatalf("plan rules over %q and %q: %v", planText, claimsText, err)
	}
	var got []string
	for _, r := range res {
		got = append(got, lines(r.Findings)...)
	}
	return got
}

// TestFencedBlocks: a fence closes only with its own character (CommonMark),
// so "```", "~~~", "```" does not leave the prose after it unchecked; the
// numbers inside a fenced block in a claim section are claims like any
// other: a number there that no row binds is unsourced.
func TestFencedBlocks(t *testing.T) {
	fenced := strings.Replace(gatePlan, "- at MoCE=0.95", "```\n~~~\n```\n- 99.9 GB/s after the fences\n```text\nfill 7.7 GB/s in a log\n```\n- at MoCE=0.95", 1)
	got := findingsOf(t, fenced, gateClaims)
	wantFindings(t, "plan with fences", got,
		"fail plan.unsourced  PLAN.md 12 99.9 GB/s ",
		"fail plan.unsourced  PLAN.md 14 7.7 GB/s ",
		"warn plan.uncovered  PLAN.claims 0  gated=8 ungated=1 skipped=0")
}

// wantFindings reports each of want that no finding line of got starts with.
func wantFindings(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
			t.Errorf("%s: no finding %q among\n%s", what, w, strings.Join(got, "\n"))
		}
	}
}

// TestEmptyCaveat: a caveat with an empty body does not satisfy a row that
// names it.
func TestEmptyCaveat(t *testing.T) {
	claimsText := strings.Replace(gateClaims, "| r1:dec ; r2:dec", "| r1:dec ; r2:dec | caveat=n1", 1)
	for _, tt := range []struct {
		body string
		fail bool
	}{{".", true}, {"", true}, {"one run per side.", false}} {
		planText := strings.Replace(gatePlan, "\n### 8 Notes", "> **Caveat** (n1): "+tt.body+"\n\n### 8 Notes", 1)
		got := findingsOf(t, planText, claimsText)
		failed := slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, "fail plan.stale  PLAN.md 8 9.51 → 13.52 tok/s") })
		if failed != tt.fail {
			t.Errorf("caveat (n1) with body %q: plan.stale fails the row = %v; want %v\n%s", tt.body, failed, tt.fail, strings.Join(got, "\n"))
		}
	}
}

// TestLabelGaps: a setting or flag no bound run records is a warning, not
// a silent pass; a flag in prose is reported once, by plan.label, not also
// as an unsourced number; a flag on a claim line no row binds is a warning.
func TestLabelGaps(t *testing.T) {
	planText := strings.Replace(gatePlan, "- decode 9.51 → 13.52 tok/s; 12.5 ms unbound",
		"- decode 9.51 → 13.52 tok/s at -ub 512 and K=512 with -n 128\n- ran with -n 64.", 1)
	got := findingsOf(t, planText, gateClaims)
	want := []string{
		"warn plan.label  PLAN.md 8 -ub 512 no bound run records setting -ub (r1, r2)",
		"warn plan.label  PLAN.md 8 K=512 no bound run records setting K (r1, r2)",
		"warn plan.label  PLAN.md 8 -n 128 no bound run records setting -n (r1, r2)",
		"warn plan.label  PLAN.md 9 -n 64 ",
	}
	wantFindings(t, "plan.label gaps", got, want...)
	for _, g := range got {
		if strings.Contains(g, " 128 ") && !strings.Contains(g, "-n 128") || strings.Contains(g, " 64 ") && !strings.Contains(g, "-n 64") {
			t.Errorf("a flag's value reported apart from its flag: %q", g)
		}
	}
}

// TestRangeColdFirstRun: a range over runs of a model file that leaves out
// the first run on it (the cold one) fails plan.range, though it covers
// its own set; a caveat the plan states lets it pass.
func TestRangeColdFirstRun(t *testing.T) {
	late := strings.Replace(gateClaims, "§7.1 #5 | 6.39–6.44 GB/s | range(@all:fill) | id=F13", "set late = r2 r3\n§7.1 #5 | 6.39–6.44 GB/s | range(@late:fill) | id=F13", 1)
	got := findingsOf(t, gatePlan, late)
	if !slices.Contains(got, "fail plan.range F13 PLAN.md 7 6.39–6.44 GB/s 6.39–6.44 GB/s") {
		t.Errorf("range over r2, r3 (r1 is the cold first run): no plan.range fail among\n%s", strings.Join(got, "\n"))
	}
	withCaveat := strings.Replace(late, "range(@late:fill) | id=F13", "range(@late:fill) | id=F13 caveat=warm", 1)
	planText := strings.Replace(gatePlan, "\n### 8 Notes", "> **Caveat** (warm): the warm runs only, r1 read the file cold\n\n### 8 Notes", 1)
	for _, g := range findingsOf(t, planText, withCaveat) {
		if strings.HasPrefix(g, "fail plan.range F13 PLAN.md 7 6.39–6.44") {
			t.Errorf("range over the warm runs with a caveat stated: %s; want a pass", g)
		}
	}
}

// TestNameValueClaims: a name=value with a unit, or a number with a unit
// after "item", is a measurement: unsourced in a claim section, ungated
// outside one; it escapes neither gate.
func TestNameValueClaims(t *testing.T) {
	planText := strings.Replace(gatePlan, "- at MoCE=0.95", "- rate=999.9 tok/s and item 888 tok/s\n- at MoCE=0.95", 1) +
		"- rate=777.7 tok/s outside\n"
	got := findingsOf(t, planText, gateClaims)
	wantFindings(t, "name=value claims", got,
		"fail plan.unsourced  PLAN.md 9 999.9 tok/s ",
		"fail plan.unsourced  PLAN.md 9 888 tok/s ",
		"warn plan.uncovered  PLAN.md 15 777.7 tok/s ")
}

// TestLabelSentences: plan.label judges a sentence, as the Markdown reader
// splits the prose (engine/plan), not a line: a label and the number it
// qualifies on two lines of one wrapped sentence are checked together (the
// wrapped prose of a real plan false-failed), and a label in one sentence
// does not speak for the numbers of the next on its line.
func TestLabelSentences(t *testing.T) {
	const line = "- at MoCE=0.95 the decode is 13.52 tok/s"
	for _, tt := range []struct {
		text string
		want []string // non-pass plan.label findings, as lines() prints them up to the raw text
	}{
		{line, []string{"fail plan.label  PLAN.md 9 MoCE=0.95 the runs its numbers are bound to ran with --moce 0.85 (r2)"}},
		// wrapped: the label on line 9, its number on line 10
		{"- at MoCE=0.95 the decode\n  is 13.52 tok/s", []string{"fail plan.label  PLAN.md 9 MoCE=0.95 the runs its numbers are bound to ran with --moce 0.85 (r2)"}},
		{"- at MoCE=0.85 the decode\n  is 13.52 tok/s", nil},
		{"- at -n 64 the decode\n  is 13.52 tok/s", []string{"warn plan.label  PLAN.md 9 -n 64 no bound run records setting -n (r2)"}},
		// two sentences on one line: the label's own has no bound number
		{"- at MoCE=0.95 it stalled. The decode is 13.52 tok/s", nil},
		{"- at -n 64 it stalled. The decode is 13.52 tok/s", []string{"warn plan.label  PLAN.md 9 -n 64 "}},
	} {
		got := findingsOf(t, strings.Replace(gatePlan, line, tt.text, 1), gateClaims)
		var labels []string
		for _, g := range got {
			if strings.Contains(g, " plan.label ") {
				labels = append(labels, g)
			}
		}
		ok := len(labels) == len(tt.want)
		for i := 0; ok && i < len(labels); i++ {
			ok = strings.HasPrefix(labels[i], tt.want[i])
		}
		if !ok {
			t.Errorf("plan.label of %q = %q; want %q", tt.text, labels, tt.want)
		}
	}
}
