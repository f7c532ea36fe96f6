package spec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// fixtures/llamacpp-real holds the outputs of a real llama.cpp build (its
// README names the commit, the build and the model recipe): llama-cli,
// llama-bench, llama-perplexity and llama-server runs, each with a sidecar
// recording its binary's and inputs' sha256.

// realFindings audits a copy of fixtures/llamacpp-real after edit has
// changed it, with the rules of ruleList.
func realFindings(t *testing.T, ruleList string, edit func(root string)) []finding.Finding {
	t.Helper()
	root := snaptest.CopyFixture(t, "llamacpp-real")
	if edit != nil {
		edit(root)
	}
	return auditFindings(t, root, ruleList)
}

// replaceIn replaces the matches of the regular expression re in the file
// rel of root with repl, and fails the test when there is none: an edit
// that changed nothing would test nothing.
func replaceIn(t *testing.T, root, rel, re, repl string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(re).ReplaceAllString(string(b), repl)
	if out == string(b) {
		t.Fatalf("%s: no match for %q", rel, re)
	}
	snaptest.Write(t, p, out)
}

// findingsOf returns the findings of rule with the given check ("" for any).
func findingsOf(fs []finding.Finding, rule, check string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Rule == rule && (check == "" || f.Check == check) {
			out = append(out, f)
		}
	}
	return out
}

// The log folder's provenance: every input a sidecar lists is held to its
// recorded sha256 (the model and the KL-divergence base as well as the
// prompt), an input no sidecar hashes is "not hashed", never "no archived
// copy", and a file changed since the runs fails naming both hashes.
func TestLlamaCppRealProvenance(t *testing.T) {
	fs := realFindings(t, "input.archive", nil)
	hashed := map[string]bool{}
	for _, f := range findingsOf(fs, "input.archive", "provenance") {
		if f.Severity != finding.Pass {
			t.Errorf("input.archive provenance %s: %s %s; want pass", f.File, f.Severity, f.Message)
		}
		hashed[f.File] = true
	}
	for _, want := range []string{"prompts/p1.txt", "prompts/text.txt", "models/tiny-a-q8_0.gguf", "models/tiny-b-q8_0.gguf", "models/tiny-a-f16.gguf", "runs/kld_base_a_f16.dat"} {
		if !hashed[want] {
			t.Errorf("input.archive: no provenance finding on %s (hashed: %v)", want, hashed)
		}
	}

	tests := []struct {
		name  string
		edit  func(t *testing.T, root string)
		file  string
		check string
		sev   finding.Severity
		want  string
	}{
		{"prompt changed since", func(t *testing.T, root string) {
			snaptest.Write(t, filepath.Join(root, "prompts", "p1.txt"), "another prompt\n")
		}, "prompts/p1.txt", "provenance", finding.Fail, "records 27b08d4a92cd"},
		{"model changed since", func(t *testing.T, root string) {
			snaptest.Write(t, filepath.Join(root, "models", "tiny-b-q8_0.gguf"), "GGUF")
		}, "models/tiny-b-q8_0.gguf", "provenance", finding.Fail, "records 9cf5006814d7"},
		{"no sidecar hashes the prompt", func(t *testing.T, root string) {
			for _, run := range []string{"ppl_a_f16"} {
				replaceIn(t, root, "runs/"+run+".json", `(?s),\s*\{\s*"path": "prompts/text.txt",\s*"sha256": "[0-9a-f]+"\s*\}`, "")
			}
		}, "prompts/text.txt", "hashed", finding.Warn, "archived but not hashed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := realFindings(t, "input.archive", func(root string) { tt.edit(t, root) })
			var got []string
			ok := false
			for _, f := range findingsOf(fs, "input.archive", tt.check) {
				if f.File == tt.file {
					got = append(got, f.Severity.String()+": "+f.Message)
					ok = ok || f.Severity == tt.sev && strings.Contains(f.Message, tt.want)
				}
				if strings.Contains(f.Message, "no archived copy") {
					t.Errorf("input.archive: %s", f.Message)
				}
			}
			if !ok {
				t.Errorf("input.archive %s findings on %s = %q; want %s containing %q", tt.check, tt.file, got, tt.sev, tt.want)
			}
		})
	}
}

