package spec

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// ruleOutcomes returns, per rule of r, whether it applied and its findings
// as "severity id check file:line", sorted: what a rule reported, without
// the wording.
func ruleOutcomes(r *report.Report) map[string]string {
	out := map[string]string{}
	byRule := map[string][]string{}
	for _, f := range r.Findings {
		byRule[f.Rule] = append(byRule[f.Rule], fmt.Sprintf("%s %s %s %s:%d", f.Severity, f.ID, f.Check, f.File, f.Line))
	}
	for _, ri := range r.Rules {
		fs := byRule[ri.Name]
		slices.Sort(fs)
		out[ri.Name] = fmt.Sprintf("applied=%v %s", ri.Applied, strings.Join(fs, "; "))
	}
	return out
}

// badInputs returns r's bad-input findings (check audit.BadInput).
func badInputs(r *report.Report) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.Check == audit.BadInput {
			out = append(out, f)
		}
	}
	return out
}

// editAudit audits a copy of fixture whose file has old replaced by new,
// and returns the report and the line of the edited file where at is
// (1 for ""). An audit that stops (exit 2) fails the test.
func editAudit(t *testing.T, fixture, file, old, new, at string) (*report.Report, int) {
	t.Helper()
	root := snaptest.CopyFixture(t, fixture)
	p := filepath.Join(root, file)
	snaptest.Edit(t, p, old, new)
	text := snaptest.Read(t, p)
	line := strings.Count(text[:max(strings.Index(text, at), 0)], "\n") + 1
	rep, err := audit.Audit(root, "")
	if err != nil {
		t.Fatalf("Audit with %q in %s = %v; want a report (exit 1), not an error (exit 2)", new, file, err)
	}
	return rep, line
}

// TestOneBadInputOneRule (issue 19, Build 5): a setting of one rule family
// broken in a copy of fixtures/m5, which passes, fails the audit (exit 1,
// not 2) with one fail finding of that rule (check audit.BadInput) naming
// strataspec.json and the broken setting's line, and every rule that
// does not read the setting reports what it reports on m5: applied or not
// as there, the same findings with the same audit ids. The rules listed
// in stops read the broken input and may not apply.
func TestOneBadInputOneRule(t *testing.T) {
	base := audited(t, "m5")
	if base.Failed() {
		t.Fatalf("fixtures/m5 fails; the test needs a passing snapshot")
	}
	want := ruleOutcomes(base)
	for _, tt := range []struct {
		rule     string   // the rule whose fail finding the bad setting is
		old, new string   // the edit of strataspec.json; the line is new's
		stops    []string // other rules reading the setting
		msg      string   // in the finding's message
	}{
		{"compare.unlike", `{"vary": ["model", "--moce"]}`, `{"vary": "model"}`, nil, "rules.compare.unlike"},
		{"compare.rate", `"runner_source": "scripts/run_phase0_phase2_m5_validation.py",`, `"runner_source": 7,`, nil, "rules.compare.rate"},
		{"summary", `"metric": "arena_gb",`, `"metric": 3,`, nil, "rules.summary"},
		{"derive", `"separator": "_vs_",`, `"separator": 1,`, nil, "rules.derive"},
		{"provenance", `{"runner": "runner",`, `{"runner": true,`, nil, "rules.provenance"},
		{"parity", `"repeats": 3`, `"repeats": "three"`, nil, "rules.parity"},
		{"parity", `"repeats": 3`, `"repeat": 3`, nil, `unknown key "repeat"; did you mean "repeats"?`},
		{"arena", `"slices": 12288,`, `"slices": "12288",`, nil, "rules.arena"},
		{"memory", `"min_avail_warn_gib": 1.0,`, `"min_avail_warn_gb": 1.0,`, nil, `unknown key "min_avail_warn_gb"; did you mean "min_avail_warn_gib"?`},
		{"scratch", `"sizing": "PromptGemm::make",`, `"sizing": ["PromptGemm::make"],`, nil, "rules.scratch"},
		{"selftest", `"function": "self_test"` + "\n", `"function": 0` + "\n", nil, "rules.selftest"},
		{"cache.residency", `"io": "pread with F_NOCACHE"}`, `"io": 0}`, []string{"cache.target"}, `rules.cache`},
		{"tf", `"vocab": "data/vocab-synthetic-chatml.gguf",`, `"vocab": 5,`, []string{"kld"}, `input "tf inputs" failed`},
		{"kld", `"cold_set": "cold"`, `"cold_set": ["cold"]`, nil, "rules.kld"},
		// a set the claims table does not declare: a warning that passed
		// (exit 0) before, now a fail at the setting, with the set meant
		{"kld", `"cold_set": "cold"`, `"cold_set": "cld"`, nil, `names set cld, which PLAN.claims does not declare: pairs with a cold run are not checked; did you mean "cold"?`},
		{"code", `"note": "the audit looked for 1.36 * gb"`, `"note": 1.36`, nil, "rules.code"},
		// a misspelt rule name: its settings, or its finding's id, would
		// be lost in silence; the rule it most likely meant fails
		{"tf", `"tf": {`, `"tff": {`, []string{"kld"}, `rules.tff: no rule or rule family has this name; did you mean "tf"?`},
		// a token file rules.tf.files lists that is not there: at the
		// entry's line, the path in the message
		{"tf", `"path": "data/m5_val_prompts/eval_tf_96tok_ja.txt"`, `"path": "data/m5_val_prompts/eval_tf_96tok_jp.txt"`, []string{"kld"}, "data/m5_val_prompts/eval_tf_96tok_jp.txt: not in the snapshot, though rules.tf lists it"},
		{"cache.residency", `"cache.residency/evict"`, `"cache.residncy/evict"`, nil, `ids: "cache.residncy/evict" names no rule; did you mean "cache.residency"?`},
	} {
		t.Run(tt.rule+" "+tt.new, func(t *testing.T) {
			rep, line := editAudit(t, "m5", "strataspec.json", tt.old, tt.new, tt.new)
			if !rep.Failed() {
				t.Errorf("Audit with %s: verdict %s; want FALSIFIER HIT (exit 1)", tt.new, rep.Verdict)
			}
			bad := badInputs(rep)
			if len(bad) != 1 || bad[0].Rule != tt.rule || bad[0].Severity != finding.Fail || bad[0].File != "strataspec.json" ||
				bad[0].Line != line || bad[0].ID != "" || !strings.Contains(bad[0].Message, tt.msg) {
				t.Fatalf("Audit with %s: bad-input findings %+v; want one fail of %s at strataspec.json:%d containing %q", tt.new, bad, tt.rule, line, tt.msg)
			}
			got := ruleOutcomes(rep)
			for rule, w := range want {
				if rule == tt.rule || slices.Contains(tt.stops, rule) {
					continue
				}
				if got[rule] != w {
					t.Errorf("Audit with %s: rule %s reports\n  %s\nwant, as on m5,\n  %s", tt.new, rule, got[rule], w)
				}
			}
		})
	}
}

