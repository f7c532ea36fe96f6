package rules

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	plangate "github.com/strataspec/strataspec/engine/rules/plan"
)

// PlanFile is the plan's path inside a checkout.
const PlanFile = "PLAN.md"

// ColdSet is the name of the claims-table set that lists the cold runs:
// the first run on each expert file. A pair quoted from one run per side
// that touches one of them must name a caveat (rule kld, F30).
const ColdSet = "cold"

// PlanCheck is the plan gate's shared input (facts.Gate: the plan, the
// claims table and the check of one against the other), for the legacy
// rules that read the claims rows or the plan's caveats (compare.unlike,
// compare.rate, kld, tf). The plan rules themselves are analyzers in
// engine/rules/plan.
type PlanCheck struct {
	*facts.PlanCheck

	first map[string]string // model file → first strata run reading it
}

// LoadPlanCheck returns the plan check of the context's snapshot, computed
// once per audit (facts.Gate). A missing or malformed PLAN.md or
// PLAN.claims is an error naming it (and the line, for the claims table).
func LoadPlanCheck(c *Context) (*PlanCheck, error) {
	v, err := c.Memo("plan.check", func() (any, error) {
		if c.Snap == nil {
			return nil, fmt.Errorf("plan: no snapshot")
		}
		pc, err := facts.Get(c.FactSet(), facts.Gate)
		if errors.Is(err, facts.ErrAbsent) {
			return nil, absentError{err}
		}
		if err != nil {
			return nil, err
		}
		if pc.NoClaims {
			// these rules read the claims rows: without the table they
			// go on as without a plan check
			_, err := facts.Get(c.FactSet(), facts.Claims)
			return nil, absentError{err}
		}
		return &PlanCheck{PlanCheck: pc, first: plangate.FirstRuns(c.Snap)}, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*PlanCheck), nil
}

// absentError is a plan or claims table not in the snapshot: it matches
// fs.ErrNotExist, which the rules that can go on without them test for.
type absentError struct{ err error }

func (e absentError) Error() string        { return e.err.Error() }
func (e absentError) Unwrap() error        { return e.err }
func (e absentError) Is(target error) bool { return target == fs.ErrNotExist }

// bindingFinding builds the finding of one binding.
func bindingFinding(rule string, b claims.Binding, sev finding.Severity, msg string) finding.Finding {
	return finding.Finding{Rule: rule, ID: b.Row.ID, Severity: sev, File: PlanFile, Line: b.Token.Line,
		Quote: b.Token.Text, Raw: b.Raw, Source: b.Source, Message: msg}
}
