package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestDidYouMean: a misspelt rule, run, metric, set or spec key is named
// with the nearest known name, and each kind of mistake has its exit code:
// 2 for what cannot be read (a flag, the spec file's own keys), 1 for a
// claims row whose source the archive does not have, a claims table's
// syntax or a rule's setting (one rule's fail finding, annotated at its
// line; the rest of the audit runs), under -suggest and -metrics as in
// the audit.
func TestDidYouMean(t *testing.T) {
	for _, tt := range []struct {
		name      string
		file      string // file of the snapshot to edit ("" for none)
		old, new  string
		args      []string
		code      int
		out, errs string // substrings of stdout and stderr
	}{
		{name: "rule", args: []string{"-rules", "plan.unsorced"}, code: 2,
			errs: `unknown rule "plan.unsorced"; did you mean "plan.unsourced"?`},
		{name: "metric", file: "PLAN.claims", old: "prefill_1024tok:prefill_tok_s", new: "prefill_1024tok:prefil_tok_s",
			args: []string{"-rules", "plan.stale", "-format", "github", "-path-prefix", "."}, code: 1,
			out: `::error file=PLAN.claims,line=121,title=plan.stale::§7.1 #5: source of "320.58 tok/s" (claims row PLAN.claims:121) cannot be read: run strata_q2_0_moce085_prefill_1024tok has no metric "prefil_tok_s"; did you mean "prefill_tok_s"?`},
		{name: "run", file: "PLAN.claims", old: "strata_q2_0_moce085_prefill_1024tok:prefill_tok_s", new: "strata_q2_0_moce085_prefil_1024tok:prefill_tok_s",
			args: []string{"-rules", "plan.stale", "-format", "github"}, code: 1,
			out: `no run "strata_q2_0_moce085_prefil_1024tok" in the archive; did you mean "strata_q2_0_moce085_prefill_1024tok"?`},
		{name: "set", file: "PLAN.claims", old: "range(@q2_0:fill_gb_s)", new: "range(@q2_O:fill_gb_s)",
			args: []string{"-rules", "plan", "-format", "github", "-path-prefix", "."}, code: 1,
			out: `::error file=PLAN.claims,line=115,title=plan.stale::unknown set @q2_O; did you mean "@q2_0"?`},
		{name: "spec key", file: "strataspec.json", old: `"records": {`, new: `"recrods": {`, code: 2,
			errs: `unknown key "recrods"; did you mean "records"?`},
		{name: "rule setting", file: "strataspec.json", old: `"compare.unlike": {"vary"`, new: `"compare.unlike": {"varyy"`,
			args: []string{"-rules", "compare.unlike", "-format", "github", "-path-prefix", "."}, code: 1,
			out: `::error file=strataspec.json,line=69,title=compare.unlike::rules.compare.unlike: unknown key "varyy"; did you mean "vary"?`},
		{name: "nested rule setting", file: "strataspec.json", old: `"min_avail_warn_gib":`, new: `"min_avail_warn_gb":`,
			args: []string{"-rules", "memory", "-format", "github", "-path-prefix", "."}, code: 1,
			out: `::error file=strataspec.json,line=146,title=memory::rules.memory: unknown key "min_avail_warn_gb"; did you mean "min_avail_warn_gib"?`},
		{name: "record kind", file: "strataspec.json", old: `"selftest": "results`, new: `"selftset": "results`, code: 2,
			errs: `strataspec.json:8: records: unknown kind "selftset"; did you mean "selftest"?`},
		{name: "suggest metric", file: "PLAN.claims", old: "prefill_1024tok:prefill_tok_s", new: "prefill_1024tok:prefil_tok_s",
			args: []string{"-suggest"}, code: 1,
			out:  "\n§7.1 #5 | 320.58 tok/s | strata_q2_0_moce085_prefill_1024tok:prefill_tok_s\n",
			errs: `strataspec: PLAN.claims:121: §7.1 #5: source of "320.58 tok/s" (claims row PLAN.claims:121) cannot be read: run strata_q2_0_moce085_prefill_1024tok has no metric "prefil_tok_s"; did you mean "prefill_tok_s"? (plan.stale's fail in the audit)`},
		// -suggest and -metrics name a bad claims row as the audit does,
		// print what they can, and exit as the audit does for it: 1.
		{name: "suggest set", file: "PLAN.claims", old: "range(@q2_0:fill_gb_s)", new: "range(@q2_O:fill_gb_s)",
			args: []string{"-suggest"}, code: 1,
			out:  "# PLAN.claims:115: unknown set @q2_O; did you mean \"@q2_0\"?\n# PLAN.claims does not parse",
			errs: `strataspec: PLAN.claims:115: unknown set @q2_O; did you mean "@q2_0"? (plan.stale's fail in the audit)`},
		{name: "suggest json set", file: "PLAN.claims", old: "range(@q2_0:fill_gb_s)", new: "range(@q2_O:fill_gb_s)",
			args: []string{"-suggest", "-format", "json"}, code: 1,
			out:  `"bad_rows": [` + "\n" + `    "PLAN.claims:115: unknown set @q2_O; did you mean \"@q2_0\"?"`,
			errs: `PLAN.claims:115: unknown set @q2_O`},
		{name: "metrics set", file: "PLAN.claims", old: "range(@q2_0:fill_gb_s)", new: "range(@q2_O:fill_gb_s)",
			args: []string{"-metrics"}, code: 1,
			out:  "\nstrata_q2_0_moce085_prefill_1024tok ",
			errs: `strataspec: PLAN.claims:115: unknown set @q2_O; did you mean "@q2_0"? (plan.stale's fail in the audit)`},
		{name: "metrics metric", file: "PLAN.claims", old: "prefill_1024tok:prefill_tok_s", new: "prefill_1024tok:prefil_tok_s",
			args: []string{"-metrics", "strata_q2_0_moce085_prefill_1024tok"}, code: 1,
			out:  "\nstrata_q2_0_moce085_prefill_1024tok ",
			errs: `PLAN.claims:121: §7.1 #5: source of "320.58 tok/s" (claims row PLAN.claims:121) cannot be read: run strata_q2_0_moce085_prefill_1024tok has no metric "prefil_tok_s"; did you mean "prefill_tok_s"? (plan.stale's fail in the audit)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := fixtures + "/m5-v3"
			if tt.file != "" {
				root = snaptest.CopyFixture(t, "m5-v3")
				snaptest.Edit(t, filepath.Join(root, tt.file), tt.old, tt.new)
			}
			code, out, errs := runAudit(t, append([]string{"-root", root}, tt.args...)...)
			if code != tt.code {
				t.Errorf("audit %s = exit %d; want %d\nstderr: %s", tt.name, code, tt.code, errs)
			}
			if !strings.Contains(out, tt.out) {
				t.Errorf("audit %s stdout lacks %q:\n%s", tt.name, tt.out, out)
			}
			if !strings.Contains(errs, tt.errs) {
				t.Errorf("audit %s stderr = %q; want %q", tt.name, errs, tt.errs)
			}
		})
	}
}