// TestShapesTFManifest: fixtures/m5-shapes declares its TF files by naming
// the runner's TOML manifest (rules.tf.manifest), and the tf rule reads
// them from it (TestShapes holds its findings equal to m5-v3's). A manifest
// broken in a copy is one tf fail at the manifest's line; kld, which reads
// the TF input, does not apply; every other rule reports as before.
func TestShapesTFManifest(t *testing.T) {
	const manifest = "data/m5_val_prompts/tf_manifest.toml"
	base := audited(t, "m5-shapes")
	want := ruleOutcomes(base)
	if !strings.HasPrefix(want["tf"], "applied=true ") || !strings.Contains(want["tf"], "pass F32 layout data/m5_val_prompts/eval_tf_96tok_ja.txt:1") {
		t.Fatalf("m5-shapes: tf reports %s; want it applied to the manifest's files", want["tf"])
	}
	for _, tt := range []struct{ old, new, at, msg string }{
		{"source_offset = 48\n", "source_offset = \"48\"\n", "source_offset = \"48\"", "[[file]]: source_offset: want integer, found string"},
		{"domain = \"ja\"\n", "domain = \"ja\"\nlabel = \"ja\"\n", "label", `[[file]]: unknown key "label"`},
		{"source_offset = 48\n", "source_offset = { bytes = 48 }\n", "source_offset = { bytes", "inline tables are not read"},
		// a file the manifest lists that is not there: a fail naming it
		// at the manifest's line listing it, the path in the message
		{"path = \"data/m5_val_prompts/eval_tf_96tok_ja.txt\"\n", "path = \"data/m5_val_prompts/eval_tf_96tok_jp.txt\"\n", "eval_tf_96tok_jp", "data/m5_val_prompts/eval_tf_96tok_jp.txt: not in the snapshot, though rules.tf lists it"},
	} {
		t.Run(tt.new, func(t *testing.T) {
			rep, line := editAudit(t, "m5-shapes", manifest, tt.old, tt.new, tt.at)
			bad := badInputs(rep)
			wantFile, wantLine := manifest, line
			if len(bad) != 1 || bad[0].Rule != "tf" || bad[0].File != wantFile || bad[0].Line != wantLine || !strings.Contains(bad[0].Message, tt.msg) {
				t.Fatalf("Audit with %q in the manifest: bad-input findings %+v; want one tf fail at %s:%d containing %q", tt.new, bad, wantFile, wantLine, tt.msg)
			}
			got := ruleOutcomes(rep)
			for rule, w := range want {
				if rule != "tf" && rule != "kld" && got[rule] != w {
					t.Errorf("Audit with %q in the manifest: rule %s reports\n  %s\nwant\n  %s", tt.new, rule, got[rule], w)
				}
			}
		})
	}
	// the manifest itself not there: at the spec's line naming it
	rep, line := editAudit(t, "m5-shapes", "strataspec.json", manifest+`"`, "data/m5_val_prompts/tf_manifst.toml\"", "tf_manifst")
	const msg = "data/m5_val_prompts/tf_manifst.toml: not in the snapshot, though rules.tf lists it"
	if bad := badInputs(rep); len(bad) != 1 || bad[0].Rule != "tf" || bad[0].File != "strataspec.json" || bad[0].Line != line || !strings.Contains(bad[0].Message, msg) {
		t.Errorf("Audit with the manifest misspelt: bad-input findings %+v; want one tf fail at strataspec.json:%d containing %q", bad, line, msg)
	}
	// a manifest path leading out of the snapshot: at the spec's line
	// naming it too, not at the path it names (which is not the snapshot's)
	rep, line = editAudit(t, "m5-shapes", "strataspec.json", `"`+manifest+`"`, `"../tf_manifest.toml"`, "../tf_manifest")
	const out = "rules.tf.manifest: ../tf_manifest.toml: climbs out of the snapshot"
	if bad := badInputs(rep); len(bad) != 1 || bad[0].Rule != "tf" || bad[0].File != "strataspec.json" || bad[0].Line != line || !strings.HasPrefix(bad[0].Message, out) {
		t.Errorf("Audit with the manifest out of the snapshot: bad-input findings %+v; want one tf fail at strataspec.json:%d starting %q", bad, line, out)
	}
}

