// Package format holds the formats strataspec reads run outputs and records
// in, as values in one registry: the strata engine's log, each llama.cpp
// program's output, route_parity's log and the runner's self-test, and the
// formats a checkout's spec file declares. A format turns text into metrics
// under the vocabulary's names (engine/metric); no rule asks which format
// read a run, only which metrics it has.
//
// A declared format either lists line patterns (regular expressions whose
// named groups yield metrics) or wraps another format: each line loses a
// prefix first (glog's "I1015 08:01:20.866027 4127803 main.cc:131] "), the
// wrapped format reads the rest, and its metrics may be renamed. A format
// may also split a record file into repeated blocks (six route_parity
// repeats in one transcript), each read as one record: the loader splits
// (engine/archive, by checkout.Spec.BlockStart), the format reads a block.
//
// The declarations are data in engine/checkout (checkout.Format), checked
// and compiled there; FromSpec builds their readers.
package format

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/metric"
	"github.com/strataspec/strataspec/engine/tail"
	"github.com/strataspec/strataspec/engine/unit"
)

// Built-in format names. These strings are the formats' names everywhere:
// a spec file's "programs" and "records" give them, and no other package
// spells them (spec/architecture_test.go).
const (
	Strata      = "strata"           // the strata window CLI's log
	LlamaCpp    = "llama.cpp"        // llama-cli, llama-completion, main, …
	Bench       = "llama-bench"      // llama-bench output
	Perplexity  = "llama-perplexity" // llama-perplexity, perplexity
	Server      = "llama-server"     // llama-server, server
	RouteParity = "route_parity"     // a route_parity log
	SelfTest    = "self-test"        // the validation runner's --self-test output
)

// Format is one way of reading text into metrics.
type Format struct {
	// Name is the format's name in the registry.
	Name string
	// Wraps names the format this one reads its lines with, "" for a
	// built-in or a format of line patterns.
	Wraps string
	// Doc says in one line what the format reads.
	Doc string
	// Programs are the binary names (argv[0]'s base name, without
	// ".exe") whose output the format reads; a name with a wildcard
	// (path.Match) is tried after every exact name. Built-ins only: a spec
	// file maps its programs under "programs".
	Programs []string

	parse     func(source, text string, max int) *tail.Metrics
	recognize func(text string) bool // the output is this format's, by lines only it prints
	echo      bool                   // the output echoes its prompt (llama-cli's "> …")
}

// Parse reads text (from source, for messages) into metrics, each in its
// vocabulary unit (see Normalize).
func (f *Format) Parse(source, text string) *tail.Metrics { return f.ParseMax(source, text, 0) }

// ParseMax is Parse keeping at most max metrics (0: no limit): past it the
// result is Over (tail.Metrics.Over) and the rest of text is not read.
func (f *Format) ParseMax(source, text string, max int) *tail.Metrics {
	ms := f.parse(source, text, max)
	Normalize(ms)
	return ms
}

// ParseAsPrinted is ParseMax without the conversion to the vocabulary's
// units: each metric in the unit its line prints, its text as printed, for
// a reader that rewrites the printed numbers (the fake engine's replay).
func (f *Format) ParseAsPrinted(source, text string) *tail.Metrics { return f.parse(source, text, 0) }

// EchoesPrompt reports whether the format's outputs echo the prompt they
// were given (llama.cpp's CLI), so that the echo can be checked against the
// archived prompt.
func (f *Format) EchoesPrompt() bool { return f.echo }

// Recognizes reports whether text is output of this format by lines only
// it prints; false for a format that cannot tell its output by content.
func (f *Format) Recognizes(text string) bool { return f.recognize != nil && f.recognize(text) }

// Registry holds formats by name: the built-ins and a checkout's declared
// formats. It is the one place a format is added, and the loader asks it
// which format reads a run (engine/archive.Formats).
type Registry struct {
	byName map[string]*Format
	order  []string       // built-ins first, in recognition order, then declared
	spec   *checkout.Spec // the declarations, nil for the built-ins alone
}

