package spec

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/report"
	plangate "github.com/strataspec/strataspec/engine/rules/plan"
	"github.com/strataspec/strataspec/tools/strataspec/suggest"
)

// The plan gate without holes (issue 12): a parent section gates its
// subsections, numbers outside the claim sections are listed, labels agree
// with the bound runs, code spans quote real tail lines, removing a section
// shows in the counts, and -suggest writes rows that bind.

// sourced returns, per plan line, the quotes the gate sourced (pass findings
// of plan.unsourced), as "line:quote", sorted.
func sourced(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Rule == "plan.unsourced" && f.Severity == finding.Pass && f.Check == "" {
			out = append(out, fmt.Sprintf("%d:%s", f.Line, f.Quote))
		}
	}
	sort.Strings(out)
	return out
}

// gateCounts returns the Raw of plan.uncovered's gate finding, e.g.
// "gated=98 ungated=0 skipped=7", and its message (per section).
func gateCounts(t *testing.T, fs []finding.Finding) (raw, msg string) {
	t.Helper()
	for _, f := range fs {
		if f.Rule == "plan.uncovered" && f.Check == plangate.GateCheck {
			return f.Raw, f.Message
		}
	}
	t.Fatalf("no plan.uncovered gate finding among %d findings", len(fs))
	return "", ""
}

