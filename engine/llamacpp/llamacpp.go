// Package llamacpp reads what llama.cpp's programs print about speed and
// quality, in every generation of their formats, from a run's raw output:
//
//	Program       which program an argv[0] runs (main, llama-cli, server, …)
//	ParseProgram  a tail of a known program, with that program's parsers
//	Parse         the performance summaries (llamacpp.go)
//	ParseBench    llama-bench's markdown, JSON, JSONL and CSV (bench.go)
//	ParsePerplexity  llama-perplexity's chunks, final estimate, KLD blocks (perplexity.go)
//	ParseServer   llama-server's timing logs and timings objects (server.go)
//
// Every parser is a pure function of a source name and the text; none opens
// a file. A line that starts like one of these outputs and does not read is
// an error naming the line, never skipped; a known program's tail with no
// metric at all is an error too (ParseProgram, NoMetric). Real outputs of
// every generation are in testdata/corpus, each with the golden of its
// parse.
//
// # Summary formats
//
// A summary line is "<prefix>: <label> = <value> <unit> [/ <count> <word>]
// [(<ms> ms per token[, <rate> tokens per second])]", where the prefix names
// the printing function and so the generation of llama.cpp:
//
//   - llama_print_timings: (2023 to mid 2024): load, sample, prompt eval,
//     eval and total time; the earliest builds print "ms per run" and no
//     tokens per second, later ones add "/ N tokens" to the total.
//   - llama_perf_print: (a few builds of September 2024, around b3738 to
//     b3780): the same lines as the next, under one prefix.
//   - llama_perf_sampler_print: and llama_perf_context_print: (from
//     September 2024): "sampling time" with runs, load, prompt eval, eval,
//     total time and, in later builds, "graphs reused".
//   - common_perf_print: (from November 2025, llama-completion and the
//     examples): "sampling time" (no count), "samplers time = X ms / N
//     tokens", load, prompt eval, eval, total time, "unaccounted time = X ms /
//     P %" and "graphs reused".
//
// The chat llama-cli of late 2025 prints no summary; after each reply it
// prints "[ Prompt: 14.3 t/s | Generation: 1.4 t/s ]", which this package
// also reads. It prints no token counts.
//
// When a count is 0 the printed per-token figures are C's printf of a
// division by zero: "inf", "-inf", "nan" or "-nan" (glibc). They parse to
// the IEEE values and keep their text. A line may carry any prefix before the
// function name (a timestamp, a log level such as "I ", a "[pid] ", ANSI
// colours): the parser looks for the function names anywhere in a line.
// Numbers printed with a decimal comma (a C locale other than "C", e.g.
// "285,92 ms") are read as decimals and keep their printed text.
//
// # Metric names
//
// Every metric keeps the text it was printed as (tail.Metric.Num.Text), its
// unit and its line. Names are stable:
//
//	load_ms                       load time
//	sample_ms, sample_tokens      "sample time = … / N runs" (llama_print_timings),
//	                              "sampling time = … / N runs" (llama_perf_sampler_print)
//	                              and "samplers time = … / N tokens" (common_perf_print)
//	sample_ms_per_tok, sample_tok_s
//	sampling_ms                   "sampling time" without a count (common_perf_print)
//	prompt_eval_ms, prompt_eval_tokens, prompt_ms_per_tok, prompt_tok_s
//	eval_ms, eval_tokens, eval_ms_per_tok, eval_tok_s
//	                              ("/ N runs" and "/ N tokens" alike: a run is one
//	                              decoded token, so N is the tokens decoded)
//	total_ms, total_tokens        total time and, where printed, its token count
//	unaccounted_ms, unaccounted_pct
//	graphs_reused
//	cli_prompt_tok_s, cli_gen_tok_s   llama-cli's "[ Prompt: … | Generation: … ]"
//
// A tail with several summaries (an interactive session) yields each metric
// once per summary, in tail order; tail.Metrics.All returns them all.
//
// # Errors
//
// A line that carries a summary prefix or the llama-cli marker but does not
// read as one is a tail.Error with the line number; parsing goes on. Lines
// without either are other output (loader logs, generated text) and are
// skipped. Parse never panics.
package llamacpp

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// Prefixes of the summary lines, one per printing function.
const (
	PrefixPrintTimings = "llama_print_timings:"
	PrefixPerfPrint    = "llama_perf_print:"
	PrefixContextPrint = "llama_perf_context_print:"
	PrefixSamplerPrint = "llama_perf_sampler_print:"
	PrefixCommonPerf   = "common_perf_print:"
	// MarkerCLI starts llama-cli's per-reply timing line.
	MarkerCLI = "[ Prompt:"
)

