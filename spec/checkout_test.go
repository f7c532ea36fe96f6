package spec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	gatecheck "github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/golden"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// The checkout's own spec. STRATA_CHECKOUT names a strata checkout (or a
// snapshot laid out like one); TestCheckout runs the spec over it:
//
//	STRATA_CHECKOUT=~/strata go test ./spec/ -run Checkout -v
//
// one subtest per row of its PLAN.claims, named by place and quote
// (claims/§7.1_#5/3,194.19_ms), the gate over its claim sections (gate/…,
// one subtest per plan rule: an unsourced or stale number fails there by
// quote), every other rule that applies (rules/…), and its golden audit
// reports (golden/…). Without STRATA_CHECKOUT it runs over fixtures/m5.
//
// A relative STRATA_CHECKOUT is resolved against the repository root (the
// directory holding go.mod, where `go test ./spec/...` is typed), not
// against spec/, the directory go test runs the tests in: fixtures/m5 means
// the repository's fixtures/m5 whichever directory the tests run in.
//
// Golden reports of a checkout live in the checkout, in strataspec/golden/
// (report.txt, report.json), not in this repository; the repository's own
// snapshots (fixtures/NAME) keep theirs in golden/NAME/. `-update` rewrites
// them under the same rules as every golden file (engine/golden: refused
// when CI is set).

// envCheckout names the variable that selects the checkout.
const envCheckout = "STRATA_CHECKOUT"

// checkoutDir returns the checkout STRATA_CHECKOUT names, resolved as above,
// and whether it was set; a path that is not a directory fails the test.
func checkoutDir(t testing.TB) (string, bool) {
	t.Helper()
	v := os.Getenv(envCheckout)
	if v == "" {
		return "", false
	}
	dir := resolveCheckout(v)
	fsys, err := snapfs.Open(dir)
	if err != nil {
		t.Fatalf("%s=%s: %s is not a directory (a relative path is read from the repository root, %s)", envCheckout, v, dir, repoRoot())
	}
	fsys.Close()
	return dir, true
}

// resolveCheckout resolves a STRATA_CHECKOUT value: absolute as given,
// relative against the repository root.
func resolveCheckout(v string) string {
	if filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return filepath.Join(repoRoot(), v)
}

// repoRoot is the repository root, absolute.
func repoRoot() string {
	root, err := filepath.Abs(snaptest.Root())
	if err != nil {
		return snaptest.Root()
	}
	return root
}

// checkoutGolden returns where the golden reports of the checkout at dir
// live, as a folder confined to its base (read and written through
// engine/snapfs), and the root the reports print: folder NAME of the
// repository's golden/ and fixtures/NAME for a snapshot of this repository,
// strataspec/golden of DIR and the checkout's base name for any other.
func checkoutGolden(dir string) (base, goldenDir, shownRoot string) {
	rel, err := filepath.Rel(repoRoot(), dir)
	if err == nil && filepath.Dir(rel) == "fixtures" {
		return filepath.Join(repoRoot(), "golden"), filepath.Base(rel), filepath.ToSlash(rel)
	}
	return dir, "strataspec/golden", filepath.Base(dir)
}

// checkResult is one subtest of a checkout's spec: its name, why it fails
// (nothing: it passes), why it was skipped, and what it reports.
type checkResult struct {
	name  string
	fails []string
	skip  string
	logs  []string
}

// checkoutSpec runs the spec over the checkout at root and returns its
// subtests in order: claims/PLACE/QUOTE per claims row, gate/RULE per plan
// rule, rules/RULE per other rule. A checkout that cannot be read (a
// missing PLAN.claims, a malformed results file) is an error naming the
// file and place.
func checkoutSpec(root string) ([]checkResult, error) {
	ctx, err := audit.Load(root)
	if err != nil {
		return nil, err
	}
	pc, err := planCheck(ctx)
	if err != nil {
		return nil, err
	}
	sel, err := audit.Select("")
	if err != nil {
		return nil, err
	}
	rep, err := audit.RunSelection(ctx, sel)
	if err != nil {
		return nil, err
	}
	byRule := map[string][]finding.Finding{}
	for _, f := range rep.Findings {
		byRule[f.Rule] = append(byRule[f.Rule], f)
	}
	notApplied := map[string]string{}
	for _, n := range rep.Summary.NotApplied {
		notApplied[n.Rule] = n.Reason
	}
	var gate, others []checkResult
	for _, name := range sel.Names() {
		c := ruleResult(name, byRule[name], notApplied[name])
		delete(byRule, name)
		if strings.HasPrefix(name, "plan.") {
			c.name = "gate/" + name
			gate = append(gate, c)
		} else {
			c.name = "rules/" + name
			others = append(others, c)
		}
	}
	for name := range byRule {
		return nil, fmt.Errorf("findings of rule %q, which the audit did not select", name)
	}
	return append(append(claimsRows(pc), gate...), others...), nil
}

