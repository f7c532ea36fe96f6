package facts

import (
	"github.com/strataspec/strataspec/engine/analysis"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

// PlanCheck is the plan gate's shared input: the plan, the claims table and
// the check of one against the other over every run's and record's metrics.
type PlanCheck struct {
	Doc    *plan.Doc
	Table  *claims.Table
	Env    *eval.Env
	Result *gate.Result
	// NoClaims says the snapshot has a plan but no claims table: Table is
	// empty, binds nothing, and Result counts every measurement-like
	// number of the plan as ungated. The rules that need claims rows do
	// not apply; the count of ungated numbers does.
	NoClaims bool
}

// Gate is the plan checked against its claims table: computed once, read by
// the plan rules and by every rule that needs the claims rows or the plan's
// caveats (comparisons, KLD, TF). Without a plan it is absent (ErrAbsent);
// a plan without a claims table is checked against an empty table
// (PlanCheck.NoClaims).
var Gate = analysis.NewInput("plan check", "the plan checked against its claims table", func(p *analysis.Pass) (*PlanCheck, error) {
	doc := Plan.Of(p)
	t, ok := Claims.Lookup(p)
	noClaims := !ok
	if noClaims {
		// a plan without its claims table: nothing is gated, and the
		// plan's numbers are counted as ungated rather than passed over
		t = claims.Parse(p.Spec.Claims, nil, nil)
	}
	runs := RunMetrics.Of(p)
	recs := RecordMetrics.Of(p)
	// the tails, for code spans in the plan that quote a tail line
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
	env := eval.NewEnv(t, names, metrics, func(run string) string {
		if r := p.Snap.Run(run); r != nil {
			t, _ := r.Text() // read when a code span asks; an unreadable one quotes nothing
			return t
		}
		return tails[run]
	})
	return &PlanCheck{Doc: doc, Table: t, Env: env, Result: gate.Check(doc, t, env), NoClaims: noClaims}, nil
}, Plan.Analyzer, RunMetrics.Analyzer, RecordMetrics.Analyzer).Using(Claims.Analyzer) // no claims table: NoClaims