// Builtin returns a registry of the built-in formats, most specific first:
// the order Recognize tries them in (llama-perplexity and llama-server also
// print the summary every llama.cpp program prints).
func Builtin() *Registry {
	r := &Registry{byName: map[string]*Format{}}
	llama := func(program string) func(string, string, int) *tail.Metrics {
		return func(source, text string, max int) *tail.Metrics {
			return withRunner(llamacpp.ParseProgramMax(program, source, text, max), source, text)
		}
	}
	bins := map[string][]string{}
	for _, b := range llamacpp.Binaries() {
		f := b[1]
		switch f {
		case llamacpp.ProgramCLI, llamacpp.ProgramCompletion, llamacpp.ProgramEmbedding:
			f = LlamaCpp
		}
		bins[f] = append(bins[f], b[0])
	}
	for _, f := range []*Format{
		{Name: Strata, Doc: "the strata window CLI's log (and the runner's appended lines)", parse: tail.ParseStrataMax,
			Programs: []string{"strata_window_cli*"}},
		{Name: Perplexity, Doc: "llama-perplexity's output", parse: llama(llamacpp.ProgramPerplexity),
			Programs: bins[llamacpp.ProgramPerplexity], recognize: isPerplexity},
		{Name: Server, Doc: "llama-server's log", parse: llama(llamacpp.ProgramServer),
			Programs: bins[llamacpp.ProgramServer], recognize: isServer},
		{Name: Bench, Doc: "llama-bench's output (markdown, JSON, JSON Lines, CSV)", parse: llama(llamacpp.ProgramBench),
			Programs: bins[llamacpp.ProgramBench], recognize: func(text string) bool { return LooksLikeBench([]byte(text)) }},
		// any other example program prints the common summary: "llama-*"
		{Name: LlamaCpp, Doc: "llama-cli's, llama-completion's and the other llama.cpp programs' summary", parse: llama(llamacpp.ProgramCLI), echo: true,
			Programs: append(bins[LlamaCpp], "llama-*"), recognize: isLlamaCpp},
		{Name: RouteParity, Doc: "a route_parity log", parse: tail.ParseRouteParityMax},
		{Name: SelfTest, Doc: "the validation runner's --self-test output", parse: tail.ParseSelfTestMax},
	} {
		r.add(f)
	}
	return r
}

// withRunner adds the validation runner's appended lines (memory, disk) to
// a llama.cpp output's metrics, when the runner appended them.
func withRunner(ms *tail.Metrics, source, text string) *tail.Metrics {
	if ms.Over || !strings.Contains(text, "[runner] ") {
		return ms
	}
	return tail.Merge(ms, tail.ParseRunnerMax(source, text, ms.Max))
}

func (r *Registry) add(f *Format) {
	r.byName[f.Name] = f
	r.order = append(r.order, f.Name)
}

// Get returns the format named name.
func (r *Registry) Get(name string) (*Format, bool) {
	f, ok := r.byName[name]
	return f, ok
}

// Names returns the formats' names: built-ins first, then declared ones.
func (r *Registry) Names() []string { return slices.Clone(r.order) }

// Builtins returns the built-in formats' names, which a spec file's
// declared formats may not take (checkout.Spec.CheckFormats).
func (r *Registry) Builtins() []string {
	var out []string
	for _, n := range r.order {
		if !r.declared(n) {
			out = append(out, n)
		}
	}
	return out
}

// Builtins returns the built-in formats' names.
func Builtins() []string { return Builtin().Builtins() }

func (r *Registry) declared(name string) bool {
	if r.spec == nil {
		return false
	}
	_, ok := r.spec.Formats[name]
	return ok
}

