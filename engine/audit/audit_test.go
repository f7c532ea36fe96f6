package audit

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/engine/tail"
)

const perplexityTail = `llama_perf_context_print:        load time =    1234.56 ms
====== KL divergence statistics ======
Mean    KLD:   0.012340 ±   0.000560
Maximum KLD:   2.345600
[runner] vm_stat: swapouts +0 pages (0.0 MiB swapout)
[runner] min_avail 3.12 GiB
[runner] iostat: disk0 read 1234.56 MB
`

func TestParseRunDispatch(t *testing.T) {
	for _, tt := range []struct {
		argv0      string
		wantMetric string
		absent     string
	}{
		{"/opt/llama/bin/llama-perplexity", "kld_mean", ""},
		{"llama-cli", "load_ms", "kld_mean"}, // KL statistics belong to llama-perplexity only
	} {
		r := &archive.Run{Name: "x", Cmd: []string{tt.argv0}, Source: "r.json: runs[0].output_tail", Tail: perplexityTail}
		r.Parser, _ = format.Builtin().Program(tt.argv0)
		if !IsLlamaCpp(r) {
			t.Fatalf("IsLlamaCpp(%q) = false; want true", tt.argv0)
		}
		ms := ParseRun(r)
		if _, ok := ms.Get(tt.wantMetric); !ok {
			t.Errorf("ParseRun(%s) lacks %s; got %v", tt.argv0, tt.wantMetric, ms.List)
		}
		if _, ok := ms.Get("disk0_mb"); !ok {
			t.Errorf("ParseRun(%s) lacks the runner's disk0_mb", tt.argv0)
		}
		if tt.absent != "" {
			if _, ok := ms.Get(tt.absent); ok {
				t.Errorf("ParseRun(%s) has %s; want it absent", tt.argv0, tt.absent)
			}
		}
	}
	strata := &archive.Run{Name: "s", Cmd: []string{"build/strata_window_cli"}, Source: "r.json", Tail: perplexityTail}
	if IsLlamaCpp(strata) {
		t.Errorf("IsLlamaCpp(strata_window_cli) = true; want false")
	}
	if ms := ParseRun(strata); len(ms.Errors) == 0 {
		t.Errorf("ParseRun(strata run with a llama tail) reported no errors; want missing strata lines")
	}
}

func TestLoadKeysRecords(t *testing.T) {
	ctx, err := Load("../../fixtures/m5-v3")
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.Snap.Parity) != 6 {
		t.Fatalf("Load: %d route_parity records; want 6", len(ctx.Snap.Parity))
	}
	for _, rec := range append(ctx.Snap.Parity, ctx.Snap.SelfTest) {
		ms := ctx.Metrics[rec.File]
		if ms == nil || len(ms.List) == 0 {
			t.Errorf("Load: no metrics for record %s", rec.File)
		}
	}
	for _, r := range ctx.Snap.Runs {
		if ms := ctx.Metrics[r.Name]; ms == nil || len(ms.Errors) > 0 {
			t.Errorf("Load: run %s parsed with errors %v", r.Name, ms.Errors)
		}
	}
}

func TestAuditErrors(t *testing.T) {
	if _, err := Audit("../../fixtures/m5", "nosuch"); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("Audit(-rules nosuch) = %v; want an unknown-rule error", err)
	}
	if _, err := Audit("../../fixtures/absent", ""); err == nil || !strings.Contains(err.Error(), "absent") {
		t.Errorf("Audit(absent root) = %v; want an error naming the root", err)
	}
}