// prefixes are the summary prefixes with the offset of "_print" inside each,
// so that a search for "_print" finds every candidate.
var prefixes = []struct {
	text string
	off  int
}{
	{PrefixPrintTimings, strings.Index(PrefixPrintTimings, "_print")},
	{PrefixPerfPrint, strings.Index(PrefixPerfPrint, "_print")},
	{PrefixContextPrint, strings.Index(PrefixContextPrint, "_print")},
	{PrefixSamplerPrint, strings.Index(PrefixSamplerPrint, "_print")},
	{PrefixCommonPerf, strings.Index(PrefixCommonPerf, "_print")},
}

// Parse reads every llama.cpp performance summary and llama-cli timing line
// in text. source names what was parsed (a file, with a JSON path where the
// tail sits inside one); it is the Source of the result and the File of its
// errors.
func Parse(source, text string) *tail.Metrics { return parse(source, text, 0) }

// parse is Parse keeping at most max metrics (0: no limit).
func parse(source, text string, max int) *tail.Metrics {
	p := parser{ms: &tail.Metrics{Source: source, Max: max}, source: source}
	if max > 0 {
		// A summary line gives at most four metrics: allocated once, List
		// never grows past the limit by doubling.
		p.ms.List = make([]tail.Metric, 0, p.ms.Prealloc(4*(strings.Count(text, "_print")+strings.Count(text, MarkerCLI))))
	}
	nextPrint := indexFrom(text, "_print", 0)
	nextCLI := indexFrom(text, MarkerCLI, 0)
	pos, line := 0, 1 // line is the number of the line that starts at pos
	for (nextPrint >= 0 || nextCLI >= 0) && !p.ms.Over {
		at := nextPrint
		if at < 0 || (nextCLI >= 0 && nextCLI < at) {
			at = nextCLI
		}
		start := strings.LastIndexByte(text[pos:at], '\n') + 1 + pos
		line += strings.Count(text[pos:start], "\n")
		end := len(text)
		if i := strings.IndexByte(text[at:], '\n'); i >= 0 {
			end = at + i
		}
		p.line(line, text[start:end])
		// Move past this line and to the next candidates after it.
		pos = end
		if pos < len(text) {
			pos++
			line++
		}
		if nextPrint >= 0 && nextPrint < pos {
			nextPrint = indexFrom(text, "_print", pos)
		}
		if nextCLI >= 0 && nextCLI < pos {
			nextCLI = indexFrom(text, MarkerCLI, pos)
		}
	}
	return p.ms
}

func indexFrom(s, sub string, from int) int {
	if from > len(s) {
		return -1
	}
	i := strings.Index(s[from:], sub)
	if i < 0 {
		return -1
	}
	return from + i
}

type parser struct {
	ms     *tail.Metrics
	source string
}