// The real build's folder audits true: PASS, no fail, and the plan's
// numbers in its claim sections all bound (ratios of two models, ranges
// over repeated runs and second occurrences of a metric among them).
func TestLlamaCppRealAudit(t *testing.T) {
	r, err := audit.Audit(snaptest.Fixture(t, "llamacpp-real"), "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "PASS" {
		t.Errorf("fixtures/llamacpp-real: verdict %s; want PASS; fails: %+v", r.Verdict, failures(r.Findings))
	}
	// plan.uncovered counts the numbers of the claim sections, gated and not.
	counted := false
	for _, f := range findingsOf(r.Findings, "plan.uncovered", "") {
		m := regexp.MustCompile(`gated=(\d+) ungated=(\d+)`).FindStringSubmatch(f.Raw)
		if m == nil {
			continue
		}
		counted = true
		if gated, _ := strconv.Atoi(m[1]); gated < 25 || m[2] != "0" {
			t.Errorf("fixtures/llamacpp-real: %s; want ≥ 25 numbers gated, none ungated", f.Raw)
		}
	}
	if !counted {
		t.Error("fixtures/llamacpp-real: no plan.uncovered count of gated numbers")
	}
}

// A planted fault in a copy of the real folder fails the rule that owns it:
// a range over a set that leaves out the cold first run on its model (or a
// range bound to two endpoint runs that leave it out), and a comparison of
// two runs whose binaries share a name but not a sha256.
func TestLlamaCppRealFaults(t *testing.T) {
	tests := []struct {
		name, rules, rule, check string
		edit                     func(t *testing.T, root string)
		want                     string
	}{
		{"set without the cold first run", "plan.range", "plan.range", "cold", func(t *testing.T, root string) {
			replaceIn(t, root, "PLAN.claims", `set a = cli_a_\*`, "set a = cli_a_0[2-6]")
		}, "leaves out cli_a_01 (tiny-a-q8_0.gguf)"},
		{"range bound to endpoint runs", "plan.range", "plan.range", "cold", func(t *testing.T, root string) {
			replaceIn(t, root, "PLAN.claims", `range\(@a:eval_tok_s\)`, "cli_a_03:eval_tok_s ; cli_a_04:eval_tok_s")
		}, "leaves out cli_a_01"},
		{"renamed binary with another hash", "compare.unlike", "compare.unlike", "", func(t *testing.T, root string) {
			// The row's caveat (one run a side) would excuse any difference:
			// without it, the binary alone must make the pair unlike.
			replaceIn(t, root, "PLAN.claims", ` \| caveat=single-runs`, "")
			replaceIn(t, root, "runs/cli_a_03.json", `"\./bin/llama-cli"`, `"./bin2/llama-cli"`)
			replaceIn(t, root, "runs/cli_a_03.json", `"bin/llama-cli",\s*"sha256": "[0-9a-f]+"`, `"bin2/llama-cli", "sha256": "`+strings.Repeat("0e", 32)+`"`)
		}, "binary: llama-cli sha256 fd04a2c6e47a… (cli_a_02) vs llama-cli sha256 0e0e0e0e0e0e… (cli_a_03)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := realFindings(t, tt.rules, func(root string) { tt.edit(t, root) })
			var got []string
			ok := false
			for _, f := range findingsOf(fs, tt.rule, tt.check) {
				if f.Severity == finding.Fail {
					got = append(got, f.Message)
					ok = ok || strings.Contains(f.Message, tt.want)
				}
			}
			if !ok {
				t.Errorf("%s fails = %q; want one containing %q", tt.rule, got, tt.want)
			}
		})
	}
}

