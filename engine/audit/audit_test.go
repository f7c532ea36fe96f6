package audit

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
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
		r.Parser, _ = checkout.Default().ParserFor(tt.argv0)
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

// TestRunErrorNamesRule: a rule's error leads with the file and place and
// names the rule once at the end (found in review: a PLAN.claims error
// shown under whichever rule read the file first).
func TestRunErrorNamesRule(t *testing.T) {
	ctx := &Context{Snap: &archive.Snapshot{Root: t.TempDir()}}
	x := &analysis.Analyzer{Name: "x", Doc: "x", Run: func(*analysis.Pass) (any, error) {
		return nil, errors.New("f.json:3: $.a: want a number")
	}}
	_, err := RunSelection(ctx, Selection{Analyzers: []*analysis.Analyzer{x}})
	if err == nil || err.Error() != "f.json:3: $.a: want a number (rule x)" {
		t.Errorf("RunSelection(rule x failing) = %v; want the file and place first, the rule last", err)
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

// TestClaimsSyntaxErrorNamesFile: a syntax error in PLAN.claims stops the
// audit naming PLAN.claims and its line, not the rule that read the table
// first (plan.label, kld…).
func TestClaimsSyntaxErrorNamesFile(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	p := filepath.Join(root, "PLAN.claims")
	text := snaptest.Read(t, p)
	line := strings.Count(text, "\n") + 1
	snaptest.Write(t, p, text+"§7.1 #5 | 1 ms\n")
	want := fmt.Sprintf("PLAN.claims:%d: row:", line)
	for _, sel := range []string{"", "plan", "kld"} {
		_, err := Audit(root, sel)
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "(rule ") {
			t.Errorf("Audit(-rules %q) with a bad row on line %d: %v; want an error starting %q naming no rule", sel, line, err, want)
		}
	}
}

// TestLoadChecksDeclaredUnits: a unit the spec file declares that the
// unit table does not know, or that does not convert into the vocabulary's
// unit, stops the load naming strataspec.json, its line and the unit's
// JSON path (the spec file's reader knows no unit; the loader checks them).
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
		_, err := Load(root)
		want := "strataspec.json:2: formats.f[0].metrics.v.unit: "
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load with unit %q = %v; want an error containing %q and %q", tt.unit, err, want, tt.want)
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
	claimsLine := strings.Count(snaptest.Read(t, filepath.Join(snaptest.Fixture(t, "m5"), "PLAN.claims")), "\n") + 1 // the row appended
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
		{"claims row", func(t *testing.T, root string) {
			p := filepath.Join(root, "PLAN.claims")
			snaptest.Write(t, p, snaptest.Read(t, p)+"§7.1 #5 | 1 ms\n")
		}, snapfs.Limits{}, finding.Pos{File: "PLAN.claims", Line: claimsLine}, fmt.Sprintf("PLAN.claims:%d: row:", claimsLine)},
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