// replaceOnce returns b with old, which must occur once, replaced by new.
func replaceOnce(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	if n := bytes.Count(b, []byte(old)); n != 1 {
		t.Fatalf("%q occurs %d times; want once", old, n)
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// parseCounts returns the gated and ungated counts of gate counts raw
// ("gated=98 ungated=0 skipped=7"); counts it cannot read fail the test.
func parseCounts(t *testing.T, raw string) (gated, ungated int) {
	t.Helper()
	var skipped int
	if n, err := fmt.Sscanf(raw, "gated=%d ungated=%d skipped=%d", &gated, &ungated, &skipped); n != 3 {
		t.Fatalf("gate counts %q: %v; want gated=N ungated=N skipped=N", raw, err)
	}
	return gated, ungated
}

// TestGateParentSection: `section §7` instead of `section §7.1 #5` gates
// the same numbers (§7.1 #1–#4 are declared history with skip lines).
func TestGateParentSection(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	want := gate(t, base)
	if len(sourced(want)) == 0 {
		t.Fatal("fixtures/m5: the gate sources no quote; the comparison would test nothing")
	}
	got := gate(t, withFiles(t, base, pt, replaceOnce(t, ct, "section §7.1 #5\n", "section §7\n")))
	if fs := failures(got); len(fs) != 0 {
		t.Errorf("section §7: fails %v; want none", fs)
	}
	if diff := cmp.Diff(sourced(want), sourced(got)); diff != "" {
		t.Errorf("section §7: the sourced quotes differ from section §7.1 #5's (-§7.1 #5 +§7):\n%s", diff)
	}
	wr, wm := gateCounts(t, want)
	gr, gm := gateCounts(t, got)
	if gr != wr {
		t.Errorf("section §7: gate counts %q; want %q, section §7.1 #5's", gr, wr)
	}
	if gm != wm {
		t.Errorf("section §7: gate counts per section %q; want %q, section §7.1 #5's", gm, wm)
	}

	// a number added to §7.1 #5 is caught through the parent section
	bad := replaceOnce(t, pt, "- IQ3_S, 43-tok: arena + RA", "- IQ3_S, 43-tok, 7.77 ms: arena + RA")
	fs := failures(gate(t, withFiles(t, base, bad, replaceOnce(t, ct, "section §7.1 #5\n", "section §7\n"))))
	if len(fs) != 1 || fs[0].Rule != "plan.unsourced" || fs[0].Quote != "7.77 ms" {
		t.Errorf("section §7 with an unbound 7.77 ms in §7.1 #5: fails %v; want one plan.unsourced for 7.77 ms", fs)
	}

	// a section naming nothing fails; one holding no number warns
	fs = gate(t, withFiles(t, base, pt, append(bytes.Clone(ct), "section §9\nsection §1.2\n"...)))
	var missing, empty bool
	for _, f := range fs {
		missing = missing || f.Rule == "plan.stale" && f.Severity == finding.Fail && f.Quote == "§9"
		empty = empty || f.Rule == "plan.stale" && f.Severity == finding.Warn && f.Quote == "§1.2" && strings.Contains(f.Message, "holds no number")
	}
	if !missing || !empty {
		t.Errorf("section §9 (absent) and §1.2 (no number): missing fail %v, empty warn %v; want both", missing, empty)
	}
}

// TestGateUncovered: a sentence appended to the plan, outside every claim
// section, is a plan.uncovered warning on its line; -strict fails it.
func TestGateUncovered(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	if fs := gate(t, base); len(failures(fs)) != 0 {
		t.Fatalf("fixtures/m5: fails %v", failures(fs))
	}
	added := append(bytes.Clone(pt), "\nDecode on the 1,024-token run reaches 14.27 tok/s.\n"...)
	line := bytes.Count(added, []byte("\n"))
	fs := gate(t, withFiles(t, base, added, ct))
	if f := failures(fs); len(f) != 0 {
		t.Errorf("plan with a sentence appended outside the claim sections: fails %v; want none", f)
	}
	var warned []string
	for _, f := range fs {
		if f.Rule == "plan.uncovered" && f.Check == plangate.UncoveredCheck && f.Severity == finding.Warn {
			warned = append(warned, fmt.Sprintf("%d:%s", f.Line, f.Quote))
		}
	}
	want := []string{fmt.Sprintf("%d:1,024-token", line), fmt.Sprintf("%d:14.27 tok/s", line)}
	if diff := cmp.Diff(want, warned); diff != "" {
		t.Errorf("plan with a sentence appended: plan.uncovered warnings differ (-want +got):\n%s", diff)
	}

	strict := report.New("x", []string{"plan"}, plangate.Strict(fs))
	if !strict.Failed() || strict.Summary.Fail != 2 {
		t.Errorf("-strict: %d fails; want the 2 ungated numbers", strict.Summary.Fail)
	}
	// a skip line for the section silences the warning and counts the numbers
	fs = gate(t, withFiles(t, base, added, append(bytes.Clone(ct), "skip §8  # open questions\n"...)))
	raw, _ := gateCounts(t, fs)
	for _, f := range fs {
		if f.Severity != finding.Pass {
			t.Errorf("with skip §8: %v; want no warning", f)
		}
	}
	if !strings.Contains(raw, "ungated=0 skipped=9") {
		t.Errorf("with skip §8: counts %q; want 0 ungated and the 2 numbers skipped beside §1.3's and §7.1 #4's 7", raw)
	}
}

// TestGateRemovedSection: deleting a section line and its rows is a drop in
// the gated count and shows the section's numbers as ungated.
func TestGateRemovedSection(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	var kept []string
	for _, l := range strings.SplitAfter(string(ct), "\n") {
		if !strings.HasPrefix(l, "section §2.7.A #30") && !strings.HasPrefix(l, "§2.7.A #30 |") {
			kept = append(kept, l)
		}
	}
	before, _ := gateCounts(t, gate(t, base))
	fs := gate(t, withFiles(t, base, pt, []byte(strings.Join(kept, ""))))
	after, msg := gateCounts(t, fs)
	g0, u0 := parseCounts(t, before)
	g1, u1 := parseCounts(t, after)
	if g1 >= g0 || u1 <= u0 || !strings.Contains(msg, "§2.7.A #30") {
		t.Errorf("without section §2.7.A #30: counts %q (before %q), %q; want fewer gated, more ungated, §2.7.A #30 named", after, before, msg)
	}
	if len(failures(fs)) != 0 {
		t.Errorf("without section §2.7.A #30: fails %v; want warnings only", failures(fs))
	}
	t.Logf("gate %s → %s", before, after)
}

// TestGateRemovedSectionLine: deleting only a section line, its rows kept,
// is a drop in the gated count too: the rows still bind the section's
// numbers, but the claims in force are those of the declared sections, so
// the section's measurement-like numbers count (and warn) as ungated.
func TestGateRemovedSectionLine(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	before, _ := gateCounts(t, gate(t, base))
	fs := gate(t, withFiles(t, base, pt, replaceOnce(t, ct, "section §7.1 #5\n", "")))
	after, msg := gateCounts(t, fs)
	g0, u0 := parseCounts(t, before)
	g1, u1 := parseCounts(t, after)
	_, ungatedList, _ := strings.Cut(msg, "ungated (")
	if g1 >= g0 || u1 <= u0 || !strings.Contains(ungatedList, "§7.1 #5") {
		t.Errorf("without the line section §7.1 #5: counts %q (before %q), message %q; want fewer gated, more ungated, §7.1 #5 among the ungated", after, before, msg)
	}
	t.Logf("gate %s → %s", before, after)
}

// TestGateLabel: a label on a claim's line must agree with the runs the
// claim is bound to.
func TestGateLabel(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	for _, tt := range []struct{ old, new, quote, want string }{
		{"Q2_0 MoCE=0.85: 0.356695 / 75.00 %", "Q2_0 MoCE=0.95: 0.356695 / 75.00 %", "MoCE=0.95", "--moce 0.85"},
		{"- IQ3_S: 0.064461", "- IQ3_XS: 0.064461", "IQ3_XS", "K256-IQ3_S-metal.gguf"},
		{"21.7 → 63.27 tok/s at `-ub 2048`", "21.7 → 63.27 tok/s at `-ub 4096`", "-ub 4096", "-ub 2048"},
	} {
		fs := failures(gate(t, withFiles(t, base, replaceOnce(t, pt, tt.old, tt.new), ct)))
		if len(fs) != 1 || fs[0].Rule != "plan.label" || fs[0].Quote != tt.quote || !strings.Contains(fs[0].Message, tt.want) {
			t.Errorf("plan with %q: fails %v; want one plan.label for %s naming %s", tt.new, fs, tt.quote, tt.want)
		}
	}
}

// TestGateCodeSpan: a code span in a claim section that quotes a tail line
// must occur in the bound run's tail.
func TestGateCodeSpan(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	fs := gate(t, withFiles(t, base, replaceOnce(t, pt, "`eval time = 0.00 ms / 1 runs`", "`eval time = 0.10 ms / 1 runs`"), ct))
	f := failures(fs)
	if len(f) != 1 || f[0].Rule != "plan.unsourced" || f[0].Check != "code-span" || !strings.Contains(f[0].Message, "0.10 ms") {
		t.Errorf("a changed tail quote: fails %v; want one plan.unsourced code-span naming 0.10 ms", f)
	}
}

// TestGateDeepExpression: a claims expression nested 600,000 deep is a
// syntax error naming the file and line, not a stack overflow.
func TestGateDeepExpression(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	const depth = 600000
	row := "§7.1 #5 | 1 ms | " + strings.Repeat("ceil(", depth) + "1" + strings.Repeat(")", depth) + "\n"
	bad := append(bytes.Clone(ct), row...)
	line := bytes.Count(bad, []byte("\n"))
	err := checkRule(withFiles(t, base, pt, bad), planRules[0])
	want := fmt.Sprintf("PLAN.claims:%d: row: source", line)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "nested deeper than") || len(err.Error()) > 400 {
		t.Errorf("a %d-deep expression: error %.300v; want a short one starting %q", depth, err, want)
	}
}

// TestGateSuggest: -suggest covers each of m5-v3's 9 unsourced numbers with
// a row or its nearest raw values; on m5 with its rows removed, the unique
// suggestions pasted back bind their numbers.
func TestGateSuggest(t *testing.T) {
	t.Run("m5-v3", func(t *testing.T) {
		pc, err := planCheck(loadSnap(t, "m5-v3"))
		if err != nil {
			t.Fatalf("planCheck(fixtures/m5-v3) = %v", err)
		}
		ss := suggest.Rows(pc.Table, pc.Env, pc.Result)
		numbers := 0 // as the audit counts them: a range is one number, a sum one per part
		for _, s := range ss {
			if s.Token.Kind == plan.Range {
				numbers--
			}
			for i := range s.Token.Parts {
				numbers++
				if len(s.Parts[i]) == 0 && !strings.HasPrefix(s.NearestText(i), "nearest raw: ") {
					t.Errorf("%s %q part %d: no candidate and no nearest raw value", s.Place, s.Quote, i+1)
				}
			}
		}
		if numbers != 9 {
			t.Errorf("m5-v3: suggestions for %d numbers; want the audit's 9", numbers)
		}
	})
	t.Run("m5 without rows", func(t *testing.T) {
		base := loadSnap(t, "m5")
		pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
		var decl []string
		for _, l := range strings.SplitAfter(string(ct), "\n") {
			if !strings.Contains(l, " | ") {
				decl = append(decl, l)
			}
		}
		empty := []byte(strings.Join(decl, ""))
		c := withFiles(t, base, pt, empty)
		pc, err := planCheck(c)
		if err != nil {
			t.Fatalf("planCheck(fixtures/m5 without rows) = %v", err)
		}
		ss := suggest.Rows(pc.Table, pc.Env, pc.Result)
		rows := string(empty)
		// a quote twice on one line is one finding: count line:quote pairs
		uniqueLines, allLines := map[string]bool{}, map[string]bool{}
		for _, s := range ss {
			if s.Unique() {
				rows += s.Rows[0] + "\n"
			}
			for _, l := range s.Lines {
				k := fmt.Sprintf("%d:%s", l, s.Quote)
				allLines[k] = true
				uniqueLines[k] = s.Unique()
			}
		}
		unique, all := 0, len(allLines)
		for _, u := range uniqueLines {
			if u {
				unique++
			}
		}
		fs := failures(gate(t, withFiles(t, base, pt, []byte(rows))))
		for _, f := range fs {
			if uniqueLines[fmt.Sprintf("%d:%s", f.Line, f.Quote)] || f.Rule != "plan.unsourced" {
				t.Errorf("after pasting the unique suggestions: %v", f)
			}
		}
		if len(fs) != all-unique {
			t.Errorf("after pasting: %d fails; want the %d numbers with no unique source", len(fs), all-unique)
		}
		if unique < all/2 {
			t.Errorf("only %d of %d numbers have a unique source", unique, all)
		}
		t.Logf("%d of %d numbers had a unique source and are bound by the pasted rows; %d remain unsourced", unique, all, len(fs))
	})
}

// TestGateNarrowerSet: binding F13's quote "6.39–6.44 GB/s" in
// fixtures/m5-v3 to a narrower set that gives exactly that range (the
// prefill runs, which leave out the cold first run on the Q2_0 file) does
// not make plan.range pass: the first run on a model file is part of any
// range over runs of that file unless a caveat says otherwise.
func TestGateNarrowerSet(t *testing.T) {
	base := loadSnap(t, "m5-v3")
	pt, ct := readFixture(t, "m5-v3", "PLAN.md"), readFixture(t, "m5-v3", "PLAN.claims")
	narrow := replaceOnce(t, ct, "| 6.39–6.44 GB/s | range(@q2_0:fill_gb_s) | id=F13", "| 6.39–6.44 GB/s | range(@prefill:fill_gb_s) | id=F13")
	var got []finding.Finding
	for _, f := range failures(gate(t, withFiles(t, base, pt, narrow))) {
		if f.Rule == "plan.range" && f.Quote == "6.39–6.44 GB/s" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].ID != "F13" || !strings.Contains(got[0].Message, "strata_q2_0_moce0_short_43tok") {
		t.Errorf("F13 bound to range(@prefill:fill_gb_s): plan.range fails %v; want one F13 naming the cold first run strata_q2_0_moce0_short_43tok", got)
	}
}

// TestGateBOM: a UTF-8 byte order mark at the start of PLAN.md and of
// PLAN.claims (as some editors write) changes nothing the gate checks; it
// is noted.
func TestGateBOM(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	want := gate(t, base)
	if len(sourced(want)) == 0 {
		t.Fatal("fixtures/m5: the gate sources no quote; the comparison would test nothing")
	}
	got := gate(t, withFiles(t, base, append([]byte("\uFEFF"), pt...), append([]byte("\uFEFF"), ct...)))
	if fs := failures(got); len(fs) != 0 {
		t.Errorf("with a BOM: fails %v; want none", fs)
	}
	if diff := cmp.Diff(sourced(want), sourced(got)); diff != "" {
		t.Errorf("with a BOM: the sourced quotes differ (-without +with):\n%s", diff)
	}
	notes := 0
	for _, f := range got {
		if f.Check == plangate.ReadCheck && strings.Contains(f.Message, "byte order mark") {
			notes++
		}
	}
	if notes != 2 {
		t.Errorf("with a BOM in PLAN.md and PLAN.claims: %d notes; want 2", notes)
	}
}
