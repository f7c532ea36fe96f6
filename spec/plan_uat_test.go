package spec

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// The plan gate against the damage a user-acceptance test did to a copy of
// fixtures/m5: each case edits PLAN.md and/or PLAN.claims and checks the
// gate's findings.

// edit is one replacement in one file of a snapshot copy.
type edit struct{ file, old, new string }

// gateCopy copies fixtures/m5, applies the edits, runs the plan rules and
// returns the copy's root and the findings.
func gateCopy(t *testing.T, edits ...edit) (string, []finding.Finding) {
	t.Helper()
	return gateCopyRules(t, "plan", edits...)
}

// gateCopyRules is gateCopy with the rules to run.
func gateCopyRules(t *testing.T, rules string, edits ...edit) (string, []finding.Finding) {
	t.Helper()
	root := snaptest.CopyFixture(t, "m5")
	for _, e := range edits {
		snaptest.Edit(t, filepath.Join(root, e.file), e.old, e.new)
	}
	return root, auditFindings(t, root, rules)
}

// lineOf returns the 1-based line of the only line of a snapshot file that
// contains s.
func lineOf(t *testing.T, root, file, s string) int {
	t.Helper()
	n := 0
	for i, l := range strings.Split(snaptest.Read(t, filepath.Join(root, file)), "\n") {
		if strings.Contains(l, s) {
			if n != 0 {
				t.Fatalf("%s: %q on lines %d and %d; want one", file, s, n, i+1)
			}
			n = i + 1
		}
	}
	if n == 0 {
		t.Fatalf("%s: no line contains %q", file, s)
	}
	return n
}

func fmtFindings(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n\t%v [quote %q raw %q]", f, f.Quote, f.Raw)
	}
	return b.String()
}

// TestPlanPrecision: a quote more precise than its source fails, even when
// the value is equal, and the finding shows the raw value as the source
// printed it. A derivation may be quoted to the decimals of the most precise
// metric feeding it, or to the row's digits=K.
func TestPlanPrecision(t *testing.T) {
	tests := []struct {
		name     string
		edits    []edit
		quote    string // the fail finding's quote; "" for no fail
		raw, msg string // its raw value and a part of its message
	}{
		{"metric printed with 2 decimals, quoted with 4",
			[]edit{{"PLAN.md", "3,194.19 ms", "3,194.1900 ms"}, {"PLAN.claims", "3,194.19 ms", "3,194.1900 ms"}},
			"3,194.1900 ms", "3,194.19 ms",
			"precision: 3,194.1900 is quoted with 4 decimals; its source printed 2 decimals: 3194.19 at strata_q2_0_moce085_prefill_1024tok: prefill_ms"},
		{"mean of metrics printed with 6 decimals, quoted with 7",
			[]edit{{"PLAN.md", "0.064461 /", "0.0644610 /"}, {"PLAN.claims", "| 0.064461 |", "| 0.0644610 |"}},
			"0.0644610", "0.064461",
			"the most precise metric feeding its source printed 6 decimals"},
		{"mean quoted with 7 decimals, allowed by digits=7", []edit{
			{"PLAN.md", "0.064461 /", "0.0644610 /"},
			{"PLAN.claims", "| 0.064461 | mean(@tf_iq3_s:kld_mean)", "| 0.0644610 | mean(@tf_iq3_s:kld_mean) | digits=7"}},
			"", "", ""},
		{"mean quoted with 8 decimals, digits=7",
			[]edit{
				{"PLAN.md", "0.064461 /", "0.06446100 /"},
				{"PLAN.claims", "| 0.064461 | mean(@tf_iq3_s:kld_mean)", "| 0.06446100 | mean(@tf_iq3_s:kld_mean) | digits=7"}},
			"0.06446100", "0.0644610", "0.06446100 is quoted with 8 decimals; its row allows 7 decimals (digits=7)"},
		{"scientific quote with a digit more than printed",
			[]edit{{"PLAN.md", "2.16e-07 (K=512)", "2.160e-07 (K=512)"}, {"PLAN.claims", "| 2.16e-07 |", "| 2.160e-07 |"}},
			"2.160e-07", "2.16e-07", "2.160e-07 is quoted to 1e-10; its source printed to 1e-09"},
		{"digits=K does not lift a value read as printed",
			[]edit{{"PLAN.md", "3,194.19 ms", "3,194.1900 ms"}, {"PLAN.claims", "| 3,194.19 ms | strata_q2_0_moce085_prefill_1024tok:prefill_ms | id=F11", "| 3,194.1900 ms | strata_q2_0_moce085_prefill_1024tok:prefill_ms | id=F11 digits=4"}},
			"3,194.1900 ms", "3,194.19 ms", "its source printed 2 decimals"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs := gateCopy(t, tt.edits...)
			fails := failures(fs)
			if tt.quote == "" {
				if len(fails) != 0 {
					t.Errorf("gate(%q) fails = %v; want none", tt.name, fmtFindings(fails))
				}
				return
			}
			if len(fails) != 1 || fails[0].Rule != "plan.unsourced" || fails[0].Quote != tt.quote ||
				fails[0].Raw != tt.raw || !strings.Contains(fails[0].Message, tt.msg) {
				t.Errorf("gate(%q) fails = %v; want one plan.unsourced fail on %q, raw %q, saying %q", tt.name, fmtFindings(fails), tt.quote, tt.raw, tt.msg)
			}
		})
	}
}

