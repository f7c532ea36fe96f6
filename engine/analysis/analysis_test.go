package analysis

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
)

func testSet(t *testing.T) *facts.Set {
	t.Helper()
	spec, err := checkout.Parse(checkout.File, []byte(`{"ids": {"a": "F01", "a/special": "F02"}}`))
	require.NoError(t, err)
	return facts.New(&archive.Snapshot{Spec: spec})
}

func analyzer(name string, run func(*Pass) (any, error), req ...*Analyzer) *Analyzer {
	return &Analyzer{Name: name, Doc: name, Family: FamilyRuns, Fix: "fix " + name, Run: run, Requires: req,
		Facts: []facts.Kind{facts.Spec}}
}

func TestRunOrderAndResults(t *testing.T) {
	var order []string
	base := analyzer("base", func(p *Pass) (any, error) { order = append(order, "base"); return 42, nil })
	top := analyzer("top", func(p *Pass) (any, error) {
		order = append(order, "top")
		if got := p.ResultOf[p.Analyzer.Requires[0]]; got != 42 {
			t.Errorf("ResultOf[base] = %v; want 42", got)
		}
		return nil, nil
	}, base)
	res, err := Run(testSet(t), []*Analyzer{top, base})
	require.NoError(t, err)
	assert.Equal(t, []string{"base", "top"}, order, "requirements run first, each once")
	assert.Len(t, res, 2)
}

func TestReportFillsRuleIDAndFix(t *testing.T) {
	a := analyzer("a", func(p *Pass) (any, error) {
		p.Report(finding.Finding{Severity: finding.Fail, Message: "m"})
		p.Report(finding.Finding{Severity: finding.Fail, Check: "special", Message: "m"})
		p.Report(finding.Finding{Severity: finding.Pass, Message: "ok"})
		p.Report(finding.Finding{Severity: finding.Fail, ID: "F09", Fix: "own fix", Message: "m"})
		return nil, nil
	})
	res, err := Run(testSet(t), []*Analyzer{a})
	require.NoError(t, err)
	fs := res[0].Findings
	require.Len(t, fs, 4)
	for i, want := range []struct{ rule, id, fix string }{
		{"a", "F01", "fix a"}, {"a", "F02", "fix a"}, {"a", "F01", ""}, {"a", "F09", "own fix"},
	} {
		if fs[i].Rule != want.rule || fs[i].ID != want.id || fs[i].Fix != want.fix {
			t.Errorf("finding %d = rule %q id %q fix %q; want %q %q %q", i, fs[i].Rule, fs[i].ID, fs[i].Fix, want.rule, want.id, want.fix)
		}
	}
}

func TestNotApplicableSkipsDependents(t *testing.T) {
	ran := false
	base := analyzer("base", func(*Pass) (any, error) { return nil, NotApplicable("no route_parity logs") })
	top := analyzer("top", func(*Pass) (any, error) { ran = true; return nil, nil }, base)
	res, err := Run(testSet(t), []*Analyzer{top})
	require.NoError(t, err)
	require.Len(t, res, 2)
	assert.Equal(t, "no route_parity logs", res[0].NotApplied)
	assert.False(t, ran, "an analyzer whose requirement did not apply must not run")
	assert.Contains(t, res[1].NotApplied, "requires base")
}

func TestUndeclaredFactRefused(t *testing.T) {
	a := &Analyzer{Name: "sneaky", Run: func(p *Pass) (any, error) {
		_, err := Fact(p, facts.Plan)
		return nil, err
	}}
	_, err := Run(testSet(t), []*Analyzer{a})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `without declaring it`)
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
		{"unreadable input", []*Analyzer{analyzer("u", func(*Pass) (any, error) { return nil, errors.New("x.json:3: bad") })}, "x.json:3: bad (rule u)"},
	}
	for _, tt := range tests {
		_, err := Run(testSet(t), tt.as)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%s) = %v; want an error containing %q", tt.name, err, tt.want)
		}
	}
}