// Program returns the format that reads the output of the program argv0
// runs, by the binary's base name (after "/" or "\", without ".exe"): the
// spec file's "programs" first, in order, then the built-ins' exact names,
// then their patterns. ok is false when none matches.
func (r *Registry) Program(argv0 string) (name string, ok bool) {
	base := path.Base(strings.ReplaceAll(argv0, "\\", "/"))
	if len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".exe") {
		base = base[:len(base)-4]
	}
	if r.spec != nil {
		for _, p := range r.spec.Programs {
			if m, _ := path.Match(p.Match, base); m {
				return p.Parser, true
			}
		}
	}
	for _, exact := range []bool{true, false} {
		for _, n := range r.order {
			for _, pat := range r.byName[n].Programs {
				if exact == strings.ContainsAny(pat, "*?[") {
					continue
				}
				if m, _ := path.Match(pat, base); m {
					return n, true
				}
			}
		}
	}
	return "", false
}

// Recognize returns the format whose output text is, by lines only that
// format prints, the most specific first; "" when none recognises it (the
// strata log is told by its program, never by content).
func (r *Registry) Recognize(text string) string {
	for _, n := range r.order {
		if r.byName[n].Recognizes(text) {
			return n
		}
	}
	return ""
}

// Base returns the built-in format name reads its lines with: name itself
// for a built-in, the built-in a declared format wraps (directly or
// through other declared formats), "" for a format of line patterns or a
// name the registry does not hold.
func (r *Registry) Base(name string) string {
	for range len(r.order) + 1 {
		f, ok := r.byName[name]
		switch {
		case !ok:
			return ""
		case f.Wraps == "" && r.declared(name):
			return ""
		case f.Wraps == "":
			return name
		}
		name = f.Wraps
	}
	return "" // a cycle, which checkout refused
}

// Strata reports whether the format name reads the strata engine's log:
// it is strata's, or wraps it.
func (r *Registry) Strata(name string) bool { return r.Base(name) == Strata }

// Seconds converts a duration v in the time unit named ("ms", "min": a time
// unit of engine/unit's table) into seconds.
func (r *Registry) Seconds(v float64, name string) (float64, error) { return unit.Seconds(v, name) }

// LlamaCpp reports whether the format name reads a llama.cpp program's
// output: one of the llama.cpp formats, or a format wrapping one.
func (r *Registry) LlamaCpp(name string) bool {
	switch r.Base(name) {
	case LlamaCpp, Bench, Perplexity, Server:
		return true
	}
	return false
}

// FromSpec returns the built-ins and the formats spec declares (checked
// and compiled by checkout.Parse), each wrapped format built before the
// formats that wrap it.
func FromSpec(spec *checkout.Spec) *Registry {
	r := Builtin()
	if spec == nil {
		return r
	}
	r.spec = spec
	var add func(name string)
	add = func(name string) {
		d, ok := spec.Formats[name]
		if !ok || r.has(name) {
			return
		}
		if d.Wrap != "" {
			add(d.Wrap) // checkout refused cycles
		}
		r.add(declared(spec, name, d, r))
	}
	for _, n := range slices.Sorted(maps.Keys(spec.Formats)) {
		add(n)
	}
	return r
}

// For returns the registry of spec's formats as the loader asks it
// (archive.Load's FormatsFor): archive.Load(root, format.For).
func For(spec *checkout.Spec) archive.Formats { return FromSpec(spec) }