// TestPlanBadSourceNamesRow: a claims row whose run or metric is mistyped
// fails naming the row's line in PLAN.claims.
func TestPlanBadSourceNamesRow(t *testing.T) {
	const row = "| 3,194.19 ms | strata_q2_0_moce085_prefill_1024tok:prefill_ms"
	tests := []struct {
		name, new, want string
	}{
		{"run", "| 3,194.19 ms | strata_q2_0_moce085_prefill_1024tk:prefill_ms", `no run "strata_q2_0_moce085_prefill_1024tk" in the archive`},
		{"metric", "| 3,194.19 ms | strata_q2_0_moce085_prefill_1024tok:prefil_ms", `has no metric "prefil_ms"`},
	}
	for _, tt := range tests {
		root, fs := gateCopy(t, edit{claims.File, row, tt.new})
		line := lineOf(t, root, claims.File, tt.new)
		fails := failures(fs)
		want := fmt.Sprintf("(claims row PLAN.claims:%d) cannot be read: ", line)
		if len(fails) != 1 || fails[0].Rule != "plan.stale" || !strings.Contains(fails[0].Message, want) || !strings.Contains(fails[0].Message, tt.want) {
			t.Errorf("gate(mistyped %s) = %v; want one plan.stale fail containing %q and %q", tt.name, fmtFindings(fails), want, tt.want)
		}
	}
}

// TestPlanClaimsErrorsAll: every error of a claims table is reported, not
// only the first.
func TestPlanClaimsErrorsAll(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	path := filepath.Join(root, claims.File)
	snaptest.Edit(t, path, "set q2_0       = strata_q2_0_* strata_metal_optimized_k256_q2_0_* strata_tf_q2_0_*", "set q2_0 =")
	snaptest.Edit(t, path, "set iq3_s      = strata_iq3_s_* strata_tf_iq3_s_*", "set iq3_s =")
	q2, iq3 := lineOf(t, root, claims.File, "set q2_0 ="), lineOf(t, root, claims.File, "set iq3_s =")
	c, err := audit.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = planCheck(c)
	if err == nil {
		t.Fatal("LoadPlanCheck with two empty sets = nil; want an error")
	}
	lines := strings.Split(err.Error(), "\n")
	for _, want := range []string{
		fmt.Sprintf("PLAN.claims:%d: set q2_0: no runs", q2),
		fmt.Sprintf("PLAN.claims:%d: set iq3_s: no runs", iq3),
		"unknown set @q2_0", "unknown set @iq3_s",
	} {
		found := false
		for _, l := range lines {
			found = found || strings.Contains(l, want)
		}
		if !found {
			t.Errorf("LoadPlanCheck(two empty sets) = %q; want a line containing %q", err, want)
		}
	}
	n := len(claims.Parse(claims.File, []byte(snaptest.Read(t, path)), eval.Signatures()).Errors)
	if n <= claims.MaxErrors {
		t.Fatalf("the damaged table has %d errors; want more than %d, to see the rest counted", n, claims.MaxErrors)
	}
	wantLast := fmt.Sprintf("PLAN.claims: and %d more errors", n-claims.MaxErrors)
	if len(lines) != claims.MaxErrors+1 || lines[len(lines)-1] != wantLast {
		t.Errorf("LoadPlanCheck(two empty sets) = %d lines, last %q; want %d lines, last %q", len(lines), lines[len(lines)-1], claims.MaxErrors+1, wantLast)
	}
}

