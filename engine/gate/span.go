package gate

import (
	"slices"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/plan"
)

// checkSpans checks the code spans of the claim lines (indexes into
// doc.Lines) that quote numbers. A span of command-line arguments or
// settings (`-ub 1024`, `MoCE=0.85`) is a label, which rule plan.label
// checks; any other span with a number either occurs verbatim (runs of
// white space aside) in the tail of a run the line's numbers are bound to
// (or, on a line with no bound number, a run bound at its section), or has
// every number bound by a row at its place.
func checkSpans(doc *plan.Doc, t *claims.Table, env *eval.Env, res *Result, lines []int, byQuote map[string][]*claims.Row) []SpanCheck {
	if len(lines) == 0 {
		return nil
	}
	lineRuns := map[int][]string{}
	for _, b := range res.Bindings {
		if b.Token.Line > 0 {
			lineRuns[b.Token.Line] = appendNew(lineRuns[b.Token.Line], b.Row.MetricRuns(env)...)
		}
	}
	var out []SpanCheck
	for _, i := range lines {
		l := doc.Lines[i]
		for _, sp := range l.CodeSpans() {
			toks := plan.Scan(sp.Text)
			if len(toks) == 0 || plan.LabelSpan(sp.Text) {
				continue
			}
			place := l.Section.Place()
			c := SpanCheck{Span: sp, Line: l.N, Place: place}
			c.Runs = lineRuns[l.N]
			if len(c.Runs) == 0 {
				for _, row := range t.Rows {
					if l.Section.In(row.Place) {
						c.Runs = appendNew(c.Runs, row.MetricRuns(env)...)
					}
				}
			}
			for _, run := range c.Runs {
				if env.Tail != nil && plan.SpanIn(sp.Text, env.Tail(run)) {
					c.OK, c.Run = true, run
					break
				}
			}
			if !c.OK {
				for _, tk := range toks {
					bound := false
					for _, row := range byQuote[tk.Text] {
						bound = bound || l.Section.In(row.Place)
					}
					if !bound {
						c.Loose = append(c.Loose, tk.Text)
					}
				}
				c.OK = len(c.Loose) == 0
			}
			out = append(out, c)
		}
	}
	return out
}

func appendNew(l []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(l, a) {
			l = append(l, a)
		}
	}
	return l
}