// TestRunErrorNamesRule: a rule that fails is its own fail finding
// (check BadInput) at the file and place its error leads with, the
// message after the place, with no audit finding id; the other rules run.
func TestRunErrorNamesRule(t *testing.T) {
	ctx := &Context{Snap: &archive.Snapshot{Root: t.TempDir(), Spec: &checkout.Spec{IDs: map[string]string{"x": "F01"}}}}
	x := &analysis.Analyzer{Name: "x", Doc: "x", Run: func(*analysis.Pass) (any, error) {
		return nil, errors.New("f.json:3: $.a: want a number")
	}}
	y := &analysis.Analyzer{Name: "y", Doc: "y", Run: func(p *analysis.Pass) (any, error) {
		p.Report(finding.Finding{Severity: finding.Pass, Message: "ok"})
		return nil, nil
	}}
	rep, err := RunSelection(ctx, Selection{Analyzers: []*analysis.Analyzer{x, y}})
	if err != nil {
		t.Fatalf("RunSelection(rule x failing) = %v; want a report", err)
	}
	want := []finding.Finding{
		{Rule: "x", Severity: finding.Fail, Check: BadInput, File: "f.json", Line: 3, Message: "$.a: want a number"},
		{Rule: "y", Severity: finding.Pass, Message: "ok"},
	}
	if len(rep.Findings) != len(want) {
		t.Fatalf("RunSelection(rule x failing) findings = %+v; want %+v", rep.Findings, want)
	}
	for i, f := range rep.Findings {
		w := want[i]
		if f.Rule != w.Rule || f.Severity != w.Severity || f.Check != w.Check || f.File != w.File || f.Line != w.Line || f.Message != w.Message || f.ID != "" {
			t.Errorf("RunSelection(rule x failing) finding %d = %+v; want %+v", i, f, w)
		}
	}
	if !rep.Failed() {
		t.Errorf("RunSelection(rule x failing).Failed() = false; want true")
	}
}

// TestFailedInputOneRule: an input that fails is one fail finding, of
// its Owner when that rule is selected, else of the first selected rule
// reading it; the rules reading it do not apply, and a rule that does not
// read it runs.
func TestFailedInputOneRule(t *testing.T) {
	in := analysis.NewInput("in", "in", func(*analysis.Pass) (int, error) {
		return 0, &checkout.Error{File: "strataspec.json", Line: 7, Msg: "rules.b: bad"}
	}).OwnedBy("b")
	rule := func(name string, reads bool) *analysis.Analyzer {
		a := &analysis.Analyzer{Name: name, Doc: name, Run: func(p *analysis.Pass) (any, error) {
			p.Report(finding.Finding{Severity: finding.Pass, Message: "ran"})
			return nil, nil
		}}
		if reads {
			a.Requires = []*analysis.Analyzer{in.Analyzer}
		}
		return a
	}
	for _, tt := range []struct {
		names []string // rules selected; all but "free" read the input
		owner string
	}{
		{[]string{"a", "b", "free"}, "b"},
		{[]string{"a", "free"}, "a"},
	} {
		var sel Selection
		for _, n := range tt.names {
			sel.Analyzers = append(sel.Analyzers, rule(n, n != "free"))
		}
		ctx := &Context{Snap: &archive.Snapshot{Root: t.TempDir()}}
		rep, err := RunSelection(ctx, sel)
		if err != nil {
			t.Fatalf("RunSelection(%v) = %v; want a report", tt.names, err)
		}
		var got []string
		for _, f := range rep.Findings {
			got = append(got, fmt.Sprintf("%s %s %s:%d %s", f.Rule, f.Severity, f.File, f.Line, f.Check))
		}
		want := []string{tt.owner + " fail strataspec.json:7 " + BadInput, "free pass :0 "}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("RunSelection(%v) findings = %q; want %q", tt.names, got, want)
		}
		for _, ri := range rep.Rules {
			if ri.Applied != (ri.Name == "free") {
				t.Errorf("RunSelection(%v): rule %s applied = %v (%s); want only free applied", tt.names, ri.Name, ri.Applied, ri.Reason)
			}
		}
	}
}

