package llamacpp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/tail"
)

// Program names, as llama.cpp calls its programs since the rename of June
// 2024 (b3186).
const (
	ProgramCLI        = "llama-cli"
	ProgramCompletion = "llama-completion"
	ProgramBench      = "llama-bench"
	ProgramPerplexity = "llama-perplexity"
	ProgramServer     = "llama-server"
	ProgramEmbedding  = "llama-embedding"
)

// programs maps a binary's base name, without ".exe", to its program.
var programs = map[string]string{
	"main":             ProgramCLI, // before b3186
	"llama-cli":        ProgramCLI,
	"llama-completion": ProgramCompletion, // late 2025: the non-chat llama-cli
	"llama-bench":      ProgramBench,
	"perplexity":       ProgramPerplexity, // before b3186
	"llama-perplexity": ProgramPerplexity,
	"server":           ProgramServer, // before b3186
	"llama-server":     ProgramServer,
	"embedding":        ProgramEmbedding, // before b3186
	"llama-embedding":  ProgramEmbedding,
}

// Program reports which llama.cpp program argv0 runs, by the base name of
// the binary: the last element of a path with "/" or "\" separators, with a
// ".exe" suffix (any case) removed. It knows every name old and new:
//
//	main, llama-cli              → llama-cli
//	llama-completion             → llama-completion
//	llama-bench                  → llama-bench
//	perplexity, llama-perplexity → llama-perplexity
//	server, llama-server         → llama-server
//	embedding, llama-embedding   → llama-embedding
//
// "./main", "build/bin/llama-cli" and "C:\llama\llama-bench.exe" are
// recognised; any other name is not (ok false). These are defaults: a
// checkout's spec file may map other binary names to these programs.
func Program(argv0 string) (name string, ok bool) {
	base := argv0
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".exe") {
		base = base[:len(base)-4]
	}
	name, ok = programs[base]
	return name, ok
}

// Binaries returns every binary name Program knows (without ".exe"),
// sorted, with the program each runs.
func Binaries() [][2]string {
	var out [][2]string
	for b, p := range programs {
		out = append(out, [2]string{b, p})
	}
	slices.SortFunc(out, func(x, y [2]string) int { return strings.Compare(x[0], y[0]) })
	return out
}

// Programs returns the programs ParseProgram knows, sorted.
func Programs() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range programs {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// ParseProgram parses the output tail of a run of a llama.cpp program (a
// name Program returns) with the parsers for that program, in tail order:
//
//	llama-cli, llama-completion, llama-embedding   Parse
//	llama-bench        ParseBench (markdown, JSON, JSONL, CSV)
//	llama-perplexity   Parse and ParsePerplexity
//	llama-server       Parse and ParseServer
//
// A tail that yields no metric at all is an error at its last line (the
// summary is missing, or the tail was cut before it): never a silent
// empty result. NoMetric reports the case to callers that make a finding
// of it. An unknown program is an error too.
func ParseProgram(program, source, text string) *tail.Metrics {
	return ParseProgramMax(program, source, text, 0)
}

// ParseProgramMax is ParseProgram keeping at most max metrics (0: no
// limit): past it the result is Over (tail.Metrics.Over) and the rest of
// text is not read, so memory stays proportional to max, not to the text.
func ParseProgramMax(program, source, text string, max int) *tail.Metrics {
	var ms *tail.Metrics
	switch program {
	case ProgramCLI, ProgramCompletion, ProgramEmbedding:
		ms = parse(source, text, max)
	case ProgramBench:
		ms = parseBench(source, text, max).Metrics()
	case ProgramPerplexity:
		ms = merge(parse(source, text, max), parsePerplexity(source, text, max))
	case ProgramServer:
		ms = merge(parse(source, text, max), parseServer(source, text, max))
	default:
		return &tail.Metrics{Source: source, Errors: []*tail.Error{{File: source,
			Msg: fmt.Sprintf("unknown llama.cpp program %q (known: %s)", program, strings.Join(Programs(), ", "))}}}
	}
	if NoMetric(ms) {
		last := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
		if text == "" {
			last = 0
		}
		ms.Errors = append(ms.Errors, &tail.Error{File: source, Line: last,
			Msg: fmt.Sprintf("%s: no performance metric in the tail: its summary is missing or the tail was cut before it", program)})
	}
	return ms
}

// NoMetric reports whether a parse yielded no metric at all.
func NoMetric(ms *tail.Metrics) bool { return ms == nil || len(ms.List) == 0 }

// merge joins two parses of one tail into one, metrics in tail order
// (stable: a line's metrics keep their order) and errors likewise.
func merge(a, b *tail.Metrics) *tail.Metrics {
	out := tail.Merge(a, b)
	slices.SortStableFunc(out.List, func(x, y tail.Metric) int { return x.Line - y.Line })
	slices.SortStableFunc(out.Errors, func(x, y *tail.Error) int { return x.Line - y.Line })
	return out
}
