// Package analysis defines rules as analyzers, after golang.org/x/tools'
// go/analysis: an Analyzer has a name, a doc, the facts it reads, the
// analyzers it requires and a run function; the driver (Run) calls them in
// dependency order, each with a Pass that hands out only the facts the
// analyzer declared. Families of analyzers live in small packages under
// engine/rules; engine/rules/all lists them.
package analysis

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
)

// Families group analyzers in reports, in the order a reader wants them.
const (
	FamilyPlan       = "plan"       // the plan gate: unsourced, stale, ranges, labels
	FamilyRuns       = "runs"       // comparisons and the runner's own tables
	FamilyInputs     = "inputs"     // inputs and provenance
	FamilyInvariants = "invariants" // parity, arena, scratch, self-test, memory
	FamilyCache      = "cache"      // page cache
	FamilyTFKLD      = "tf-kld"     // teacher forcing and KLD
	FamilyCode       = "code"       // literals in the sources
)

// Analyzer is one rule.
type Analyzer struct {
	// Name is the stable rule id reports carry, e.g. "plan.unsourced".
	Name string
	// Doc is one line for -list and the README.
	Doc string
	// Family groups the rule in reports (Family* constants).
	Family string
	// Fix is the default "what to fix" line for the rule's fail findings.
	Fix string
	// Facts lists every fact the analyzer reads; Fact refuses others.
	Facts []facts.Kind
	// Metrics lists the metrics (engine/metric's vocabulary names) the
	// analyzer reads from runs and records: it applies to every run that
	// has them, whoever produced them, and says which are missing when
	// none has them.
	Metrics []string
	// Requires lists analyzers whose results Run reads (Pass.ResultOf).
	Requires []*Analyzer
	// Run reports findings through the pass and returns a result for the
	// analyzers that require this one. An error wrapping ErrNotApplicable
	// says the rule's input is absent; any other error is unreadable input.
	Run func(*Pass) (any, error)
}

func (a *Analyzer) String() string { return a.Name }

// ErrNotApplicable is wrapped by the error of an analyzer whose input the
// snapshot does not have: the report says it did not apply, and why.
var ErrNotApplicable = errors.New("not applicable")

// NotApplicable returns an error saying the rule does not apply, and why.
func NotApplicable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotApplicable, fmt.Sprintf(format, args...))
}

// Pass is what an analyzer sees while it runs.
type Pass struct {
	Analyzer *Analyzer
	// ResultOf holds the results of the analyzers in Requires.
	ResultOf map[*Analyzer]any

	set      *facts.Set
	findings []finding.Finding
}

// Fact returns the fact k for the pass's analyzer, which must have declared
// k in its Facts: an undeclared fact is a programming error, returned as
// one so that a test catches it.
func Fact[T any](p *Pass, k *facts.Key[T]) (T, error) {
	if !slices.ContainsFunc(p.Analyzer.Facts, func(d facts.Kind) bool { return d == facts.Kind(k) }) {
		var zero T
		return zero, fmt.Errorf("analyzer %s reads fact %q without declaring it in Facts", p.Analyzer.Name, k.Name())
	}
	return facts.Get(p.set, k)
}

// Report records a finding; its Rule defaults to the analyzer's name and its
// ID to the one the checkout's spec gives the rule and check.
func (p *Pass) Report(f finding.Finding) {
	if f.Rule == "" {
		f.Rule = p.Analyzer.Name
	}
	if f.ID == "" && p.set.Snap != nil && p.set.Snap.Spec != nil {
		f.ID = p.set.Snap.Spec.ID(f.Rule, f.Check)
	}
	if f.Fix == "" && f.Severity > finding.Pass {
		f.Fix = p.Analyzer.Fix
	}
	p.findings = append(p.findings, f)
}

// Result is one analyzer's outcome.
type Result struct {
	Analyzer *Analyzer
	Findings []finding.Finding
	// NotApplied says why the rule did not apply, "" when it did.
	NotApplied string
	// Err is unreadable input (or a programming error): the audit stops.
	Err error
}

