package spec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/audit/audittest"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/finding"
	gatecheck "github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/plan"
	plangate "github.com/strataspec/strataspec/engine/rules/plan"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// The plan gate: every number in the claim sections of PLAN.md bound to its
// source by PLAN.claims, checked against the archived runs.

// planRules are the plan gate's analyzers (engine/rules/plan).
var planRules = plangate.Analyzers()

// checkRule runs one analyzer over c and returns its error: unreadable
// input, as the audit reports it.
func checkRule(c *audit.Context, a *analysis.Analyzer) error {
	_, err := audittest.RunSelection(c, audit.Selection{Analyzers: []*analysis.Analyzer{a}})
	return err
}

// planSnaps holds the fixture snapshots loadSnap has loaded.
var planSnaps = map[string]*audit.Context{}

// loadSnap loads a fixture snapshot once per test binary; the tests do not
// run in parallel, and those that change a file do so in a copy (withFiles).
func loadSnap(t testing.TB, name string) *audit.Context {
	t.Helper()
	if c, ok := planSnaps[name]; ok {
		return c
	}
	c, err := audit.Load(filepath.Join("..", "fixtures", name))
	if err != nil {
		t.Fatalf("audit.Load(fixtures/%s): %v", name, err)
	}
	planSnaps[name] = c
	return c
}

// withFiles returns a context over the same runs whose snapshot root is a
// temporary directory holding the given PLAN.md and PLAN.claims: a temp copy
// of the files the gate reads, with the parsed runs shared.
func withFiles(t testing.TB, base *audit.Context, planText, claimsText []byte) *audit.Context {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "PLAN.md"), planText, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, claims.File), claimsText, 0o644); err != nil {
		t.Fatal(err)
	}
	snap := *base.Snap
	snap.Root, snap.FS = dir, nil
	return &audit.Context{Snap: &snap, Metrics: base.Metrics}
}

