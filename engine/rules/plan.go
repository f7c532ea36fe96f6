package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

// PlanFile is the plan's path inside a checkout.
const PlanFile = "PLAN.md"

// ColdSet is the name of the claims-table set that lists the cold runs:
// the first run on each expert file. A pair quoted from one run per side
// that touches one of them must name a caveat (rule kld, F30).
const ColdSet = "cold"

// PlanCheck is the plan gate's shared input: the plan, the claims table and
// the check of one against the other. Rules plan.unsourced, plan.stale and
// plan.range (and any rule that needs the plan's caveats or the claims rows,
// such as compare.unlike) read it through LoadPlanCheck, so it is computed
// once per audit.
type PlanCheck struct {
	Doc    *plan.Doc
	Table  *claims.Table
	Env    *claims.Env
	Result *claims.Result

	first map[string]string // model file → first strata run reading it
}

// LoadPlanCheck reads PLAN.md and PLAN.claims from the snapshot root and
// checks them against the parsed runs. A missing or malformed file is an
// error naming it (and the line, for the claims table).
func LoadPlanCheck(c *Context) (*PlanCheck, error) {
	v, err := c.Memo("plan.check", func() (any, error) { return loadPlanCheck(c) })
	if err != nil {
		return nil, err
	}
	return v.(*PlanCheck), nil
}

func loadPlanCheck(c *Context) (*PlanCheck, error) {
	if c.Snap == nil {
		return nil, fmt.Errorf("plan: no snapshot")
	}
	pb, err := c.Snap.ReadFile(PlanFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PlanFile, unwrapPath(err))
	}
	doc := plan.Parse(PlanFile, pb)
	cb, err := c.Snap.ReadFile(claims.File)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", claims.File, unwrapPath(err))
	}
	t := claims.Parse(claims.File, cb)
	if err := t.Err(); err != nil {
		return nil, err
	}
	env := &claims.Env{Metrics: make(map[string]*tail.Metrics, len(c.Metrics)+len(c.Snap.Parity)), Table: t}
	for _, r := range c.Snap.Runs {
		env.Names = append(env.Names, r.Name)
		env.Metrics[r.Name] = c.Metrics[r.Name]
	}
	for _, rec := range c.Snap.Parity {
		ms := c.Metrics[rec.File]
		if ms == nil {
			ms = tail.ParseRouteParity(rec.File, rec.Text)
		}
		env.Names = append(env.Names, rec.File)
		env.Metrics[rec.File] = ms
	}
	pc := &PlanCheck{Doc: doc, Table: t, Env: env, Result: claims.Check(doc, t, env)}
	pc.first = firstRuns(c)
	return pc, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// isRangeRow reports whether a binding is a quoted range over a run set,
// the kind plan.range reports.
func isRangeRow(b claims.Binding) bool {
	return b.Token.Kind == plan.Range && len(b.Row.Sources) == 1
}

// bindingFinding builds the finding of one binding.
func bindingFinding(rule string, b claims.Binding, sev finding.Severity, msg string) finding.Finding {
	return finding.Finding{Rule: rule, ID: b.Row.ID, Severity: sev, File: PlanFile, Line: b.Token.Line,
		Quote: b.Token.Text, Raw: b.Raw, Source: b.Source, Message: msg}
}

// dedupeFindings drops the findings identical to an earlier one, keeping order: two
// occurrences of a quote on one line give one finding, not the same twice.
func dedupeFindings(fs []finding.Finding) []finding.Finding {
	seen := make(map[finding.Finding]bool, len(fs))
	out := fs[:0]
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

func itemList(items []claims.Item, q func(claims.Item) string) string {
	var out []string
	for _, it := range items {
		out = append(out, q(it))
	}
	return strings.Join(out, ", ")
}