// TestRunRuleInfo checks what the report learns about each rule: its doc,
// family and fix, and whether it applied, with the reason when it did not.
func TestRunRuleInfo(t *testing.T) {
	ctx := &Context{Snap: &archive.Snapshot{Root: t.TempDir()}}
	some := &analysis.Analyzer{Name: "some", Doc: "checks something", Fix: "do it", Run: func(p *analysis.Pass) (any, error) {
		p.Report(finding.Finding{Severity: finding.Pass, Message: "ok"})
		return nil, nil
	}}
	none := &analysis.Analyzer{Name: "none", Doc: "checks nothing here", Run: func(*analysis.Pass) (any, error) {
		return nil, analysis.NotApplicable("no input for it")
	}}
	rep, err := RunSelection(ctx, Selection{Analyzers: []*analysis.Analyzer{some, none}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rules) != 2 || rep.Rules[1].Doc != "checks something" || !rep.Rules[1].Applied || rep.Rules[1].Fix != "do it" || rep.Rules[0].Applied {
		t.Errorf("RunSelection: rules %+v; want some applied with its doc and fix, none not applied", rep.Rules)
	}
	if na := rep.Summary.NotApplied; len(na) != 1 || na[0].Rule != "none" || na[0].Reason != "no input for it" {
		t.Errorf("RunSelection: not applied %+v; want rule none with its reason", na)
	}
}

// TestClaimsSyntaxErrorNamesFile: a syntax error in PLAN.claims is a
// fail finding naming PLAN.claims and its line, once: of plan.stale, the
// rule that judges the claims rows, or of the first selected rule reading
// the table when plan.stale is not selected; the rules that do not read
// it still run.
func TestClaimsSyntaxErrorNamesFile(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	p := filepath.Join(root, "PLAN.claims")
	text := snaptest.Read(t, p)
	line := strings.Count(text, "\n") + 1
	snaptest.Write(t, p, text+"§7.1 #5 | 1 ms\n")
	for _, tt := range []struct{ sel, owner string }{{"", "plan.stale"}, {"plan", "plan.stale"}, {"kld", "kld"}} {
		rep, err := Audit(root, tt.sel)
		if err != nil {
			t.Fatalf("Audit(-rules %q) with a bad row on line %d = %v; want a report", tt.sel, line, err)
		}
		var bad []finding.Finding
		for _, f := range rep.Findings {
			if f.Check == BadInput {
				bad = append(bad, f)
			}
		}
		if len(bad) != 1 || bad[0].Rule != tt.owner || bad[0].File != "PLAN.claims" || bad[0].Line != line ||
			bad[0].Severity != finding.Fail || !strings.HasPrefix(bad[0].Message, "row:") {
			t.Errorf("Audit(-rules %q) with a bad row on line %d: bad-input findings %+v; want one fail of %s at PLAN.claims:%d", tt.sel, line, bad, tt.owner, line)
		}
	}
	rep, err := Audit(root, "")
	if err != nil {
		t.Fatal(err)
	}
	// the rules that did not apply point at the finding, not repeat it
	wantWhy := fmt.Sprintf("failed prerequisite claims: reported as plan.stale's fail at PLAN.claims:%d", line)
	why := "(applied)"
	for _, na := range rep.Summary.NotApplied {
		if na.Rule == "plan.label" {
			why = na.Reason
		}
	}
	if why != wantWhy {
		t.Errorf("Audit with a bad claims row: plan.label did not apply for %q; want %q", why, wantWhy)
	}
	for _, rule := range []string{"parity", "arena", "tf", "runs.parse"} {
		if !slices.Contains(rep.Summary.Applied, rule) {
			t.Errorf("Audit with a bad claims row: rule %s did not apply; want it applied (it does not read the table)", rule)
		}
	}
}

// TestLoadChecksDeclaredUnits: a unit the spec file declares that the
// unit table does not know, or that does not convert into the vocabulary's
// unit, is a fail finding of runs.parse (of the first selected rule reading
// run metrics when runs.parse is not selected) naming strataspec.json, its
// line and the unit's JSON path; the audit runs (the spec file's reader
// knows no unit; the loader checks them).
func TestLoadChecksDeclaredUnits(t *testing.T) {
	for _, tt := range []struct{ unit, want string }{
		{"msec", `unknown unit "msec"`},
		{"MB", "the vocabulary reads decode_ms in ms"},
	} {
		root := snaptest.CopyFixture(t, "m5")
		p := filepath.Join(root, "strataspec.json")
		text := snaptest.Read(t, p)
		decl := `{"formats": {"f": [{"pattern": "^d (?P<v>[0-9.]+)$",` + "\n" + `"metrics": {"v": {"name": "decode_ms", "unit": "` + tt.unit + `"}}}]},`
		snaptest.Write(t, p, strings.Replace(text, "{", decl, 1))
		for _, sel := range []struct{ rules, owner string }{{"", "runs.parse"}, {"arena", "arena"}} {
			rep, err := Audit(root, sel.rules)
			if err != nil {
				t.Fatalf("Audit(-rules %q) with unit %q = %v; want a report", sel.rules, tt.unit, err)
			}
			var bad []finding.Finding
			for _, f := range rep.Findings {
				if f.Check == BadInput {
					bad = append(bad, f)
				}
			}
			if len(bad) != 1 || bad[0].Rule != sel.owner || bad[0].File != "strataspec.json" || bad[0].Line != 2 || bad[0].Severity != finding.Fail ||
				!strings.HasPrefix(bad[0].Message, "formats.f[0].metrics.v.unit: ") || !strings.Contains(bad[0].Message, tt.want) {
				t.Errorf("Audit(-rules %q) with unit %q: bad-input findings %+v; want one fail of %s at strataspec.json:2 containing %q", sel.rules, tt.unit, bad, sel.owner, tt.want)
			}
		}
	}
}

// The errors of every reader name their place as a finding.Pos.
var (
	_ finding.Positioned = (*checkout.Error)(nil)
	_ finding.Positioned = (*archive.Error)(nil) // jsontree's
	_ finding.Positioned = (*claims.Error)(nil)
	_ finding.Positioned = (*plan.Error)(nil)
	_ finding.Positioned = (*tail.Error)(nil)
	_ finding.Positioned = (*snapfs.Error)(nil)
	_ finding.Positioned = (*snapfs.LimitError)(nil)
	_ finding.Positioned = (*gguf.FormatError)(nil)
)

// TestInputErrorsHavePos: an input the audit cannot read stops it with an
// error whose Pos names the file and the place (line, column, JSON path)
// the message names, whichever reader found it.
func TestInputErrorsHavePos(t *testing.T) {
	results := "results/phase0_phase2_m5_validation.json"
	tests := []struct {
		name  string
		edit  func(t *testing.T, root string)
		lim   snapfs.Limits
		want  finding.Pos
		wantS string // the error's text starts with it
	}{
		{"spec file key", func(t *testing.T, root string) {
			p := filepath.Join(root, "strataspec.json")
			snaptest.Write(t, p, strings.Replace(snaptest.Read(t, p), `"machine": "machine",`, `"machine": "machine", "planz": 1,`, 1))
		}, snapfs.Limits{}, finding.Pos{File: "strataspec.json", Line: 2}, "strataspec.json:2: "},
		{"results type", func(t *testing.T, root string) {
			p := filepath.Join(root, results)
			snaptest.Write(t, p, strings.Replace(snaptest.Read(t, p), `"name": "strata_q2_0_moce0_short_43tok"`, `"name": 43`, 1))
		}, snapfs.Limits{}, finding.Pos{File: results, Line: 6, Path: "runs[0].name"}, results + ":6"},
		{"runs over the limit", nil, snapfs.Limits{Runs: 1}, finding.Pos{File: results}, results + ": more than 1 runs"},
	}
	for _, tt := range tests {
		root := snaptest.CopyFixture(t, "m5")
		if tt.edit != nil {
			tt.edit(t, root)
		}
		_, err := AuditLimits(root, "", tt.lim)
		pos, ok := finding.PosOf(err)
		if !ok {
			t.Errorf("%s: AuditLimits = %v; want an error with a Pos", tt.name, err)
			continue
		}
		if pos.File != tt.want.File || pos.Line != tt.want.Line || pos.Path != tt.want.Path {
			t.Errorf("%s: Pos() = %+v; want %+v", tt.name, pos, tt.want)
		}
		if !strings.HasPrefix(err.Error(), tt.wantS) {
			t.Errorf("%s: AuditLimits = %q; want it to start %q", tt.name, err, tt.wantS)
		}
	}
}
