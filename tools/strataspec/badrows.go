package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// badRows returns the claims rows the audit reports as plan.stale's fails
// for their own mistake, each "PLAN.claims:LINE: what is wrong" (with the
// name the row most likely meant, where the audit gives one): the table's
// syntax errors (an undeclared @set or $constant) or, unreadable, the
// table itself (pc is nil: nothing is checked against it), else the rows whose source the archive does not have
// (a misspelt run or metric). A snapshot without a plan or a claims
// table has none. The error is what the audit stops on (a limit passed).
func badRows(ctx *audit.Context) (bad []string, pc *gate.PlanCheck, err error) {
	if _, err := analysis.Compute(ctx.Driver(), facts.Claims); err != nil {
		if errors.Is(err, facts.ErrAbsent) {
			return nil, nil, nil
		}
		var le *snapfs.LimitError
		if errors.As(err, &le) {
			return nil, nil, err
		}
		for _, e := range joined(err) {
			bad = append(bad, e.Error())
		}
		return bad, nil, nil
	}
	pc, err = ctx.PlanCheck()
	if errors.Is(err, facts.ErrAbsent) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	seen := map[int]bool{}
	for _, b := range pc.Result.Bindings {
		if b.Status == gate.BadSource && !seen[b.Row.Line] {
			seen[b.Row.Line] = true
			bad = append(bad, fmt.Sprintf("%s:%d: %s", pc.Table.File, b.Row.Line, b.Msg))
		}
	}
	return bad, pc, nil
}

// joined returns err's errors: those of an errors.Join, or err.
func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// reportBadRows prints each bad row on w as the audit's plan.stale fail,
// and returns the audit's exit code for them: 1 when there is one, else 0.
func reportBadRows(w io.Writer, bad []string) int {
	for _, b := range bad {
		fmt.Fprintf(w, "strataspec: %s (plan.stale's fail in the audit)\n", report.Clean(b))
	}
	if len(bad) > 0 {
		return 1
	}
	return 0
}