// Run runs the analyzers and every analyzer they require, each once, in
// dependency order (requirements first, otherwise in the order given). It
// stops at the first error. A finding without a valid severity is an error.
func Run(set *facts.Set, as []*Analyzer) ([]Result, error) {
	order, err := sortDeps(as)
	if err != nil {
		return nil, err
	}
	results := map[*Analyzer]any{}
	skipped := map[*Analyzer]string{} // analyzers that did not apply, and why
	var out []Result
	for _, a := range order {
		p := &Pass{Analyzer: a, ResultOf: map[*Analyzer]any{}, set: set}
		blocked := ""
		for _, r := range a.Requires {
			p.ResultOf[r] = results[r]
			if why, ok := skipped[r]; ok && blocked == "" {
				blocked = fmt.Sprintf("requires %s, which did not apply: %s", r.Name, why)
			}
		}
		if blocked != "" {
			// As go/analysis does: an analyzer whose requirement has no
			// result is not run.
			skipped[a] = blocked
			out = append(out, Result{Analyzer: a, NotApplied: blocked})
			continue
		}
		v, err := a.Run(p)
		res := Result{Analyzer: a, Findings: p.findings}
		switch {
		case errors.Is(err, ErrNotApplicable):
			res.NotApplied = strings.TrimPrefix(err.Error(), ErrNotApplicable.Error()+": ")
		case errors.Is(err, facts.ErrAbsent):
			res.NotApplied = err.Error()
		case err != nil:
			return out, fmt.Errorf("%w (rule %s)", err, a.Name)
		}
		for _, f := range res.Findings {
			if !f.Severity.Valid() {
				return out, fmt.Errorf("internal error: rule %s reported %q without a severity", a.Name, f.String())
			}
		}
		if res.NotApplied != "" {
			skipped[a] = res.NotApplied
		}
		results[a] = v
		out = append(out, res)
	}
	return out, nil
}

func sortDeps(as []*Analyzer) ([]*Analyzer, error) {
	var order []*Analyzer
	state := map[*Analyzer]int{} // 1 visiting, 2 done
	var visit func(a *Analyzer, path []string) error
	visit = func(a *Analyzer, path []string) error {
		switch state[a] {
		case 1:
			return fmt.Errorf("analysis: cycle in Requires: %s", strings.Join(append(path, a.Name), " → "))
		case 2:
			return nil
		}
		state[a] = 1
		for _, r := range a.Requires {
			if err := visit(r, append(path, a.Name)); err != nil {
				return err
			}
		}
		state[a] = 2
		order = append(order, a)
		return nil
	}
	names := map[string]*Analyzer{}
	var check func(a *Analyzer, from string) error
	check = func(a *Analyzer, from string) error {
		if a == nil || a.Name == "" || a.Run == nil {
			return fmt.Errorf("analysis: an analyzer with no name or no Run (%s)", from)
		}
		if b, ok := names[a.Name]; ok && b != a {
			return fmt.Errorf("analysis: two analyzers named %s", a.Name)
		}
		if _, ok := names[a.Name]; ok {
			return nil
		}
		names[a.Name] = a
		for _, r := range a.Requires {
			if err := check(r, "required by "+a.Name); err != nil {
				return err
			}
		}
		return nil
	}
	for _, a := range as {
		if err := check(a, "in the list"); err != nil {
			return nil, err
		}
	}
	for _, a := range as {
		if err := visit(a, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// OptionalSettings decodes the analyzer's settings, "rules": {"<name>":
// {…}} in the checkout's spec file, strictly into v, for a rule that also
// works without them; found is false when the spec has none. The analyzer
// must declare facts.Spec.
func OptionalSettings(p *Pass, v any) (found bool, err error) {
	spec, err := Fact(p, facts.Spec)
	if err != nil {
		return false, err
	}
	return spec.Rule(p.Analyzer.Name, v)
}
