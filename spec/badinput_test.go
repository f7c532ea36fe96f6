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
	} {
		t.Run(tt.rule+" "+tt.new, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5")
			p := filepath.Join(root, "strataspec.json")
			snaptest.Edit(t, p, tt.old, tt.new)
			text := snaptest.Read(t, p)
			line := strings.Count(text[:strings.Index(text, tt.new)], "\n") + 1
			rep, err := audit.Audit(root, "")
			if err != nil {
				t.Fatalf("Audit with %s = %v; want a report (exit 1), not an error (exit 2)", tt.new, err)
			}
			if !rep.Failed() {
				t.Errorf("Audit with %s: verdict %s; want FALSIFIER HIT (exit 1)", tt.new, rep.Verdict)
			}
			var bad []finding.Finding
			for _, f := range rep.Findings {
				if f.Check == audit.BadInput {
					bad = append(bad, f)
				}
			}
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
