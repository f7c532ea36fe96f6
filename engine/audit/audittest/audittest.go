// Package audittest helps the tests of a rule's bad input: an audit reports
// a bad setting or an unreadable file as a fail finding of one rule (check
// audit.BadInput) and runs the rest; Err makes that finding an error, so a
// test can say where the input is bad as it would of a load error.
package audittest

import (
	"errors"
	"fmt"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/report"
)

// Error is a bad-input finding as an error: "file:line: message (rule r)".
type Error struct{ finding.Finding }

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (rule %s)", e.Pos(), e.Message, e.Rule)
}

// Pos returns the finding's place.
func (e *Error) Pos() finding.Pos { return finding.Pos{File: e.File, Line: e.Line} }

// Err returns err when it is not nil (the audit did not run); else the
// bad-input findings of rep, each an *Error, joined (errors.Join); nil
// when it has none. It takes what audit.Audit and audit.RunSelection
// return: audittest.Err(audit.Audit(root, "tf")).
func Err(rep *report.Report, err error) error {
	if err != nil || rep == nil {
		return err
	}
	var errs []error
	for _, f := range rep.Findings {
		if f.Check == audit.BadInput && f.Severity == finding.Fail {
			errs = append(errs, &Error{f})
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// Audit is audit.Audit with the report's bad-input findings as its error
// (Err): a test written when a bad input stopped the audit reads where it
// is bad as it did, and the report besides.
func Audit(root, rules string) (*report.Report, error) {
	rep, err := audit.Audit(root, rules)
	return rep, Err(rep, err)
}

// RunSelection is audit.RunSelection with the report's bad-input findings
// as its error (Err).
func RunSelection(ctx *audit.Context, sel audit.Selection) (*report.Report, error) {
	rep, err := audit.RunSelection(ctx, sel)
	return rep, Err(rep, err)
}