// TestPlanUnitMismatch: a quote bound to a metric in another unit shows the
// source's value in the source's unit and says the units differ.
func TestPlanUnitMismatch(t *testing.T) {
	_, fs := gateCopy(t, edit{claims.File, "| 9.51 → 13.52 tok/s | strata_q2_0_moce0_short_43tok:decode_tok_s ;", "| 9.51 → 13.52 tok/s | strata_q2_0_moce0_short_43tok:decode_ms ;"})
	fails := failures(fs)
	const raw = "6729.76 ms → 13.52 tok/s"
	const msg = "unit: 9.51 is quoted in tok/s, its source is in ms: the units differ"
	if len(fails) != 1 || fails[0].Quote != "9.51 → 13.52 tok/s" || fails[0].Raw != raw || !strings.Contains(fails[0].Message, msg) {
		t.Errorf("gate(9.51 tok/s bound to decode_ms) = %v; want one fail with raw %q saying %q", fmtFindings(fails), raw, msg)
	}
}

// TestPlanNoDuplicateFindings: a quote made twice on one line by an edit
// gives one finding, not the same one twice.
func TestPlanNoDuplicateFindings(t *testing.T) {
	root, fs := gateCopy(t, edit{"PLAN.md", "to 40.6 misses/tok", "to 84.3 misses/tok"})
	seen := map[finding.Finding]int{}
	for _, f := range fs {
		seen[f]++
	}
	for f, n := range seen {
		if n > 1 {
			t.Errorf("gate(40.6 → 84.3) reports %v %d times; want once", f, n)
		}
	}
	line := lineOf(t, root, "PLAN.md", "from 84.3 misses/tok to 84.3 misses/tok")
	var extra []finding.Finding
	for _, f := range failures(fs) {
		if f.File == "PLAN.md" && f.Line == line && f.Quote == "84.3 misses/tok" {
			extra = append(extra, f)
		}
	}
	if len(extra) != 1 || !strings.Contains(extra[0].Message, "occurs 2 times") {
		t.Errorf("gate(40.6 → 84.3) fails on PLAN.md:%d = %v; want one saying the quote occurs 2 times", line, fmtFindings(extra))
	}
}

// TestPlanNearestDerived: an unbound number near a value a claims row
// derives names that derivation among the nearest raw values.
func TestPlanNearestDerived(t *testing.T) {
	root, fs := gateCopy(t, edit{"PLAN.md", "0.064461 /", "0.064462 /"})
	row := lineOf(t, root, claims.File, "| 0.064461 |")
	want := fmt.Sprintf("0.064461 (mean(@tf_iq3_s:kld_mean), §7.1 #5, PLAN.claims:%d)", row)
	var got *finding.Finding
	for i, f := range fs {
		if f.Quote == "0.064462" && f.Rule == "plan.unsourced" {
			got = &fs[i]
		}
	}
	if got == nil || !strings.Contains(got.Raw, want) || strings.Contains(got.Raw, "  ") {
		t.Errorf("gate(0.064461 → 0.064462) unbound finding = %v; want nearest raw naming %q, no double space", got, want)
	}
}