// declared builds a declared format's reader: the wrapped format's, or the
// line patterns', after the prefix is removed, with the renaming applied.
func declared(spec *checkout.Spec, name string, d checkout.Format, r *Registry) *Format {
	f := &Format{Name: name, Wraps: d.Wrap, Doc: d.Doc}
	var read func(source, text string, max int) *tail.Metrics
	if inner, ok := r.Get(d.Wrap); ok {
		f.echo, read = inner.echo, inner.parse
	} else {
		pats := patterns(spec.Patterns(name))
		read = func(source, text string, max int) *tail.Metrics {
			return withRunner(tail.ParsePatterns(source, text, pats, max), source, text)
		}
	}
	prefix, rename := spec.Prefix(name), d.Metrics
	f.parse = func(source, text string, max int) *tail.Metrics {
		if prefix != nil {
			text = StripPrefix(text, prefix)
		}
		ms := read(source, text, max)
		for i := range ms.List {
			if to, ok := rename[ms.List[i].Name]; ok {
				ms.List[i].Name = to.Name
				if to.Unit != "" {
					ms.List[i].Unit = to.Unit
				}
			}
		}
		return ms
	}
	return f
}

// patterns converts a checkout's compiled line patterns for
// tail.ParsePatterns.
func patterns(ps []checkout.Pattern) []tail.Pattern {
	out := make([]tail.Pattern, len(ps))
	for i, p := range ps {
		g := make(map[string]tail.PatternMetric, len(p.Groups))
		for k, m := range p.Groups {
			g[k] = tail.PatternMetric{Name: m.Name, Unit: m.Unit}
		}
		out[i] = tail.Pattern{Re: p.Re, Groups: g}
	}
	return out
}

func (r *Registry) has(name string) bool { _, ok := r.byName[name]; return ok }

// StripPrefix removes prefix from the start of every line it matches there;
// other lines are kept as they are, so line numbers do not move.
func StripPrefix(text string, prefix *regexp.Regexp) string {
	var b strings.Builder
	b.Grow(len(text))
	for len(text) > 0 {
		line := text
		rest := ""
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, rest = text[:i+1], text[i+1:]
		}
		if loc := prefix.FindStringIndex(line); loc != nil && loc[0] == 0 {
			line = line[loc[1]:]
		}
		b.WriteString(line)
		text = rest
	}
	return b.String()
}

// Normalize puts every metric of ms that the vocabulary names into the
// vocabulary's unit: a GPU time read in µs/tok, where the vocabulary says
// ms/tok, becomes ms/tok, its printed precision moved with it (1,234.5 µs/tok
// is 1.2345 ms/tok). A metric in another spelling of the same unit ("tokens"
// for "tok") is kept as read. A unit the table does not know, or one of
// another dimension than the vocabulary's (MB for a time), is an error at
// the metric's line, and the metric is left out: no rule reads a number in
// a unit it does not hold. Metrics without a unit, and those the vocabulary
// does not name, are kept as read.
func Normalize(ms *tail.Metrics) {
	if ms == nil {
		return
	}
	keep := ms.List[:0]
	for _, m := range ms.List {
		if err := toVocabulary(&m); err != nil {
			ms.Errors = append(ms.Errors, &tail.Error{File: ms.Source, Line: m.Line, Msg: fmt.Sprintf("metric %s = %s %s: %v", m.Name, m.Num.Text, m.Unit, err)})
			continue
		}
		keep = append(keep, m)
	}
	clear(ms.List[len(keep):])
	ms.List = keep
}

// toVocabulary converts m into its vocabulary unit.
func toVocabulary(m *tail.Metric) error {
	if m.Unit == "" {
		return nil
	}
	d, ok := metric.Lookup(m.Name)
	if d.Unit == m.Unit {
		return nil
	}
	from, err := unit.Parse(m.Unit)
	if !ok || d.Unit == "" {
		return err // a metric outside the vocabulary keeps its unit, one of the table's
	}
	if err != nil {
		return err
	}
	to, err := unit.Parse(d.Unit)
	if err != nil {
		return fmt.Errorf("the vocabulary's unit: %w", err)
	}
	if from == to {
		return nil
	}
	n, err := unit.ConvertNumber(m.Num, from, to)
	if err != nil {
		return fmt.Errorf("the vocabulary reads %s in %s: %w", m.Name, d.Unit, err)
	}
	m.Num, m.Unit = n, d.Unit
	return nil
}