// claimsRows returns one result per claims row: every occurrence of its
// quote must match its source.
func claimsRows(pc *gatecheck.PlanCheck) []checkResult {
	byRow := map[*claims.Row][]gatecheck.Binding{}
	for _, b := range pc.Result.Bindings {
		byRow[b.Row] = append(byRow[b.Row], b)
	}
	out := make([]checkResult, 0, len(pc.Table.Rows))
	for _, row := range pc.Table.Rows {
		c := checkResult{name: "claims/" + row.Place + "/" + row.Quote}
		bs := byRow[row]
		if len(bs) == 0 {
			c.fails = append(c.fails, fmt.Sprintf("%s:%d: row %q was not checked against the plan", claims.File, row.Line, row.Quote))
		}
		for _, b := range bs {
			if b.Status != gatecheck.Match {
				c.fails = append(c.fails, fmt.Sprintf("%s:%d %q (%s:%d) = %s, raw %s from %s: %s", "PLAN.md", b.Token.Line, row.Quote, claims.File, row.Line, b.Status, b.Raw, b.Source, b.Msg))
			} else {
				c.logs = append(c.logs, fmt.Sprintf("%s:%d %q = %s from %s", "PLAN.md", b.Token.Line, row.Quote, b.Raw, b.Source))
			}
		}
		out = append(out, c)
	}
	return out
}

// ruleResult turns a rule's findings into a result: a fail finding fails
// it, a warning is reported, and a rule that did not apply to the checkout
// (its reason, or no finding at all) is skipped.
func ruleResult(name string, fs []finding.Finding, notApplied string) checkResult {
	c := checkResult{name: name}
	switch {
	case notApplied != "":
		c.skip = "did not apply: " + notApplied
	case len(fs) == 0:
		c.skip = "did not apply: the checkout has nothing this rule checks"
	}
	for _, f := range fs {
		switch f.Severity {
		case finding.Fail:
			c.fails = append(c.fails, quoted(f))
		case finding.Warn:
			c.logs = append(c.logs, quoted(f))
		}
	}
	return c
}

// quoted prints a finding with its quote and raw value.
func quoted(f finding.Finding) string {
	s := f.String()
	if f.Quote != "" {
		s += fmt.Sprintf(" (quote %q, raw %q)", f.Quote, f.Raw)
	}
	return s
}

