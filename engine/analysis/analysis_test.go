package analysis

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/finding"
)

func testDriver(t *testing.T) *Driver {
	t.Helper()
	spec, err := checkout.Parse(checkout.File, []byte(`{"ids": {"a": "F01", "a/special": "F02"}}`))
	if err != nil {
		t.Fatal(err)
	}
	return NewDriver(&archive.Snapshot{Spec: spec})
}

func analyzer(name string, run func(*Pass) (any, error), req ...*Analyzer) *Analyzer {
	return &Analyzer{Name: name, Doc: name, Fix: "fix " + name, Run: run, Requires: req}
}

func TestRunOrderAndResults(t *testing.T) {
	var order []string
	base := NewInput("base", "a number", func(p *Pass) (int, error) { order = append(order, "base"); return 42, nil })
	top := analyzer("top", func(p *Pass) (any, error) {
		order = append(order, "top")
		if got := base.Of(p); got != 42 {
			t.Errorf("base.Of(p) = %v; want 42", got)
		}
		return nil, nil
	}, base.Analyzer)
	d := testDriver(t)
	res, err := d.Run([]*Analyzer{top, base.Analyzer})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"base", "top"}; !slices.Equal(order, want) {
		t.Errorf("run order = %v; want %v (requirements first, each once)", order, want)
	}
	if len(res) != 2 || res[0].Analyzer != top || res[1].Analyzer != base.Analyzer {
		t.Errorf("Run returned %v; want the outcomes of top and base, in the order given", res)
	}
	// a second run reads the kept result
	if _, err := d.Run([]*Analyzer{top}); err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 {
		t.Errorf("after a second Run, order = %v; want each analyzer run once per driver", order)
	}
	if got, err := Compute(d, base); err != nil || got != 42 {
		t.Errorf("Compute(base) = %v, %v; want 42, nil", got, err)
	}
}

func TestReportFillsRuleIDAndFix(t *testing.T) {
	a := analyzer("a", func(p *Pass) (any, error) {
		p.Report(finding.Finding{Severity: finding.Fail, Message: "m"})
		p.Report(finding.Finding{Severity: finding.Fail, Check: "special", Message: "m"})
		p.Report(finding.Finding{Severity: finding.Pass, Message: "ok"})
		p.Report(finding.Finding{Severity: finding.Fail, ID: "F09", Fix: "own fix", Message: "m"})
		return nil, nil
	})
	res, err := testDriver(t).Run([]*Analyzer{a})
	if err != nil {
		t.Fatal(err)
	}
	fs := res[0].Findings
	if len(fs) != 4 {
		t.Fatalf("got %d findings; want 4", len(fs))
	}
	for i, want := range []struct{ rule, id, fix string }{
		{"a", "F01", "fix a"}, {"a", "F02", "fix a"}, {"a", "F01", ""}, {"a", "F09", "own fix"},
	} {
		if fs[i].Rule != want.rule || fs[i].ID != want.id || fs[i].Fix != want.fix {
			t.Errorf("finding %d = rule %q id %q fix %q; want %q %q %q", i, fs[i].Rule, fs[i].ID, fs[i].Fix, want.rule, want.id, want.fix)
		}
	}
}

// TestPrerequisites: an input that does not apply makes the analyzers
// requiring it not apply for its reason, and leaves those using it
// running without it; one that fails makes both "failed prerequisite",
// and the rest of the list runs.
func TestPrerequisites(t *testing.T) {
	absent := NewInput("absent", "", func(*Pass) (int, error) { return 0, NotApplicable("no route_parity logs") })
	broken := NewInput("broken", "", func(*Pass) (int, error) { return 0, errors.New("x.json:3: bad") })
	ran := map[string]bool{}
	mark := func(name string) func(*Pass) (any, error) {
		return func(p *Pass) (any, error) {
			ran[name] = true
			if _, ok := absent.Lookup(p); ok {
				t.Errorf("%s: absent.Lookup found a result of an input that did not apply", name)
			}
			return nil, nil
		}
	}
	needs := analyzer("needs", mark("needs"), absent.Analyzer)
	uses := analyzer("uses", mark("uses"))
	uses.Uses = []*Analyzer{absent.Analyzer}
	needsBroken := analyzer("needs-broken", mark("needs-broken"), broken.Analyzer)
	usesBroken := analyzer("uses-broken", mark("uses-broken"))
	usesBroken.Uses = []*Analyzer{broken.Analyzer}
	other := analyzer("other", mark("other"))
	d := testDriver(t)
	res, err := d.Run([]*Analyzer{needs, uses, needsBroken, usesBroken, other})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, notApplied string
		ran              bool
	}{
		{"needs", "no route_parity logs", false},
		{"uses", "", true},
		{"needs-broken", "failed prerequisite broken: x.json:3: bad", false},
		{"uses-broken", "failed prerequisite broken: x.json:3: bad", false},
		{"other", "", true},
	}
	for i, tt := range tests {
		if r := res[i]; r.Analyzer.Name != tt.name || r.NotApplied != tt.notApplied || r.Err != nil || ran[tt.name] != tt.ran {
			t.Errorf("outcome %d = %s not applied %q, err %v, ran %v; want %s %q, nil, %v",
				i, r.Analyzer.Name, r.NotApplied, r.Err, ran[r.Analyzer.Name], tt.name, tt.notApplied, tt.ran)
		}
	}
	failed := d.Failed()
	if len(failed) != 1 || failed[0].Analyzer != broken.Analyzer || failed[0].Err == nil {
		t.Errorf("Failed() = %v; want the broken input alone", failed)
	}
	if _, err := Compute(d, absent); !errors.Is(err, ErrNotApplicable) {
		t.Errorf("Compute(absent) = %v; want an error wrapping ErrNotApplicable", err)
	}
}

