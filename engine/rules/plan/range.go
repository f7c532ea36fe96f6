package plan

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
)

// Range is rule plan.range.
var Range = newAnalyzer("plan.range",
	"a quoted range over a run set covers every run of the set (the cold first run included)",
	true, planRange)

func planRange(pc *check) []finding.Finding {
	var out []finding.Finding
	const rule = "plan.range"
	plots := plotCache{}
	for _, b := range pc.Result.Bindings {
		if !isRangeRow(b) {
			continue
		}
		var f finding.Finding
		switch b.Status {
		case gate.Match:
			f = bindingFinding(pc, rule, b, finding.Pass,
				fmt.Sprintf("%s: %s covers every run of its set", b.Place, b.Token.Text))
			if cold := missingCold(pc, b); len(cold) > 0 {
				if len(b.Row.Caveats) > 0 {
					// the row names a caveat the plan states (else the
					// binding is CaveatMissing): it says why
					f.Message += fmt.Sprintf("; the set leaves out the cold first run %s under caveat (%s)", strings.Join(cold, ", "), strings.Join(b.Row.Caveats, "), ("))
				} else {
					f.Severity, f.Check = finding.Fail, "cold"
					f.Message = fmt.Sprintf("%s: %s covers its set, but the set leaves out %s: the first run on its model file, which reads it cold, is part of any range over runs of that file", b.Place, b.Token.Text, strings.Join(cold, ", "))
					f.Fix = "quote the range over a set that includes the first run on the model file, or name a caveat (caveat=ID) the plan states beside the quote"
				}
			}
		case gate.DropsRuns:
			f = bindingFinding(pc, rule, b, finding.Fail,
				fmt.Sprintf("%s: %s drops runs: %s; the full range is %s", b.Place, b.Token.Text, b.Msg, b.Raw))
		default:
			continue
		}
		f.Plot = plots.of(pc, b)
		out = append(out, f)
	}
	return dedupeFindings(out)
}

// plotCache holds one plot per row and quote, so that the findings of two
// occurrences of a quote on one line (which share the plot pointer) still
// dedupe.
type plotCache map[string]*finding.Plot

func (c plotCache) of(pc *check, b gate.Binding) *finding.Plot {
	key := fmt.Sprintf("%d:%d:%d", b.Row.Line, b.Token.Line, b.Token.Col)
	if _, ok := c[key]; !ok {
		c[key] = rangePlot(pc, b)
	}
	return c[key]
}

// rangePlot is the chart data of a quote bound to a set of runs: the quoted
// ends of a range (or the one quoted value), and each run of the set with
// its value, the cold first run on its model file noted. It is nil when the
// source does not evaluate to runs.
func rangePlot(pc *check, b gate.Binding) *finding.Plot {
	v, err := pc.Env.Eval(b.Row.Sources[0])
	if err != nil || len(v.List) == 0 {
		return nil
	}
	cold := map[string]bool{}
	for _, run := range pc.first {
		cold[run] = true
	}
	p := &finding.Plot{Kind: "range", Unit: b.Token.Unit}
	for _, q := range b.Token.Parts {
		p.Quoted = append(p.Quoted, q.Value)
	}
	for _, it := range v.List {
		pt := finding.Point{Label: it.Run, Value: it.Value}
		if cold[it.Run] {
			pt.Note = "cold first run"
		}
		p.Add(pt)
	}
	return p
}

// missingCold returns the first runs on the model files (per binary) the
// runs of a range binding's source read, that the source's runs leave out,
// each with its model file: "r1 (K256-Q2_0.gguf)". A range bound to its
// two endpoint runs (each side a RUN:METRIC) is judged as the set of those
// runs.
func missingCold(pc *check, b gate.Binding) []string {
	runs := b.Row.MetricRuns(pc.Env)
	var colds []facts.Cold
	for _, name := range runs {
		if r := pc.runs[name]; r != nil {
			if c, ok := facts.ColdOf(r); ok && !slices.Contains(colds, c) {
				colds = append(colds, c)
			}
		}
	}
	var out []string
	for _, c := range colds {
		if first, ok := pc.first[c]; ok && !slices.Contains(runs, first) {
			out = append(out, fmt.Sprintf("%s (%s)", first, path.Base(c.Model)))
		}
	}
	return out
}