// Significance of comparisons: a ratio of two single llama-cli runs
// without a caveat is a compare.significance finding (its own rule and fix,
// not plan.stale's): a warning, and a fail when a side is the cold first
// run on its model; the pair under its stated caveat passes.
func TestLlamaCppRealSingleRuns(t *testing.T) {
	const ratio = "\n§2.1 #1 | 1.66× | ratio(cli_a_02:eval_tok_s, %s:eval_tok_s)\n"
	tests := []struct {
		name, other string
		sev         finding.Severity
		want        string
	}{
		{"warm runs", "cli_a_03", finding.Warn, "compares one run a side (cli_a_02 vs cli_a_03): n = 1 + 1"},
		{"against the cold first run", "cli_a_01", finding.Fail, "cli_a_01 (the first run on models/tiny-a-q8_0.gguf) read its model cold; no caveat is stated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := realFindings(t, "compare.significance,plan.stale", func(root string) {
				p := filepath.Join(root, "PLAN.md")
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				quote := map[string]string{"cli_a_03": "1.67×", "cli_a_01": "1.65×"}[tt.other]
				snaptest.Write(t, p, strings.Replace(string(b), "same binary and settings: 5172.70 → 3105.28 tok/s.",
					"same binary and settings: 5172.70 → 3105.28 tok/s; the second run decodes "+quote+" as fast.", 1))
				c, err := os.ReadFile(filepath.Join(root, "PLAN.claims"))
				if err != nil {
					t.Fatal(err)
				}
				snaptest.Write(t, filepath.Join(root, "PLAN.claims"), string(c)+strings.Replace(fmt.Sprintf(ratio, tt.other), "1.66×", quote, 1))
			})
			var got []string
			ok := false
			for _, f := range findingsOf(fs, "compare.significance", "") {
				got = append(got, f.Severity.String()+": "+f.Message)
				ok = ok || f.Severity == tt.sev && strings.Contains(f.Message, tt.want)
			}
			if !ok {
				t.Errorf("compare.significance = %q; want %s containing %q", got, tt.sev, tt.want)
			}
			for _, f := range findingsOf(fs, "plan.stale", "") {
				if f.Severity != finding.Pass {
					t.Errorf("plan.stale %s: %s", f.Severity, f.Message)
				}
			}
		})
	}
	// The pair the plan quotes states its caveat: a pass.
	for _, f := range findingsOf(realFindings(t, "compare.significance", nil), "compare.significance", "single") {
		if f.Severity != finding.Pass || !strings.Contains(f.Message, "caveat single-runs") {
			t.Errorf("compare.significance on the stated pair: %s %s; want pass under caveat single-runs", f.Severity, f.Message)
		}
	}
}

// A llama.cpp-only folder: the strata rules, whose settings its spec file
// does not give, did not apply, and the text report says so on one line
// naming them; the JSON report keeps every rule's own reason.
func TestLlamaCppRealNotApplied(t *testing.T) {
	r, err := audit.Audit(snaptest.Fixture(t, "llamacpp-real"), "")
	if err != nil {
		t.Fatal(err)
	}
	var text, js strings.Builder
	if err := r.Write(&text, "text"); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(&js, "json"); err != nil {
		t.Fatal(err)
	}
	// each "did not apply" entry, its wrapped lines (indented) joined
	var lines []string
	entry := false
	for _, l := range strings.Split(text.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "did not apply: "):
			lines, entry = append(lines, l), true
		case entry && strings.HasPrefix(l, "  "):
			lines[len(lines)-1] += " " + strings.TrimSpace(l)
		default:
			entry = false
		}
	}
	strata := []string{"arena", "cache.residency", "code", "derive", "kld", "memory", "parity", "scratch", "selftest", "summary", "tf"}
	var folded []string
	for _, l := range lines {
		if strings.Contains(l, "no settings for them in the spec file") {
			folded = append(folded, l)
		}
	}
	if len(folded) != 1 {
		t.Fatalf("text report: %d folded \"did not apply\" lines; want 1; lines: %q", len(folded), lines)
	}
	head, _, _ := strings.Cut(strings.TrimPrefix(folded[0], "did not apply: "), " (no settings")
	named := map[string]bool{}
	for _, rule := range strings.Split(head, ", ") {
		named[rule] = true
	}
	for _, rule := range strata {
		if !named[rule] {
			t.Errorf("text report: the folded line %q does not name %s", head, rule)
		}
		if slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "did not apply: "+rule+" (") }) {
			t.Errorf("text report: %s has a line of its own as well", rule)
		}
	}
	var doc struct {
		Summary struct {
			NotApplied []struct{ Rule, Reason string } `json:"not_applied"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(js.String()), &doc); err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, na := range doc.Summary.NotApplied {
		reasons[na.Rule] = na.Reason
	}
	for _, rule := range strata {
		if !strings.Contains(reasons[rule], "strataspec.json") {
			t.Errorf("JSON report: %s's reason = %q; want its own, naming strataspec.json", rule, reasons[rule])
		}
	}
}
