package tf_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/audit/audittest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/engine/tail"
)

// The tf and kld rules on the fixture snapshots, loaded as the audit loads
// them; the tests that change a run edit the loaded context before the
// rules run.

// tfContext loads a snapshot through the audit pipeline.
func tfContext(t *testing.T, root string) *audit.Context {
	t.Helper()
	c, err := audit.Load(root)
	if err != nil {
		t.Fatalf("audit.Load(%s): %v", root, err)
	}
	return c
}

// runRule runs the rule name (and any below it) over c and returns the
// findings.
func runRule(t *testing.T, name string, c *audit.Context) []finding.Finding {
	t.Helper()
	sel, err := audit.Select(name)
	if err != nil {
		t.Fatalf("audit.Select(%q): %v", name, err)
	}
	rep, err := audit.RunSelection(c, sel)
	if err != nil {
		t.Fatalf("audit.RunSelection(%s): %v", name, err)
	}
	return rep.Findings
}

// tally counts findings by "ID severity" and by "ID severity file".
func tally(fs []finding.Finding) map[string]int {
	m := map[string]int{}
	for _, f := range fs {
		m[f.ID+" "+f.Severity.String()]++
		m[f.ID+" "+f.Severity.String()+" "+filepath.Base(f.File)]++
	}
	return m
}

func TestTFAndKLDOnFixtures(t *testing.T) {
	tests := []struct {
		snapshot string
		want     map[string]int
	}{
		// The audited snapshot: layout passes (3 files, 9 runs, 3 hashes); the
		// content caveats warn; one document per domain fails.
		{"m5-v3", map[string]int{
			"F32 pass": 15, "F32 fail": 0,
			"F33 warn":                             3,
			"F34 warn":                             4, // three files and the macro summary
			"F35 warn eval_tf_96tok_chat_json.txt": 1, "F35 pass eval_tf_96tok_ja.txt": 1,
			"F36 warn eval_tf_96tok_ops_tools.txt": 1, "F36 pass": 2,
			"F37 fail PLAN.md": 1,
		}},
		// The fixed plan states the caveats: pass, except F36 which stays warn.
		{"m5", map[string]int{
			"F32 pass": 15, "F32 fail": 0,
			"F33 pass": 3, "F33 warn": 0,
			"F34 pass": 4, "F34 warn": 0,
			"F35 pass": 2, "F35 warn": 0,
			"F36 warn eval_tf_96tok_ops_tools.txt": 1, "F36 pass": 2,
			"F37 pass PLAN.md": 1, "F37 fail": 0,
		}},
	}
	for _, tt := range tests {
		c := tfContext(t, snaptest.Fixture(t, tt.snapshot))
		fs := append(runRule(t, "tf", c), runRule(t, "kld", c)...)
		got := tally(fs)
		for k, want := range tt.want {
			if got[k] != want {
				t.Errorf("%s: %d findings %q; want %d", tt.snapshot, got[k], k, want)
			}
		}
		for _, f := range fs {
			if f.File == "" || f.Message == "" || f.Rule == "" || f.ID == "" {
				t.Errorf("%s: incomplete finding %+v", tt.snapshot, f)
			}
		}
	}
}

// TestTFFindingText pins what the findings say on the audited snapshot: the
// layout counts, the statistics with and without the template token (the
// macros recompute to the audit's figures with it), the sample size.
func TestTFFindingText(t *testing.T) {
	c := tfContext(t, snaptest.Fixture(t, "m5-v3"))
	fs := append(runRule(t, "tf", c), runRule(t, "kld", c)...)
	wants := []struct{ id, file, substr string }{
		{"F32", "eval_tf_96tok_ja.txt", "user turn ids 0–28 (29), assistant header 29–31 (3), scored 32–95 (64)"},
		{"F32", "phase0_phase2_m5_validation.json", "run strata_tf_q2_0_moce085_ja: --n-prompt 32 --n-gen 64 and eval_tokens=64 agree"},
		{"F32", "eval_tf_96tok_ops_tools.txt", "sha256 matches provenance"},
		{"F33", "eval_tf_96tok_ops_tools.txt", "left-truncated fragment"},
		{"F34", "PLAN.md", "iq3_s top-1 90.107 → 89.950, mean KLD 0.064461 → 0.065484"},
		{"F34", "PLAN.md", "q2_0_moce0 top-1 75.520 → 75.130, mean KLD 0.327365"},
		{"F34", "PLAN.md", "q2_0_moce085 top-1 75.000 → 74.603, mean KLD 0.356695"},
		{"F34", "eval_tf_96tok_chat_json.txt", "strata_tf_iq3_s_chat_json: top-1 57/64 = 89.06% → 56/63 = 88.89%"},
		{"F35", "eval_tf_96tok_chat_json.txt", "neither the user turn nor the scored reply holds JSON"},
		{"F36", "eval_tf_96tok_ops_tools.txt", `then "The"`},
		{"F37", "PLAN.md", "chat_json 1 doc(s), 64 scored tokens"},
	}
	for _, w := range wants {
		found := false
		for _, f := range fs {
			if f.ID == w.id && filepath.Base(f.File) == w.file && strings.Contains(f.Message+" "+f.Raw, w.substr) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s finding on %s saying %q", w.id, w.file, w.substr)
		}
	}
	// The ops_tools F33 warning quotes the truncated turn from the vocabulary's decoding.
	for _, f := range fs {
		if f.ID == "F33" && strings.HasSuffix(f.File, "ops_tools.txt") && !strings.HasPrefix(f.Quote, `);\n df.erase();\n\nroot@f71c07bf8043:/app#`) {
			t.Errorf("F33 quote = %q", f.Quote)
		}
	}
}