func TestUndeclaredInputPanics(t *testing.T) {
	in := NewInput("in", "", func(*Pass) (int, error) { return 1, nil })
	a := analyzer("sneaky", func(p *Pass) (any, error) { return in.Of(p), nil })
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "without requiring it") {
			t.Errorf("reading an undeclared input: recovered %v; want a panic saying so", r)
		}
	}()
	testDriver(t).Run([]*Analyzer{a})
}

func TestPreset(t *testing.T) {
	in := NewInput("in", "", func(*Pass) (int, error) { return 1, nil })
	d := testDriver(t)
	d.Preset(in.Analyzer, 7)
	if got, err := Compute(d, in); err != nil || got != 7 {
		t.Errorf("Compute after Preset(7) = %v, %v; want 7, nil", got, err)
	}
}

func TestRunRefusesMalformed(t *testing.T) {
	noop := func(*Pass) (any, error) { return nil, nil }
	a1, a2 := analyzer("dup", noop), analyzer("dup", noop)
	cyc1 := analyzer("c1", noop)
	cyc2 := analyzer("c2", noop, cyc1)
	cyc1.Requires = []*Analyzer{cyc2}
	tests := []struct {
		name string
		as   []*Analyzer
		want string
	}{
		{"nil in the list", []*Analyzer{nil}, "no name"},
		{"nil requirement", []*Analyzer{analyzer("x", noop, nil)}, "required by x"},
		{"duplicate names", []*Analyzer{a1, a2}, "two analyzers named dup"},
		{"cycle", []*Analyzer{cyc1}, "cycle"},
		{"finding without severity", []*Analyzer{analyzer("s", func(p *Pass) (any, error) {
			p.Report(finding.Finding{Message: "forgot"})
			return nil, nil
		})}, "without a severity"},
	}
	for _, tt := range tests {
		_, err := testDriver(t).Run(tt.as)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%s) = %v; want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestRuleErrorIsItsResult(t *testing.T) {
	u := analyzer("u", func(*Pass) (any, error) { return nil, errors.New("x.json:3: bad") })
	d := testDriver(t)
	res, err := d.Run([]*Analyzer{u})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err == nil || res[0].Err.Error() != "x.json:3: bad" {
		t.Errorf("Run(u).Err = %v; want x.json:3: bad", res[0].Err)
	}
}

// TestUnconfigured: a rule, or the required input of a rule, that did not
// apply for want of spec settings (NoSettings, ErrNoSettings) is
// Unconfigured, with NotApplicable's reason text; any other reason is not.
func TestUnconfigured(t *testing.T) {
	unset := NewInput("unset", "", func(*Pass) (int, error) { return 0, NoSettings("no x under rules in %s", checkout.File) })
	absent := NewInput("absent", "", func(*Pass) (int, error) { return 0, NotApplicable("no logs") })
	own := analyzer("own", func(*Pass) (any, error) { return nil, NoSettings("no y in %s", checkout.File) })
	needsUnset := analyzer("needs-unset", func(*Pass) (any, error) { return nil, nil }, unset.Analyzer)
	needsAbsent := analyzer("needs-absent", func(*Pass) (any, error) { return nil, nil }, absent.Analyzer)
	plain := analyzer("plain", func(*Pass) (any, error) { return nil, NotApplicable("no z in %s", checkout.File) })
	res, err := testDriver(t).Run([]*Analyzer{own, needsUnset, needsAbsent, plain})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, notApplied string
		unconfigured     bool
	}{
		{"own", "no y in " + checkout.File, true},
		{"needs-unset", "no x under rules in " + checkout.File, true},
		{"needs-absent", "no logs", false},
		{"plain", "no z in " + checkout.File, false}, // a reason naming the file is not enough
	}
	for i, tt := range tests {
		if r := res[i]; r.Analyzer.Name != tt.name || r.NotApplied != tt.notApplied || r.Unconfigured != tt.unconfigured {
			t.Errorf("outcome %d = %s not applied %q, unconfigured %v; want %s %q, %v",
				i, r.Analyzer.Name, r.NotApplied, r.Unconfigured, tt.name, tt.notApplied, tt.unconfigured)
		}
	}
	if err := NoSettings("no w"); !errors.Is(err, ErrNotApplicable) || !errors.Is(err, ErrNoSettings) {
		t.Errorf("NoSettings(%q) = %v; want an error matching ErrNotApplicable and ErrNoSettings", "no w", err)
	}
}
