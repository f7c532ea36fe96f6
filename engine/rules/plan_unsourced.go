package rules

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
)

func init() {
	Register(Rule{
		Name: "plan.unsourced",
		Doc: "every number in PLAN's claim sections is bound by a claims row to a source that prints it (at the quoted precision and unit, " +
			"and no more precisely than the source printed it); an unbound number names the nearest raw values: the runs' printed metrics " +
			"and the values the claims rows derive",
		Check: func(c *Context) ([]finding.Finding, error) {
			pc, err := LoadPlanCheck(c)
			if err != nil {
				return nil, err
			}
			return planUnsourced(pc), nil
		},
	})
}

func planUnsourced(pc *PlanCheck) []finding.Finding {
	var out []finding.Finding
	const rule = "plan.unsourced"
	if len(pc.Table.Sections) == 0 {
		// A table that declares no claim section binds nothing and lets
		// every number through: that is a gate switched off, not a pass.
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: claims.File,
			Message: "the claims table declares no claim section (a line `section §N #M`), so no number of PLAN.md is checked"})
	}
	inClaim := map[int]bool{}
	for _, e := range pc.Result.PlanErrors {
		inClaim[e.Line] = true
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: PlanFile, Line: e.Line,
			Message: fmt.Sprintf("%s: %s", pc.Doc.Place(e.Line), e.Msg)})
	}
	for _, e := range pc.Doc.Errors {
		if !inClaim[e.Line] {
			out = append(out, finding.Finding{Rule: rule, Severity: finding.Warn, File: PlanFile, Line: e.Line,
				Message: fmt.Sprintf("%s (outside the claim sections)", e.Msg)})
		}
	}
	for _, b := range pc.Result.Bindings {
		switch {
		case b.Status == claims.Match && !isRangeRow(b):
			msg := fmt.Sprintf("%s: %s = %s", b.Place, b.Token.Text, b.Raw)
			if b.Row.PadZeros {
				msg += " (the plan pads the printed value with zeros; the row declares pad=zeros)"
			}
			out = append(out, bindingFinding(rule, b, finding.Pass, msg))
		case b.Status == claims.Extra:
			out = append(out, bindingFinding(rule, b, finding.Fail, b.Msg))
		case b.Status == claims.Mismatch:
			msg := fmt.Sprintf("%s: %s is unsourced: %s; its row's source gives %s", b.Place, b.Token.Text, elsewhere(b), b.Raw)
			if len(b.Notes) > 0 {
				msg += "; " + strings.Join(b.Notes, "; ")
			}
			out = append(out, bindingFinding(rule, b, finding.Fail, msg))
		}
	}
	for _, u := range pc.Result.Unbound {
		var near []string
		for i, items := range u.Nearest {
			q := u.Token.Parts[i]
			near = append(near, itemList(items, func(it claims.Item) string {
				v := claims.Format(it.Value, printedLike(it, q))
				if it.Unit != "" {
					v += " " + it.Unit
				}
				return fmt.Sprintf("%s (%s)", v, it.Label())
			}))
		}
		raw := "nearest raw: " + strings.Join(near, " | ")
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: PlanFile, Line: u.Token.Line,
			Quote: u.Token.Text, Raw: raw,
			Message: fmt.Sprintf("%s: %s is unsourced: no claims row binds it and it is not a declared constant; %s", u.Place, u.Token.Text, raw)})
	}
	return dedupeFindings(out)
}

// printedLike returns the number to format a raw item like: its own printed
// text when it has one, else the quote.
func printedLike(it claims.Item, q num.Number) num.Number {
	if it.Text != "" {
		if n, err := num.Parse(it.Text); err == nil {
			return n
		}
	}
	return q
}

// elsewhere says, per part of a mismatched quote, whether any run prints it.
func elsewhere(b claims.Binding) string {
	var nowhere, printed []string
	for i, items := range b.Elsewhere {
		q := b.Token.Parts[i].Text
		if u := b.Token.Units[i]; u != "" {
			q += " " + u
		}
		if i < len(b.PartOK) && b.PartOK[i] {
			continue
		}
		if len(items) == 0 {
			nowhere = append(nowhere, q)
			continue
		}
		printed = append(printed, fmt.Sprintf("%s is printed only by %s", q, itemList(items, func(it claims.Item) string { return it.Run + ": " + it.Metric })))
	}
	var out []string
	switch len(nowhere) {
	case 0:
	case 1:
		out = append(out, nowhere[0]+" is in no archived run")
	default:
		out = append(out, strings.Join(nowhere, " and ")+" are in no archived run")
	}
	out = append(out, printed...)
	if len(out) == 0 {
		return "the quote differs from its source"
	}
	return strings.Join(out, "; ")
}