// TestTFBrokenInputs perturbs a copy of the snapshot and in-memory runs:
// each change must turn a pass into a fail naming what broke.
func TestTFBrokenInputs(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string, c *audit.Context)
		want   string // substring of a fail finding's message
	}{
		{"tf file edited", func(t *testing.T, root string, c *audit.Context) {
			appendTo(t, filepath.Join(root, "data/m5_val_prompts/eval_tf_96tok_ja.txt"), "198\n")
		}, "does not match provenance"},
		{"scored span longer than --n-gen", func(t *testing.T, root string, c *audit.Context) {
			appendTo(t, filepath.Join(root, "data/m5_val_prompts/eval_tf_96tok_ja.txt"), "198\n")
		}, "--n-gen 64 but data/m5_val_prompts/eval_tf_96tok_ja.txt has 65 scored ids"},
		{"eval_tokens differs", func(t *testing.T, root string, c *audit.Context) {
			setMetric(c, "strata_tf_iq3_s_ja", "eval_tokens", "63")
		}, "run strata_tf_iq3_s_ja: eval_tokens=63 but --n-gen 64"},
		{"no eval_tokens", func(t *testing.T, root string, c *audit.Context) {
			*c.Metrics["strata_tf_iq3_s_ja"] = tail.Metrics{}
		}, "its tail has no eval_tokens"},
		{"--n-prompt differs", func(t *testing.T, root string, c *audit.Context) {
			r := c.Snap.Run("strata_tf_q2_0_moce0_ops_tools")
			for i, a := range r.Cmd {
				if a == "--n-prompt" {
					r.Cmd[i+1] = "31"
				}
			}
		}, "--n-prompt 31 but data/m5_val_prompts/eval_tf_96tok_ops_tools.txt has 32 prompt ids"},
		{"no --n-gen", func(t *testing.T, root string, c *audit.Context) {
			r := c.Snap.Run("strata_tf_q2_0_moce0_ops_tools")
			var cmd []string
			for i := 0; i < len(r.Cmd); i++ {
				if r.Cmd[i] == "--n-gen" {
					i++
					continue
				}
				cmd = append(cmd, r.Cmd[i])
			}
			r.Cmd = cmd
		}, "no --n-gen in the command"},
		{"layout broken", func(t *testing.T, root string, c *audit.Context) {
			path := filepath.Join(root, "data/m5_val_prompts/eval_tf_96tok_chat_json.txt")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading %s: %v", path, err)
			}
			// Drop the first id (<|im_start|>).
			cut, ok := strings.CutPrefix(string(data), "248045 ")
			if !ok {
				t.Fatalf("%s does not start with <|im_start|> (248045)", path)
			}
			if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
				t.Fatalf("writing %s: %v", path, err)
			}
		}, "no teacher-forcing layout"},
		// came from review: an id past the vocabulary in the scored span was
		// decoded as empty text (a false "not Japanese" warning), and as the
		// first scored token it panicked the F34 check, which indexes the
		// vocabulary with it
		{"scored id outside the vocabulary", func(t *testing.T, root string, c *audit.Context) {
			appendTo(t, filepath.Join(root, "data/m5_val_prompts/eval_tf_96tok_ja.txt"), "999999999\n")
		}, "ids[96] = 999999999 is outside the vocabulary"},
		{"not in provenance", func(t *testing.T, root string, c *audit.Context) {
			var kept []*archive.ProvFile
			for _, p := range c.Snap.Provenance.Prompts {
				if !strings.Contains(p.Path, "eval_tf_96tok_ja") {
					kept = append(kept, p)
				}
			}
			c.Snap.Provenance.Prompts = kept
		}, "not in provenance"},
	}
	for _, tt := range tests {
		root := snaptest.CopyFixture(t, "m5")
		c := tfContext(t, root)
		tt.change(t, root, c)
		fs := runRule(t, "tf", c)
		found := false
		for _, f := range fs {
			if f.Severity == finding.Fail && strings.Contains(f.Message, tt.want) {
				found = true
			}
		}
		if !found {
			var got []string
			for _, f := range fs {
				if f.Severity != finding.Pass {
					got = append(got, f.String())
				}
			}
			t.Errorf("%s: no fail finding containing %q; got:\n%s", tt.name, tt.want, strings.Join(got, "\n"))
		}
	}
}