// TestCheckout is the checkout's spec (see above).
func TestCheckout(t *testing.T) {
	root, ok := checkoutDir(t)
	if !ok {
		root = snaptest.Fixture(t, "m5")
	}
	t.Logf("checkout %s", root)
	results, err := checkoutSpec(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range results {
		t.Run(c.name, func(t *testing.T) {
			for _, l := range c.logs {
				t.Log(l)
			}
			if c.skip != "" {
				t.Skip(c.skip)
			}
			for _, f := range c.fails {
				t.Error(f)
			}
		})
	}
	t.Run("golden", func(t *testing.T) {
		// Read and written through snapfs: a link out of the checkout or a
		// FIFO at a report's name is a failure naming it, never its
		// content or a hang, and -update never writes through a link.
		base, dir, shown := checkoutGolden(root)
		fsys, err := snapfs.Open(base)
		if err != nil {
			t.Fatalf("snapfs.Open(%s) = %v", base, err)
		}
		defer fsys.Close()
		present, err := fsys.Present(dir)
		if err != nil {
			t.Fatalf("golden reports of %s: %v", base, err)
		}
		if !present && !golden.Update() {
			t.Skipf("no golden reports for this checkout in %s: create them with %s=%s go test ./spec/ -run Checkout/golden -update", filepath.Join(base, dir), envCheckout, os.Getenv(envCheckout))
		}
		rep, err := audit.Audit(root, "")
		if err != nil {
			t.Fatalf("audit.Audit(%s) = %v", root, err)
		}
		rep.Root = shown
		for _, format := range []struct{ name, file string }{{"text", "report.txt"}, {"json", "report.json"}} {
			t.Run(format.file, func(t *testing.T) {
				var buf bytes.Buffer
				if err := rep.Write(&buf, format.name); err != nil {
					t.Fatalf("Write(%q) = %v", format.name, err)
				}
				golden.AssertFS(t, fsys, dir+"/"+format.file, buf.Bytes())
			})
		}
	})
}

// TestCheckoutSpecResults runs the checkout's spec over both snapshots and
// checks which of its subtests would fail: none on fixtures/m5, where one
// passing subtest stands per claims row; on fixtures/m5-v3, the rows of the
// audit's §1c by name (7 cells, 9 numbers: F09–F15), the gate's rules that
// report them, and the rules whose findings the audit made.
func TestCheckoutSpecResults(t *testing.T) {
	for _, tt := range []struct {
		snap       string
		claimsRows int
		wantFail   []string
	}{
		{"m5", 93, nil},
		{"m5-v3", 94, []string{
			"claims/§7.1 #5/6.39–6.44 GB/s",  // F13: the range drops the cold first run
			"claims/§7.1 #5/6.82–7.07 GB/s",  // F14
			"claims/§7.1 #5/0.5 s",           // F15
			"claims/§7.1 #5/3,194.23 ms",     // F11
			"claims/§7.1 #5/5,793.62 ms",     // F12
			"claims/§7.1 #5/69.43 + 7.89 %",  // F09: two numbers
			"claims/§7.1 #5/71.09 + 11.35 %", // F10: two numbers
			"gate/plan.range", "gate/plan.unsourced",
			"rules/cache.residency", "rules/cache.target", "rules/code", "rules/compare.rate", "rules/compare.significance", "rules/compare.unlike",
			"rules/input.archive", "rules/kld", "rules/selftest",
		}},
	} {
		results, err := checkoutSpec(snaptest.Fixture(t, tt.snap))
		if err != nil {
			t.Fatalf("checkoutSpec(fixtures/%s) = %v", tt.snap, err)
		}
		rows := 0
		var failed []string
		for _, c := range results {
			if strings.HasPrefix(c.name, "claims/") {
				rows++
			}
			if len(c.fails) > 0 {
				failed = append(failed, c.name)
			}
		}
		if rows != tt.claimsRows {
			t.Errorf("checkoutSpec(fixtures/%s): %d claims-row subtests; want %d, one per row", tt.snap, rows, tt.claimsRows)
		}
		if strings.Join(failed, "\n") != strings.Join(tt.wantFail, "\n") {
			t.Errorf("checkoutSpec(fixtures/%s) fails\n%s\nwant\n%s", tt.snap, strings.Join(failed, "\n"), strings.Join(tt.wantFail, "\n"))
		}
	}
}

func TestResolveCheckout(t *testing.T) {
	root := repoRoot()
	for _, tt := range []struct{ in, want string }{
		{"fixtures/m5", filepath.Join(root, "fixtures", "m5")},
		{"./fixtures/m5-v3/", filepath.Join(root, "fixtures", "m5-v3")},
		{"/Users/m5/strata", "/Users/m5/strata"},
	} {
		if got := resolveCheckout(tt.in); got != tt.want {
			t.Errorf("resolveCheckout(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ dir, base, golden, shown string }{
		{filepath.Join(root, "fixtures", "m5"), filepath.Join(root, "golden"), "m5", "fixtures/m5"},
		{"/Users/m5/strata", "/Users/m5/strata", "strataspec/golden", "strata"},
	} {
		if b, g, s := checkoutGolden(tt.dir); b != tt.base || g != tt.golden || s != tt.shown {
			t.Errorf("checkoutGolden(%q) = %q, %q, %q; want %q, %q, %q", tt.dir, b, g, s, tt.base, tt.golden, tt.shown)
		}
	}
}