func readFixture(t testing.TB, name, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "fixtures", name, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gate runs the plan rules over c, as the audit does, and returns their
// findings.
func gate(t testing.TB, c *audit.Context) []finding.Finding {
	t.Helper()
	rep, err := audit.RunSelection(c, audit.Selection{Analyzers: planRules})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Findings
}

// TestPlanClaims checks the claims table of fixtures/m5 row by row: one
// subtest per row and quote, named by place and quote.
func TestPlanClaims(t *testing.T) {
	pc, err := planCheck(loadSnap(t, "m5"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pc.Table.Rows) < 90 {
		t.Fatalf("fixtures/m5/PLAN.claims has %d rows; the claim sections quote more than 90 numbers", len(pc.Table.Rows))
	}
	if len(pc.Result.Bindings) < len(pc.Table.Rows) {
		t.Fatalf("fixtures/m5: %d bindings for %d claims rows; want every row bound to a quote", len(pc.Result.Bindings), len(pc.Table.Rows))
	}
	for _, b := range pc.Result.Bindings {
		name := fmt.Sprintf("%s/%s/line%d", b.Place, b.Row.Quote, b.Token.Line)
		t.Run(name, func(t *testing.T) {
			if b.Status != gatecheck.Match {
				t.Errorf("PLAN.md:%d %q (PLAN.claims:%d) = %s, raw %s from %s: %s", b.Token.Line, b.Row.Quote, b.Row.Line, b.Status, b.Raw, b.Source, b.Msg)
			}
		})
	}
}

// TestPlanGate runs the gate over the claim sections of both snapshots.
func TestPlanGate(t *testing.T) {
	t.Run("m5", func(t *testing.T) {
		fs := gate(t, loadSnap(t, "m5"))
		if len(fs) == 0 {
			t.Fatal("fixtures/m5: the gate reported nothing; want a pass per bound quote")
		}
		for _, f := range fs {
			if f.Severity != finding.Pass {
				t.Errorf("fixtures/m5: %v", f)
			}
		}
	})
	t.Run("m5-v3", func(t *testing.T) {
		// the audit's §1c: 7 cells, 9 numbers, each with its raw values
		want := []struct {
			id, rule, quote, raw string
			line                 int
		}{
			{"F09", "plan.unsourced", "69.43 + 7.89 %", "52.60 + 24.72 %", 580},
			{"F10", "plan.unsourced", "71.09 + 11.35 %", "63.86 + 18.58 %", 581},
			{"F11", "plan.unsourced", "3,194.23 ms", "3,194.19 ms", 578},
			{"F12", "plan.unsourced", "5,793.62 ms", "5,793.65 ms", 578},
			{"F13", "plan.range", "6.39–6.44 GB/s", "3.66–6.44 GB/s", 577},
			{"F14", "plan.unsourced", "6.82–7.07 GB/s", "6.10–7.07 GB/s", 577},
			{"F15", "plan.unsourced", "0.5 s", "0.4–0.9 s", 577},
		}
		// The plan quotes llama.cpp's "Generation: 1.4 t/s" as 1.40: its row
		// declares the zero padding (pad=zeros), so the gate passes it and
		// says so, and the report is the audit's §1c alone.
		const padded = "1.40 → 3.22 tok/s"
		fs := gate(t, loadSnap(t, "m5-v3"))
		fails := failures(fs)
		got := map[string]finding.Finding{}
		for _, f := range fails {
			got[f.ID] = f
		}
		if len(fails) != len(want) {
			t.Errorf("fixtures/m5-v3: %d fail findings; want %d:\n%v", len(fails), len(want), fails)
		}
		padOK := false
		for _, f := range fs {
			padOK = padOK || (f.Quote == padded && f.Severity == finding.Pass && f.Raw == "1.4 → 3.22 tok/s" && strings.Contains(f.Message, "pad=zeros"))
		}
		if !padOK {
			t.Errorf("fixtures/m5-v3: no pass finding for %q naming its declared zero padding (raw 1.4 → 3.22 tok/s)", padded)
		}
		for _, w := range want {
			f, ok := got[w.id]
			if !ok {
				t.Errorf("no %s finding", w.id)
				continue
			}
			if f.Rule != w.rule || f.Quote != w.quote || f.Raw != w.raw || f.File != "PLAN.md" || f.Line != w.line {
				t.Errorf("%s = %s %s:%d quote %q raw %q; want %s PLAN.md:%d quote %q raw %q", w.id, f.Rule, f.File, f.Line, f.Quote, f.Raw, w.rule, w.line, w.quote, w.raw)
			}
		}
		// and nothing else: no warning either (the cold decode pair, F30, is
		// the kld rule's sample-size finding, not the gate's), but the row
		// that divides by the runner's literal token count ($runner_tokens,
		// the F19 divisor), which is declared, not measured
		declared := false
		for _, f := range fs {
			if f.Severity == finding.Warn && f.Check == plangate.DeclaredCheck && f.Quote == "1,628.5 → 514.3 MB/tok" {
				declared = true
				continue
			}
			if f.Severity == finding.Warn {
				t.Errorf("fixtures/m5-v3: warning %v; want the audit's §1c alone", f)
			}
		}
		if !declared {
			t.Errorf("fixtures/m5-v3: no declared-not-measured warning for the row bound to $runner_tokens")
		}
	})
}

// claimTokens returns every token of the claim sections of a plan.
func claimTokens(t testing.TB, planText, claimsText []byte) []plan.Token {
	doc := plan.Parse("PLAN.md", planText)
	tb := claims.Parse("PLAN.claims", claimsText, eval.Signatures())
	var out []plan.Token
	for _, s := range tb.Sections {
		out = append(out, doc.TokensIn(s.Place)...)
	}
	if len(out) == 0 {
		t.Fatal("no tokens in the claim sections")
	}
	return out
}

// perturb changes the last printed digit of part i of a token: 0–8 up by
// one, 9 down by one.
func perturb(tk plan.Token, i int) (string, bool) {
	p := tk.Parts[i]
	start := strings.Index(tk.Text, p.Text)
	if i > 0 {
		// the part's text after the earlier parts
		off := 0
		for k := 0; k <= i; k++ {
			j := strings.Index(tk.Text[off:], tk.Parts[k].Text)
			if j < 0 {
				return "", false
			}
			start = off + j
			off = start + len(tk.Parts[k].Text)
		}
	}
	if start < 0 {
		return "", false
	}
	txt := []byte(p.Text)
	j := len(txt) - 1
	if p.Sci {
		j = bytes.IndexAny(txt, "eE") - 1
	}
	for j >= 0 && (txt[j] < '0' || txt[j] > '9') {
		j--
	}
	if j < 0 {
		return "", false
	}
	if txt[j] == '9' {
		txt[j] = '8'
	} else {
		txt[j]++
	}
	return tk.Text[:start] + string(txt) + tk.Text[start+len(p.Text):], true
}

// replaceAt replaces the token on its line in the plan text.
func replaceAt(planText []byte, tk plan.Token, text string) []byte {
	lines := strings.SplitAfter(string(planText), "\n")
	l := lines[tk.Line-1]
	c := tk.Col - 1
	lines[tk.Line-1] = l[:c] + text + l[c+len(tk.Text):]
	return []byte(strings.Join(lines, ""))
}

// TestPlanPerturb walks every quoted number of fixtures/m5's claim sections,
// changes it in its last printed digit in a temp copy of the plan, and sees
// the gate fail naming that line.
func TestPlanPerturb(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	n := 0
	for _, tk := range claimTokens(t, pt, ct) {
		for i := range tk.Parts {
			text, ok := perturb(tk, i)
			if !ok {
				t.Errorf("PLAN.md:%d: cannot perturb %q part %d", tk.Line, tk.Text, i)
				continue
			}
			n++
			fs := failures(gate(t, withFiles(t, base, replaceAt(pt, tk, text), ct)))
			named := false
			for _, f := range fs {
				named = named || f.File == "PLAN.md" && f.Line == tk.Line && f.Quote == text
			}
			if !named {
				t.Errorf("PLAN.md:%d %q → %q: the gate does not fail on that line; fails: %v", tk.Line, tk.Text, text, fs)
			}
		}
	}
	t.Logf("%d perturbations, each failed the gate on its line", n)
}

// TestPlanDelete walks every quoted number of fixtures/m5's claim sections,
// deletes it from a temp copy of the plan, and sees the gate fail with a
// stale claims row for that quote.
func TestPlanDelete(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	toks := claimTokens(t, pt, ct)
	for _, tk := range toks {
		fs := failures(gate(t, withFiles(t, base, replaceAt(pt, tk, "a number"), ct)))
		named := false
		for _, f := range fs {
			named = named || f.Rule == "plan.stale" && f.File == "PLAN.claims" && f.Quote == tk.Text
		}
		if !named {
			t.Errorf("PLAN.md:%d %q deleted: no plan.stale fail for its row; fails: %v", tk.Line, tk.Text, fs)
		}
	}
	t.Logf("%d deletions, each made its claims row stale", len(toks))
}

// TestPlanAddUnbound appends an unbound number to every line of the claim
// sections that quotes one, in turn, and sees the gate fail on that line.
func TestPlanAddUnbound(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	lines := map[int]bool{}
	for _, tk := range claimTokens(t, pt, ct) {
		lines[tk.Line] = true
	}
	text := strings.SplitAfter(string(pt), "\n")
	for ln := range lines {
		added := append([]string(nil), text...)
		added[ln-1] = strings.TrimSuffix(added[ln-1], "\n") + " (also 7.77 ms)\n"
		fs := failures(gate(t, withFiles(t, base, []byte(strings.Join(added, "")), ct)))
		if len(fs) != 1 || fs[0].Rule != "plan.unsourced" || fs[0].Line != ln || fs[0].Quote != "7.77 ms" {
			t.Errorf("PLAN.md:%d with an unbound 7.77 ms: fails %v; want one plan.unsourced on that line", ln, fs)
		}
	}
	t.Logf("%d lines, each failed with the added number", len(lines))
}

// TestPlanUnboundAndStale adds an unbound number and deletes a bound quote.
func TestPlanUnboundAndStale(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	doc := plan.Parse("PLAN.md", pt)

	t.Run("unbound", func(t *testing.T) {
		// a new bullet in §7.1 #5, after the line quoting 320.58 tok/s
		var at int
		for _, l := range doc.Lines {
			if strings.Contains(l.Text, "320.58 tok/s") {
				at = l.N
			}
		}
		if at == 0 {
			t.Fatal("fixtures/m5/PLAN.md no longer quotes 320.58 tok/s")
		}
		lines := strings.SplitAfter(string(pt), "\n")
		added := "- decode after the longest prefill: 13.71 tok/s.\n"
		lines = append(lines[:at], append([]string{added}, lines[at:]...)...)
		fs := failures(gate(t, withFiles(t, base, []byte(strings.Join(lines, "")), ct)))
		if len(fs) != 1 || fs[0].Rule != "plan.unsourced" || fs[0].Line != at+1 || fs[0].Quote != "13.71 tok/s" ||
			!strings.Contains(fs[0].Raw, "13.70 tok/s (strata_q2_0_moce085_prefill_2048tok: decode_tok_s)") {
			t.Errorf("gate with an unbound 13.71 tok/s on line %d = %v; want one plan.unsourced fail there naming the nearest raw 13.70 (prefill_2048tok decode_tok_s)", at+1, fs)
		}
	})
	t.Run("stale", func(t *testing.T) {
		var tk plan.Token
		for _, x := range doc.TokensIn("§7.1 #5") {
			if x.Text == "320.58 tok/s" {
				tk = x
			}
		}
		if tk.Line == 0 {
			t.Fatal("fixtures/m5/PLAN.md §7.1 #5 no longer quotes 320.58 tok/s")
		}
		fs := failures(gate(t, withFiles(t, base, replaceAt(pt, tk, "fast"), ct)))
		row := 0
		for i, l := range strings.Split(string(ct), "\n") {
			if strings.Contains(l, "| 320.58 tok/s |") {
				row = i + 1
			}
		}
		if len(fs) != 1 || fs[0].Rule != "plan.stale" || fs[0].File != "PLAN.claims" || fs[0].Line != row {
			t.Errorf("gate with 320.58 tok/s deleted = %v; want one plan.stale fail at PLAN.claims:%d", fs, row)
		}
	})
	t.Run("cold set wrong", func(t *testing.T) {
		// the cold set feeds the kld rule's check of the decode pair (F30);
		// a copy of the whole snapshot: the kld rule also reads the TF files
		root := snaptest.CopyFixture(t, "m5")
		snaptest.Edit(t, filepath.Join(root, claims.File),
			"set cold = strata_q2_0_moce0_short_43tok strata_iq3_s_short_43tok", "set cold = strata_q2_0_moce0_short_43tok")
		fs := failures(auditFindings(t, root, "kld"))
		if len(fs) != 1 || fs[0].Rule != "kld" || fs[0].File != "PLAN.claims" || !strings.Contains(fs[0].Message, "strata_iq3_s_short_43tok") {
			t.Errorf("kld with the IQ3_S cold run left out of set cold = %v; want one fail naming it", fs)
		}
	})
	t.Run("caveat deleted", func(t *testing.T) {
		c, ok := doc.Caveat("decode-pair-n1", "§7.1 #5")
		if !ok {
			t.Fatal("fixtures/m5 states no caveat (decode-pair-n1)")
		}
		lines := strings.SplitAfter(string(pt), "\n")
		lines = append(lines[:c.Line-1], lines[c.End:]...)
		fs := failures(gate(t, withFiles(t, base, []byte(strings.Join(lines, "")), ct)))
		if len(fs) != 1 || fs[0].Rule != "plan.stale" || fs[0].Quote != "9.51 → 13.52 tok/s" || !strings.Contains(fs[0].Message, "(decode-pair-n1)") {
			t.Errorf("gate with caveat (decode-pair-n1) deleted = %v; want one plan.stale fail on the decode pair naming it", fs)
		}
	})
}

// TestPlanBadInput: CRLF, non-UTF-8 and a 100,000-line plan give clear
// results and no panic; a malformed claims table is an error naming its line.
func TestPlanBadInput(t *testing.T) {
	base := loadSnap(t, "m5")
	pt, ct := readFixture(t, "m5", "PLAN.md"), readFixture(t, "m5", "PLAN.claims")
	passes := len(gate(t, base))
	if passes == 0 {
		t.Fatal("fixtures/m5: the gate reported nothing; the cases below compare with its findings")
	}

	t.Run("CRLF", func(t *testing.T) {
		crlf := bytes.ReplaceAll(pt, []byte("\n"), []byte("\r\n"))
		fs := gate(t, withFiles(t, base, crlf, bytes.ReplaceAll(ct, []byte("\n"), []byte("\r\n"))))
		if len(failures(fs)) != 0 || len(fs) != passes {
			t.Errorf("CRLF plan: %d findings, fails %v; want the LF plan's %d passes", len(fs), failures(fs), passes)
		}
	})
	t.Run("non-UTF-8", func(t *testing.T) {
		doc := plan.Parse("PLAN.md", pt)
		tk := doc.TokensIn("§7.1 #5")[0]
		lines := strings.SplitAfter(string(pt), "\n")
		lines[tk.Line-1] = strings.TrimSuffix(lines[tk.Line-1], "\n") + " \xff\n"
		fs := failures(gate(t, withFiles(t, base, []byte(strings.Join(lines, "")), ct)))
		if len(fs) != 1 || fs[0].File != "PLAN.md" || fs[0].Line != tk.Line || !strings.Contains(fs[0].Message, "invalid UTF-8") {
			t.Errorf("plan with a bad byte on line %d: fails %v; want one naming PLAN.md:%d invalid UTF-8", tk.Line, fs, tk.Line)
		}
	})
	t.Run("non-UTF-8 outside the claim sections", func(t *testing.T) {
		bad := append(bytes.Clone(pt), "\n## 9. Appendix\n\nA stray \xfe byte.\n"...)
		fs := gate(t, withFiles(t, base, bad, ct))
		line := bytes.Count(bad, []byte("\n"))
		var warns []finding.Finding
		for _, f := range fs {
			if f.Severity == finding.Warn {
				warns = append(warns, f)
			}
		}
		if len(failures(fs)) != 0 || len(warns) != 1 || warns[0].Line != line || !strings.Contains(warns[0].Message, "invalid UTF-8") {
			t.Errorf("plan with a bad byte on line %d outside the claim sections: warns %v, fails %v; want one warning naming the line", line, warns, failures(fs))
		}
	})
	t.Run("100000 lines", func(t *testing.T) {
		var b bytes.Buffer
		b.Write(pt)
		b.WriteString("\n## 9. Appendix\n\n")
		added := 0
		for n := bytes.Count(pt, []byte("\n")) + 3; n < 100000; n++ {
			b.WriteString("An appendix line outside the claim sections, quoting 3,194.23 ms and 69.43 % freely.\n")
			added++
		}
		fs := gate(t, withFiles(t, base, b.Bytes(), ct))
		// the appendix is ungated: its numbers are warned about (listed up
		// to gatecheck.MaxUncovered, then counted), never failed
		warns, counts := 0, ""
		for _, f := range fs {
			if f.Rule == "plan.uncovered" && f.Check == plangate.UncoveredCheck && f.Severity == finding.Warn {
				warns++
			}
			if f.Check == plangate.GateCheck {
				counts = f.Raw
			}
		}
		wantCounts := fmt.Sprintf("ungated=%d ", 2*added)
		if len(failures(fs)) != 0 || len(fs)-warns != passes || warns != gatecheck.MaxUncovered+1 || !strings.Contains(counts, wantCounts) {
			t.Errorf("100,000-line plan: %d findings (%d warnings), counts %q, fails %v; want the %d passes of the plan, %d warnings and %q",
				len(fs), warns, counts, failures(fs), passes, gatecheck.MaxUncovered+1, wantCounts)
		}
	})
	t.Run("bad claims table", func(t *testing.T) {
		bad := append(bytes.Clone(ct), "§7.1 #5 | 1 ms | frobnicate(x:y)\n"...)
		line := bytes.Count(bad, []byte("\n"))
		c := withFiles(t, base, pt, bad)
		for _, r := range planRules {
			err := checkRule(c, r)
			if want := fmt.Sprintf("PLAN.claims:%d: row: source \"frobnicate(x:y)\": unknown derivation frobnicate", line); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("rule %s on a bad claims table: error %v; want %q", r.Name, err, want)
			}
		}
	})
	t.Run("missing files", func(t *testing.T) {
		// runs without a plan are a folder of logs being adopted (README):
		// the plan rules do not apply, they do not stop the audit
		snap := *base.Snap
		snap.Root, snap.FS = t.TempDir(), nil
		for _, r := range planRules {
			res, err := (&audit.Context{Snap: &snap, Metrics: base.Metrics}).Run(r)
			if err != nil || len(res) != 1 || res[0].NotApplied != "no PLAN.md" {
				t.Errorf("rule %s without PLAN.md: error %v, results %+v; want not applied: no PLAN.md", r.Name, err, res)
			}
		}
	})
}
