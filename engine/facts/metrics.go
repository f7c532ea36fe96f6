package facts

import (
	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/tail"
	"strings"
)

// RunMetrics are the metrics parsed from every run's tail, by run name.
// A tail that parses with errors keeps them in its Metrics; a run whose
// program has no parser gets Metrics with one error saying so.
var RunMetrics = analysis.NewInput("run metrics", "every run's parsed output", func(p *analysis.Pass) (map[string]*tail.Metrics, error) {
	out := make(map[string]*tail.Metrics, len(p.Snap.Runs))
	for _, r := range p.Snap.Runs {
		ms := ParseRun(p.Spec, r)
		ms.Detach() // keep the metrics, not the tail they were sliced from
		out[r.Name] = ms
	}
	return out, nil
})

// RecordMetrics are the metrics of the records beside the runs (route_parity
// logs, the self-test output), by file. They are kept apart from runs: a
// run named like a record's file cannot replace its metrics.
var RecordMetrics = analysis.NewInput("record metrics", "the parsed records beside the runs", func(p *analysis.Pass) (map[string]*tail.Metrics, error) {
	out := map[string]*tail.Metrics{}
	for _, rec := range p.Snap.Parity {
		out[rec.File] = tail.ParseRouteParity(rec.File, rec.Text)
	}
	if rec := p.Snap.SelfTest; rec != nil {
		out[rec.File] = tail.ParseSelfTest(rec.File, rec.Text)
	}
	return out, nil
})

// ParseRun parses a run's tail with the parser the spec gives its program:
// a declared log format, strata's window CLI, or llama.cpp's (with
// llama-perplexity's statistics for that program). The runner's appended
// lines (memory, disk), when a runner appended them, are read too.
func ParseRun(spec *checkout.Spec, r *archive.Run) *tail.Metrics {
	if spec == nil {
		spec = checkout.Default()
	}
	text, err := r.Text()
	if err != nil {
		return &tail.Metrics{Source: r.Source, Errors: []*tail.Error{{File: r.Source, Msg: "output cannot be read: " + err.Error()}}}
	}
	var ms *tail.Metrics
	switch r.Parser {
	case checkout.ParserStrata:
		return tail.ParseStrata(r.Source, text)
	case checkout.ParserLlamaCpp:
		ms = llamacpp.ParseProgram(llamacpp.ProgramCLI, r.Source, text)
	case checkout.ParserServer:
		ms = llamacpp.ParseProgram(llamacpp.ProgramServer, r.Source, text)
	case checkout.ParserBench:
		ms = llamacpp.ParseProgram(llamacpp.ProgramBench, r.Source, text)
	case checkout.ParserPerplexity:
		ms = llamacpp.ParseProgram(llamacpp.ProgramPerplexity, r.Source, text)
	case "":
		ms = &tail.Metrics{Source: r.Source}
		prog := "(no argv recorded)"
		if len(r.Cmd) > 0 {
			prog = r.Cmd[0]
		}
		ms.Errors = append(ms.Errors, &tail.Error{File: r.Source, Msg: "no parser for program " + prog + ": declare it under \"programs\" in " + checkout.File})
	default:
		ms = tail.ParsePatterns(r.Source, text, patterns(spec.Patterns(r.Parser)))
	}
	if !strings.Contains(text, "[runner] ") {
		return ms // no validation-runner lines appended: nothing more to read
	}
	return tail.Merge(ms, tail.ParseRunner(r.Source, text))
}

// RunsWith returns the runs, in snapshot order, whose metrics include at
// least one of names: the runs a rule that reads those metrics applies to,
// whichever reader produced them.
func RunsWith(snap *archive.Snapshot, ms map[string]*tail.Metrics, names ...string) []*archive.Run {
	var out []*archive.Run
	for _, r := range snap.Runs {
		m := ms[r.Name]
		if m == nil {
			continue
		}
		for _, n := range names {
			if _, ok := m.Get(n); ok {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// NoRunWith says that no run has any of the metrics names: the reason a
// rule that needs them did not apply.
func NoRunWith(names ...string) string {
	if len(names) == 1 {
		return "no run has the metric " + names[0]
	}
	return "no run has any of the metrics " + strings.Join(names, ", ")
}

// patterns are a declared format's compiled patterns as the tail parser
// takes them.
func patterns(ps []checkout.Pattern) []tail.Pattern {
	out := make([]tail.Pattern, len(ps))
	for i, p := range ps {
		out[i] = tail.Pattern{Re: p.Re, Groups: make(map[string]tail.PatternMetric, len(p.Groups))}
		for g, m := range p.Groups {
			out[i].Groups[g] = tail.PatternMetric(m)
		}
	}
	return out
}