func TestTFCaveatRemoved(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	planPath := filepath.Join(root, "PLAN.md")
	data, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatalf("reading %s: %v", planPath, err)
	}
	cut := strings.ReplaceAll(string(data), "(kld-sample-size)", "(removed)")
	cut = strings.ReplaceAll(cut, "(tf-domain-label)", "(removed-too)")
	if err := os.WriteFile(planPath, []byte(cut), 0o644); err != nil {
		t.Fatalf("writing %s: %v", planPath, err)
	}
	c := tfContext(t, root)
	got := tally(append(runRule(t, "tf", c), runRule(t, "kld", c)...))
	if got["F37 fail"] != 1 || got["F35 warn"] != 1 || got["F33 pass"] != 3 {
		t.Errorf("after removing two caveats: F37 fail %d, F35 warn %d, F33 pass %d; want 1, 1, 3", got["F37 fail"], got["F35 warn"], got["F33 pass"])
	}
}

// TestTFClaimPlace pins where the tf and kld rules find PLAN's TF figures:
// the first quote bound by a claims row to TF runs alone (the macro KLD of
// §7.1 #5), not the first line that happens to mention the run flags. A
// decoy line in #20, far from the caveats, mentions both flags; the caveats
// of §7.1 #5 must still count and the findings point at the macro line.
func TestTFClaimPlace(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	planPath := filepath.Join(root, "PLAN.md")
	data, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatalf("reading %s: %v", planPath, err)
	}
	decoy := "Teacher-forcing files hold a user turn, the assistant header and the scored assistant tokens, as\n"
	text := strings.Replace(string(data), decoy, "Runs take `--n-prompt` and report `eval_tokens`.\n\n"+decoy, 1)
	if text == string(data) {
		t.Fatal("fixtures/m5/PLAN.md: no #20 paragraph to put the decoy before")
	}
	if err := os.WriteFile(planPath, []byte(text), 0o644); err != nil {
		t.Fatalf("writing %s: %v", planPath, err)
	}
	macroLine := 0
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "0.064461 / 90.11 %") {
			macroLine = i + 1
		}
	}
	c := tfContext(t, root)
	fs := append(runRule(t, "tf", c), runRule(t, "kld", c)...)
	got := tally(fs)
	if got["F37 pass PLAN.md"] != 1 || got["F34 pass PLAN.md"] != 1 || got["F33 pass"] != 3 {
		t.Errorf("with a decoy flag line in #20: F37 pass %d, F34 pass on PLAN %d, F33 pass %d; want 1, 1, 3", got["F37 pass PLAN.md"], got["F34 pass PLAN.md"], got["F33 pass"])
	}
	for _, f := range fs {
		if f.File == "PLAN.md" && (f.ID == "F34" || f.ID == "F37") && f.Line != macroLine {
			t.Errorf("%s %s on PLAN.md:%d; want the macro KLD line %d", f.Rule, f.ID, f.Line, macroLine)
		}
	}
	// Without a claims table there is no bound quote: the finding names
	// PLAN.md without a line, and a caveat anywhere in PLAN counts.
	if err := os.Remove(filepath.Join(root, "PLAN.claims")); err != nil {
		t.Fatalf("removing PLAN.claims: %v", err)
	}
	c = tfContext(t, root)
	n := 0
	for _, f := range runRule(t, "kld", c) {
		if f.ID != "F37" {
			continue
		}
		n++
		if f.Severity != finding.Pass || f.Line != 0 {
			t.Errorf("without PLAN.claims: F37 %v at PLAN.md:%d; want pass with no line", f.Severity, f.Line)
		}
	}
	if n == 0 {
		t.Error("without PLAN.claims: no F37 finding; want a pass with no line")
	}
}

