package plan

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
	planmd "github.com/strataspec/strataspec/engine/plan"
)

// Unsourced is rule plan.unsourced.
var Unsourced = newAnalyzer("plan.unsourced",
	"every number in PLAN's claim sections is bound by a claims row to a source that prints it (at the quoted precision and unit, "+
		"and no more precisely than the source printed it); an unbound number names the nearest raw values: the runs' printed metrics "+
		"and the values the claims rows derive",
	true, planUnsourced)

func planUnsourced(pc *check) []finding.Finding {
	var out []finding.Finding
	const rule = "plan.unsourced"
	plots := plotCache{}
	if len(pc.Table.Sections) == 0 {
		// A table that declares no claim section binds nothing and lets
		// every number through: that is a gate switched off, not a pass.
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: pc.Table.File,
			Message: "the claims table declares no claim section (a line `section §N #M`), so no number of PLAN.md is checked"})
	}
	inClaim := map[int]bool{}
	for _, e := range pc.Result.PlanErrors {
		inClaim[e.Line] = true
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: pc.Doc.File, Line: e.Line,
			Message: fmt.Sprintf("%s: %s", pc.Doc.Place(e.Line), e.Msg)})
	}
	for _, e := range pc.Doc.Errors {
		if !inClaim[e.Line] {
			out = append(out, finding.Finding{Rule: rule, Severity: finding.Warn, File: pc.Doc.File, Line: e.Line,
				Message: fmt.Sprintf("%s (outside the claim sections)", e.Msg)})
		}
	}
	for _, b := range pc.Result.Bindings {
		switch {
		case b.Status == gate.Match && !isRangeRow(b):
			msg := fmt.Sprintf("%s: %s = %s", b.Place, b.Token.Text, b.Raw)
			if b.Row.PadZeros {
				msg += " (the plan pads the printed value with zeros; the row declares pad=zeros)"
			}
			out = append(out, bindingFinding(pc, rule, b, finding.Pass, msg))
		case b.Status == gate.Extra:
			out = append(out, bindingFinding(pc, rule, b, finding.Fail, b.Msg))
		case b.Status == gate.Mismatch:
			msg := fmt.Sprintf("%s: %s is unsourced: %s; its row's source gives %s", b.Place, b.Token.Text, elsewhere(b), b.Raw)
			if len(b.Notes) > 0 {
				msg += "; " + strings.Join(b.Notes, "; ")
			}
			f := bindingFinding(pc, rule, b, finding.Fail, msg)
			// a quote bound to the runs of a set (F14, F15) is drawn
			// against them, as plan.range draws its ranges
			f.Plot = plots.of(pc, b)
			out = append(out, f)
		}
	}
	for _, u := range pc.Result.Unbound {
		raw := nearestRaw(u)
		why := "no claims row binds it"
		if constPlausible(pc.Table, u) {
			why += " and it is not a declared constant"
		}
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: pc.Doc.File, Line: u.Token.Line,
			Quote: u.Token.Text, Raw: raw,
			Message: fmt.Sprintf("%s: %s is unsourced: %s; %s", u.Place, u.Token.Text, why, raw),
			Fix:     "bind it with a row in " + pc.Table.File + " (go run ./tools/strataspec -suggest proposes one), or correct it to the value its run printed"})
	}
	for _, row := range pc.Table.Rows {
		if why := row.Declared(); why != "" {
			out = append(out, finding.Finding{Rule: rule, Severity: finding.Warn, File: pc.Table.File, Line: row.Line,
				Quote: row.Quote, Source: sourceText(row), Check: DeclaredCheck,
				Message: fmt.Sprintf("%s: %s is declared, not measured: claims row %s:%d binds it to %s, which no run printed (-strict: fail)", row.Place, row.Quote, pc.Table.File, row.Line, why),
				Fix:     "bind the quote to the run metric that printed it, or, if it is a design figure, move it out of the claim section or declare the section with skip"})
		}
	}
	for _, u := range pc.Result.Unreadable {
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: pc.Doc.File, Line: u.Word.Line,
			Quote: u.Word.Text, Check: "unreadable",
			Message: fmt.Sprintf("%s: %q is an unreadable number: it holds a digit the gate reads neither as a number (a value and a unit it knows) nor as an identifier", u.Place, u.Word.Text),
			Fix:     "write it as a number and a unit apart from the words around it (9.99 GB/s), or, if it is a name, declare it in " + pc.Table.File + " with a line `ident " + planmd.TrimWord(u.Word.Text) + "`"})
	}
	if n := pc.Result.UnboundMore; n > 0 {
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: pc.Doc.File,
			Message: fmt.Sprintf("and %d more unsourced numbers in the claim sections (the first %d are listed)", n, len(pc.Result.Unbound))})
	}
	for _, sc := range pc.Result.Spans {
		f := finding.Finding{Rule: rule, Severity: finding.Pass, File: pc.Doc.File, Line: sc.Line, Quote: "`" + sc.Span.Text + "`", Check: "code-span"}
		switch {
		case sc.OK && sc.Run != "":
			f.Source = sc.Run
			f.Message = fmt.Sprintf("%s: the code span `%s` occurs verbatim in the tail of %s", sc.Place, sc.Span.Text, sc.Run)
		case sc.OK:
			f.Message = fmt.Sprintf("%s: every number of the code span `%s` is bound by a claims row", sc.Place, sc.Span.Text)
		default:
			f.Severity = finding.Fail
			where := "no run is bound at " + sc.Place
			if len(sc.Runs) > 0 {
				where = "it is in the tail of none of the runs bound there (" + strings.Join(clipList(sc.Runs, 4), ", ") + ")"
			}
			f.Message = fmt.Sprintf("%s: the code span `%s` quotes %s: %s, and no claims row binds %s", sc.Place, sc.Span.Text,
				strings.Join(sc.Loose, ", "), where, strings.Join(sc.Loose, ", "))
			f.Fix = "quote the tail line exactly as the run printed it, or bind its numbers with rows in " + pc.Table.File
		}
		out = append(out, f)
	}
	return dedupeFindings(out)
}

// DeclaredCheck is the check of plan.unsourced's findings about claims rows
// whose source is declared, not measured (a literal, a constant, a literal
// factor): warnings, failures with -strict (see Strict).
const DeclaredCheck = "declared"

// sourceText prints a row's sources as the table writes them.
func sourceText(row *claims.Row) string {
	var s []string
	for _, e := range row.Sources {
		s = append(s, e.String())
	}
	return strings.Join(s, " ; ")
}

func nearestRaw(u gate.Unbound) string {
	return eval.DescribeNearest(u.Token.Parts, u.Token.Units, u.Nearest)
}

// constPlausible reports whether an unbound number may have been meant as a
// declared constant: the table declares one in its unit, or no run prints
// a value in its unit at all (a design figure rather than a measurement).
func constPlausible(t *claims.Table, u gate.Unbound) bool {
	for _, c := range t.Consts {
		if c.Unit == u.Token.Unit {
			return true
		}
	}
	for _, items := range u.Nearest {
		if len(items) > 0 {
			return false
		}
	}
	return true
}

func clipList(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	return append(append([]string(nil), l[:n]...), fmt.Sprintf("… %d more", len(l)-n))
}

// elsewhere says, per part of a mismatched quote, whether any run prints it.
func elsewhere(b gate.Binding) string {
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
		printed = append(printed, fmt.Sprintf("%s is printed only by %s", q, itemList(items, func(it eval.Item) string { return it.Run + ": " + it.Metric })))
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