func (p *parser) errorf(line int, format string, args ...any) {
	p.ms.Errors = append(p.ms.Errors, &tail.Error{File: p.source, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) add(line int, name string, n num.Number, unit string) {
	p.ms.Add(tail.Metric{Name: name, Num: n, Unit: unit, Line: line})
}

// line parses one line that holds a candidate marker. A line may hold a
// summary prefix, the llama-cli marker, or neither (e.g.
// "llama_print_system_info").
func (p *parser) line(n int, s string) {
	s = strings.TrimRight(s, "\r")
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = stripANSI(s)
	}
	for _, pf := range prefixes {
		if i := strings.Index(s, pf.text); i >= 0 {
			p.summary(n, s[i+len(pf.text):])
			return
		}
	}
	if i := strings.Index(s, MarkerCLI); i >= 0 {
		p.cli(n, s[i+len(MarkerCLI):])
	}
}

// timed are the summary labels "<label> = T ms / N <word> (…)", with the
// bases of their metric names: count+"_ms" for T, then countAndRates' bases.
var timed = map[string]struct{ count, perTok, rate string }{
	"sample time":      {"sample", "sample", "sample"},
	"sampling time":    {"sample", "sample", "sample"},
	"samplers time":    {"sample", "sample", "sample"},
	"prompt eval time": {"prompt_eval", "prompt", "prompt"},
	"eval time":        {"eval", "eval", "eval"},
	// the server's per-request timing (print_timings) of 2024
	"generation eval time": {"eval", "eval", "eval"},
}

// summary parses the part of a summary line after its prefix:
// "<label> = <value> <unit> [/ <count> <word>] [(...)]".
func (p *parser) summary(n int, s string) {
	eq := strings.IndexByte(s, '=')
	if eq < 0 {
		p.errorf(n, "llama.cpp timing line without \"=\": %q", strings.TrimSpace(s))
		return
	}
	label := strings.TrimSpace(s[:eq])
	if strings.Contains(label, "  ") || strings.IndexByte(label, '\t') >= 0 {
		label = strings.Join(strings.Fields(label), " ")
	}
	sc := scanner{s: s[eq+1:]}
	switch label {
	case "load time":
		v, ok := p.value(n, &sc, label, "ms")
		if ok {
			p.add(n, "load_ms", v, "ms")
		}
	case "sample time", "sampling time", "samplers time", "prompt eval time", "eval time", "generation eval time":
		v, ok := p.value(n, &sc, label, "ms")
		if !ok {
			return
		}
		if (label == "sample time" || label == "sampling time") && sc.done() {
			// common_perf_print's total time spent in common/sampling.
			p.add(n, "sampling_ms", v, "ms")
			return
		}
		m := timed[label]
		p.add(n, m.count+"_ms", v, "ms")
		p.countAndRates(n, &sc, label, m.count, m.perTok, m.rate)
	case "total time":
		v, ok := p.value(n, &sc, label, "ms")
		if !ok {
			return
		}
		p.add(n, "total_ms", v, "ms")
		if sc.done() {
			return
		}
		if !sc.expect("/") {
			p.errorf(n, "%s: want \"/ N tokens\" after the time, got %q", label, sc.rest())
			return
		}
		if c, ok := p.count(n, &sc, label); ok {
			p.add(n, "total_tokens", c, "tokens")
		}
	case "unaccounted time":
		v, ok := p.value(n, &sc, label, "ms")
		if !ok {
			return
		}
		p.add(n, "unaccounted_ms", v, "ms")
		if !sc.expect("/") {
			p.errorf(n, "%s: want \"/ P %%\" after the time, got %q", label, sc.rest())
			return
		}
		pc, ok := p.number(n, &sc, label)
		if !ok {
			return
		}
		if !sc.expect("%") {
			p.errorf(n, "%s: want \"%%\" after %s, got %q", label, pc.Text, sc.rest())
			return
		}
		p.add(n, "unaccounted_pct", pc, "%")
		// The rest is the formula in words: "(total - sampling - …) / (total)".
	case "graphs reused":
		v, ok := p.number(n, &sc, label)
		if !ok {
			return
		}
		if !sc.done() {
			p.errorf(n, "%s: unexpected %q after the count", label, sc.rest())
			return
		}
		p.add(n, "graphs_reused", v, "")
	default:
		p.errorf(n, "unknown llama.cpp timing %q", label)
	}
}

// value reads "<number> <unit>".
func (p *parser) value(n int, sc *scanner, label, unit string) (num.Number, bool) {
	v, ok := p.number(n, sc, label)
	if !ok {
		return v, false
	}
	if !sc.expect(unit) {
		p.errorf(n, "%s: want unit %q after %s, got %q", label, unit, v.Text, sc.rest())
		return v, false
	}
	return v, true
}

// number reads one printed number.
func (p *parser) number(n int, sc *scanner, label string) (num.Number, bool) {
	tok := sc.word()
	if tok == "" {
		p.errorf(n, "%s: missing number", label)
		return num.Number{}, false
	}
	v, err := parseNumber(tok)
	if err != nil {
		p.errorf(n, "%s: %v", label, err)
		return v, false
	}
	return v, true
}

// count reads "<integer> runs|tokens", a count of tokens either way:
// llama.cpp's "runs" are calls of one token each ("eval time =
// … / 399 runs (61.44 ms per token …)" decoded 399 tokens; the sampler's
// runs sampled as many), so a plan's "399 tokens" is that count.
func (p *parser) count(n int, sc *scanner, label string) (num.Number, bool) {
	c, ok := p.number(n, sc, label)
	if !ok {
		return c, false
	}
	word := sc.word()
	if word != "runs" && word != "tokens" {
		p.errorf(n, "%s: want \"runs\" or \"tokens\" after %s, got %q", label, c.Text, word)
		return c, false
	}
	if c.Decimals != 0 || math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
		p.errorf(n, "%s: count %q is not an integer", label, c.Text)
		return c, false
	}
	return c, true
}