func TestTFUnreadableInput(t *testing.T) {
	tests := []struct {
		name   string
		change func(root string) error
		want   string
	}{
		{"vocab missing", func(root string) error {
			return os.Remove(filepath.Join(root, "data/vocab-synthetic-chatml.gguf"))
		}, "data/vocab-synthetic-chatml.gguf"},
		{"vocab truncated", func(root string) error {
			return os.Truncate(filepath.Join(root, "data/vocab-synthetic-chatml.gguf"), 1000)
		}, "vocab-synthetic-chatml.gguf: offset"},
		{"tf file malformed", func(root string) error {
			return os.WriteFile(filepath.Join(root, "data/m5_val_prompts/eval_tf_96tok_ja.txt"), []byte("# domain: ja\n# source_offset: 1\n1 x\n"), 0o644)
		}, "eval_tf_96tok_ja.txt:3: token id \"x\""},
	}
	for _, tt := range tests {
		root := snaptest.CopyFixture(t, "m5")
		if err := tt.change(root); err != nil {
			t.Fatalf("%s: changing the snapshot: %v", tt.name, err)
		}
		for _, name := range []string{"tf", "kld"} {
			sel, err := audit.Select(name)
			if err != nil {
				t.Fatalf("audit.Select(%q): %v", name, err)
			}
			_, err = audittest.RunSelection(tfContext(t, root), sel)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: rule %s error = %v; want %q", tt.name, name, err, tt.want)
			}
		}
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatalf("appending to %s: %v", path, err)
	}
}

func setMetric(c *audit.Context, run, name, text string) {
	ms := c.Metrics[run]
	for i := range ms.List {
		if ms.List[i].Name == name {
			ms.List[i].Num = num.MustParse(text)
		}
	}
}

// TestColdPairs: a pair quoted from one run per side, one of them the cold
// first run on its model file, warns until its claims row names a caveat
// the plan states; a cold set that is not the first run per model file
// fails; without rules.kld.cold_set the pairs are not checked.
func TestColdPairs(t *testing.T) {
	const set = "set cold = strata_q2_0_moce0_short_43tok strata_iq3_s_short_43tok"
	tests := []struct {
		name string
		snap string
		edit func(t *testing.T, root string)
		want []string // "severity check" of the cold findings, in order
	}{
		{"audited: no caveat", "m5-v3", func(*testing.T, string) {}, []string{"pass cold-set", "warn cold-pair"}},
		{"fixed: caveat stated", "m5", func(*testing.T, string) {}, []string{"pass cold-set", "pass cold-pair"}},
		{"caveat named, not stated", "m5", func(t *testing.T, root string) {
			snaptest.Edit(t, filepath.Join(root, "PLAN.md"), "> **Caveat** (decode-pair-n1)", "> **Note** (decode-pair-n1)")
		}, []string{"pass cold-set", "warn cold-pair"}},
		{"cold set wrong", "m5-v3", func(t *testing.T, root string) {
			snaptest.Edit(t, filepath.Join(root, "PLAN.claims"), set, "set cold = strata_q2_0_moce0_short_43tok")
		}, []string{"fail cold-set", "warn cold-pair"}},
		{"set not declared", "m5-v3", func(t *testing.T, root string) {
			snaptest.Edit(t, filepath.Join(root, "PLAN.claims"), set, "set warm = strata_q2_0_moce0_short_43tok")
		}, []string{"fail " + audit.BadInput}}, // the setting names no set: a bad setting
		{"no cold_set setting", "m5-v3", func(t *testing.T, root string) {
			snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"cold_set": "cold"`, `"model_flags": ["--model"]`)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, tt.snap)
			tt.edit(t, root)
			var got []string
			for _, f := range runRule(t, "kld", tfContext(t, root)) {
				if strings.HasPrefix(f.Check, "cold") || f.Check == audit.BadInput {
					got = append(got, f.Severity.String()+" "+f.Check)
				}
			}
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("kld cold findings = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestTFFlags: the runs' token-count flags are spec data (rules.tf.flags):
// renamed in the spec and the runs alike, every run still agrees with its
// file; renamed in the spec alone, every TF run fails naming the flag.
func TestTFFlags(t *testing.T) {
	for _, tt := range []struct {
		name     string
		runsToo  bool
		fails    int
		contains string
	}{
		{"renamed everywhere", true, 0, ""},
		{"renamed in the spec only", false, 9, "no --prompt-tokens in the command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5")
			snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"vocab": "data/vocab-synthetic-chatml.gguf",`,
				`"vocab": "data/vocab-synthetic-chatml.gguf", "flags": {"prompt": "--prompt-tokens", "gen": "--gen-tokens"},`)
			if tt.runsToo {
				results := filepath.Join(root, snaptest.ResultsFile)
				s := snaptest.Read(t, results)
				s = strings.ReplaceAll(strings.ReplaceAll(s, `"--n-prompt"`, `"--prompt-tokens"`), `"--n-gen"`, `"--gen-tokens"`)
				snaptest.Write(t, results, s)
			}
			var fails []string
			for _, f := range runRule(t, "tf", tfContext(t, root)) {
				if f.Severity == finding.Fail {
					fails = append(fails, f.Message)
				}
			}
			if len(fails) != tt.fails {
				t.Fatalf("%d fail findings %q; want %d", len(fails), fails, tt.fails)
			}
			for _, m := range fails {
				if !strings.Contains(m, tt.contains) {
					t.Errorf("fail %q; want it to say %q", m, tt.contains)
				}
			}
		})
	}
}