// TestBadRecords: a record the loader cannot parse (a route_parity log, the
// self-test output, the recorded mtimes) in a copy of fixtures/m5 is left
// out and is one fail of the rule reading its kind, at the record's file
// and line (exit 1, not 2); every rule that does not read the record
// reports as on m5. The rules in stops read it too (a claims row bound to
// the parity records' count).
func TestBadRecords(t *testing.T) {
	base := audited(t, "m5")
	want := ruleOutcomes(base)
	for _, tt := range []struct {
		rule, file, old, new string
		line                 int
		stops                []string
		msg                  string
	}{
		{"parity", "results/route_parity/fast_1.json", `"exit_code": 0`, `"exit_code": "zero"`, 1, []string{"plan.unsourced"}, "want an integer"},
		{"selftest", "results/self_test.log", "# exit: 0\n", "", 1, nil, `needs "# cmd:" and "# exit:"`},
		{"provenance", "machine/mtimes.json", `"tz": "+03:00"`, `"tz": 3`, 2, nil, "tz: want a string, found number"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			rep, _ := editAudit(t, "m5", tt.file, tt.old, tt.new, "")
			bad := badInputs(rep)
			if len(bad) != 1 || bad[0].Rule != tt.rule || bad[0].File != tt.file || bad[0].Line != tt.line || !strings.Contains(bad[0].Message, tt.msg) {
				t.Fatalf("Audit with a bad %s: bad-input findings %+v; want one fail of %s at %s:%d containing %q", tt.file, bad, tt.rule, tt.file, tt.line, tt.msg)
			}
			got := ruleOutcomes(rep)
			for rule, w := range want {
				if rule != tt.rule && !slices.Contains(tt.stops, rule) && got[rule] != w {
					t.Errorf("Audit with a bad %s: rule %s reports\n  %s\nwant, as on m5,\n  %s", tt.file, rule, got[rule], w)
				}
			}
		})
	}
}
