package gate

import (
	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

// PlanCheck is the gate's result, which the plan rules require: the plan,
// the claims table, the environment its sources were evaluated in and the
// check of one against the other over every run's and record's metrics.
type PlanCheck struct {
	Doc    *plan.Doc
	Table  *claims.Table
	Env    *eval.Env
	Result *Result
	// NoClaims says the snapshot has a plan but no claims table: Table is
	// empty, binds nothing, and Result counts every measurement-like
	// number of the plan as ungated. The rules that need claims rows do
	// not apply; the count of ungated numbers does.
	NoClaims bool
}

// Analyzer is the gate, an analyzer whose typed result (*PlanCheck) the
// plan rules require and every rule that needs the claims rows or the
// plan's caveats (comparisons, KLD, TF) uses. It reports nothing itself.
// Without a plan it does not apply ("no PLAN.md"); a plan without a
// claims table is checked against an empty table (PlanCheck.NoClaims).
var Analyzer = analysis.NewInput("plan check", "the plan checked against its claims table", run,
	facts.RunMetrics.Analyzer, facts.RecordMetrics.Analyzer).
	Using(facts.Plan.Analyzer, facts.Claims.Analyzer) // no plan: not applied; no claims table: NoClaims

// run checks the plan of a pass against its claims table.
func run(p *analysis.Pass) (*PlanCheck, error) {
	doc, ok := facts.Plan.Lookup(p)
	if !ok {
		return nil, analysis.NotApplicable("no %s", p.Spec.Plan)
	}
	t, ok := facts.Claims.Lookup(p)
	noClaims := !ok
	if noClaims {
		// a plan without its claims table: nothing is gated, and the
		// plan's numbers are counted as ungated rather than passed over
		t = claims.Parse(p.Spec.Claims, nil, nil)
	}
	env := newEnv(p, t)
	return &PlanCheck{Doc: doc, Table: t, Env: env, Result: Check(doc, t, env), NoClaims: noClaims}, nil
}

// newEnv returns the environment of t over the pass's runs and records, in
// archive order, with their tails for the code spans that quote one.
func newEnv(p *analysis.Pass, t *claims.Table) *eval.Env {
	runs := facts.RunMetrics.Of(p)
	recs := facts.RecordMetrics.Of(p)
	names := make([]string, 0, len(p.Snap.Runs)+len(p.Snap.Parity))
	metrics := make(map[string]*tail.Metrics, len(runs)+len(recs))
	tails := make(map[string]string, len(p.Snap.Parity))
	for _, r := range p.Snap.Runs {
		names = append(names, r.Name)
		metrics[r.Name] = runs[r.Name]
	}
	for _, rec := range p.Snap.Parity {
		names = append(names, rec.Key())
		metrics[rec.Key()] = recs[rec.Key()]
		tails[rec.Key()] = rec.Text
	}
	return eval.NewEnv(t, names, metrics, func(run string) string {
		if r := p.Snap.Run(run); r != nil {
			t, _ := r.Text() // read when a code span asks; an unreadable one quotes nothing
			return t
		}
		return tails[run]
	})
}