// countAndRates reads "/ <count> <word> [( <ms> ms per token|run[, <rate>
// tokens per second] )]" and adds <countBase>_tokens, <rateBase>_ms_per_tok
// and <rateBase>_tok_s. A line may end after the time (the earliest builds
// print no count for the total), but not after "/".
func (p *parser) countAndRates(n int, sc *scanner, label, countBase, perTokBase, rateBase string) {
	if sc.done() {
		return
	}
	if !sc.expect("/") {
		p.errorf(n, "%s: want \"/ N runs|tokens\" after the time, got %q", label, sc.rest())
		return
	}
	c, ok := p.count(n, sc, label)
	if !ok {
		return
	}
	p.add(n, countBase+"_tokens", c, "tokens")
	if sc.done() {
		return
	}
	if !sc.expect("(") {
		p.errorf(n, "%s: want \"(\" after the count, got %q", label, sc.rest())
		return
	}
	per, ok := p.number(n, sc, label)
	if !ok {
		return
	}
	if !sc.expect("ms") || !sc.expect("per") {
		p.errorf(n, "%s: want \"ms per token\" after %s, got %q", label, per.Text, sc.rest())
		return
	}
	if w := sc.word(); w != "token," && w != "token" && w != "run," && w != "run" &&
		w != "token)" && w != "run)" {
		p.errorf(n, "%s: want \"token\" or \"run\" after \"ms per\", got %q", label, w)
		return
	}
	p.add(n, perTokBase+"_ms_per_tok", per, "ms/tok")
	if sc.done() || sc.expect(")") {
		return
	}
	rate, ok := p.number(n, sc, label)
	if !ok {
		return
	}
	if !sc.expect("tokens") || !sc.expect("per") || !(sc.expect("second)") || sc.expect("second")) {
		p.errorf(n, "%s: want \"tokens per second\" after %s, got %q", label, rate.Text, sc.rest())
		return
	}
	p.add(n, rateBase+"_tok_s", rate, "tok/s")
}

// cli parses the rest of "[ Prompt: <p> t/s | Generation: <g> t/s ]".
func (p *parser) cli(n int, s string) {
	const label = "llama-cli timings"
	sc := scanner{s: s}
	pr, ok := p.number(n, &sc, label)
	if !ok {
		return
	}
	if !sc.expect("t/s") || !sc.expect("|") || !sc.expect("Generation:") {
		p.errorf(n, "%s: want \"t/s | Generation:\" after %s, got %q", label, pr.Text, sc.rest())
		return
	}
	g, ok := p.number(n, &sc, label)
	if !ok {
		return
	}
	if !sc.expect("t/s") || !sc.expect("]") {
		p.errorf(n, "%s: want \"t/s ]\" after %s, got %q", label, g.Text, sc.rest())
		return
	}
	p.add(n, "cli_prompt_tok_s", pr, "tok/s")
	p.add(n, "cli_gen_tok_s", g, "tok/s")
}

// parseNumber parses a printed number, including C's "-nan" and a decimal
// comma ("285,92"), keeping the printed text.
func parseNumber(tok string) (num.Number, error) {
	if n, ok := tail.PlainDecimal(tok); ok {
		return n, nil
	}
	switch strings.ToLower(tok) {
	case "nan", "-nan", "+nan":
		return num.Number{Value: math.NaN(), Text: tok}, nil
	}
	if i := strings.IndexByte(tok, ','); i >= 0 && strings.IndexByte(tok, '.') < 0 &&
		strings.Count(tok, ",") == 1 && len(tok)-i-1 != 3 {
		// A decimal comma: one comma, not followed by a group of three.
		v, err := strconv.ParseFloat(tok[:i]+"."+tok[i+1:], 64)
		if err != nil {
			return num.Number{Text: tok}, fmt.Errorf("cannot read %q as a number", tok)
		}
		return num.Number{Value: v, Text: tok, Decimals: len(tok) - i - 1}, nil
	}
	v, err := num.Parse(tok)
	if err != nil {
		return v, fmt.Errorf("cannot read %q as a number", tok)
	}
	return v, nil
}

// scanner splits the value part of a timing line into space-separated words.
type scanner struct{ s string }

func (sc *scanner) skip() {
	for len(sc.s) > 0 && (sc.s[0] == ' ' || sc.s[0] == '\t') {
		sc.s = sc.s[1:]
	}
}

// word returns the next run of non-space bytes.
func (sc *scanner) word() string {
	sc.skip()
	i := 0
	for i < len(sc.s) && sc.s[i] != ' ' && sc.s[i] != '\t' {
		i++
	}
	w := sc.s[:i]
	sc.s = sc.s[i:]
	return w
}

// expect consumes tok, which may be glued to the next word ("(" in
// "(   2.38 ms"), if the input continues with it after spaces.
func (sc *scanner) expect(tok string) bool {
	sc.skip()
	if !strings.HasPrefix(sc.s, tok) {
		return false
	}
	sc.s = sc.s[len(tok):]
	return true
}

func (sc *scanner) done() bool {
	sc.skip()
	return sc.s == ""
}

func (sc *scanner) rest() string { sc.skip(); return sc.s }

// stripANSI removes ANSI escape sequences (colours) from s.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// PromptEcho returns the prompt echo in a llama.cpp output tail and the
// 1-based tail line it ends on: llama-cli's "> …" user echo (up to
// " ... (truncated)"), or the raw echo llama-completion prints before the
// generated text (up to " [end of text]" or the performance summary; a tail
// cut short starts inside it). It returns "" when the tail has neither. The
// echo is text, not a metric, so it is not in Parse's result; rules that
// compare it with an input file (input.archive) call this.
func PromptEcho(t string) (string, int) {
	if i := strings.Index(t, "\n> "); i >= 0 && strings.Contains(t, MarkerCLI) {
		start := i + 3
		end := strings.Index(t[start:], " ... (truncated)")
		if end < 0 {
			end = strings.Index(t[start:], "\n\n")
		}
		if end < 0 {
			return "", 0
		}
		return t[start : start+end], strings.Count(t[:start+end], "\n") + 1
	}
	end := strings.Index(t, " [end of text]")
	if end < 0 {
		end = summaryStart(t)
	}
	if end <= 0 {
		return "", 0
	}
	// The echo starts after the last log line before it ("generate: …").
	start, g := 0, -1
	if strings.HasPrefix(t, "generate: ") {
		g = 0
	}
	if i := strings.LastIndex(t[:end], "\ngenerate: "); i >= 0 {
		g = i + 1
	}
	if g >= 0 {
		nl := strings.IndexByte(t[g:end], '\n')
		if nl < 0 {
			return "", 0
		}
		start = g + nl + 1
		for start < end && t[start] == '\n' {
			start++
		}
	}
	region := strings.TrimRight(t[start:end], "\n")
	return region, strings.Count(t[:start+len(region)], "\n") + 1
}

// summaryStart returns the offset of the first line of a llama.cpp
// performance summary in t, or -1.
func summaryStart(t string) int {
	best := -1
	for _, p := range prefixes {
		if i := strings.Index(t, p.text); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return -1
	}
	return strings.LastIndexByte(t[:best], '\n') + 1
}
