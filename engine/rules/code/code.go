// Package code holds the rule about literals in a checkout's source code:
// a derived rate divides by a count read from the run, not a constant, and
// no number the plan quotes is hard-coded where the spec says the derived
// numbers are computed. The rule reads only the functions and keys the
// checkout's spec names (the runner's derivation lines, the sizing
// functions): a helper elsewhere in the sources is none of its business.
package code

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/source"
)

// Config is the rule's settings, "rules": {"code": {…}} in the spec file.
type Config struct {
	// Scope lists the functions and keys whose literals matter.
	Scope []Scope `json:"scope"`
	// Stale lists log texts an earlier audit found stale: they must appear
	// in no run's output (and, unless InSourceOK, in no source).
	Stale []Stale `json:"stale,omitempty"`
	// Note is appended to the message of the quoted-number pass, in
	// parentheses: what the checkout's audit looked for.
	Note string `json:"note,omitempty"`
}

// Scope is one function or key of one source file.
type Scope struct {
	File string `json:"file"`
	// Function names a function (its name, or Class::name).
	Function string `json:"function,omitempty"`
	// Key names an assignment target or a string key whose expression
	// derives a value (a results field); Block, if set, is a string the key
	// follows (the dict it belongs to).
	Key   string `json:"key,omitempty"`
	Block string `json:"block,omitempty"`
}

// String names the scope for messages: "file: name()" or "file: \"key\"".
func (s Scope) String() string {
	switch {
	case s.Function != "":
		return s.File + ": " + s.Function + "()"
	case s.Block != "":
		return fmt.Sprintf("%s: %q in %q", s.File, s.Key, s.Block)
	}
	return fmt.Sprintf("%s: %q", s.File, s.Key)
}

// Stale is a log text that must not come back.
type Stale struct {
	Text string `json:"text"`
	// InSourceOK allows the text in a source branch the runs do not take.
	InSourceOK bool `json:"in_source_ok,omitempty"`
}

// Code is the rule.
var Code = &analysis.Analyzer{
	Name:     "code",
	Doc:      "no number the plan quotes and no divisor a derivation uses is a literal in the functions and keys the spec names; stale log texts stay gone",
	Fix:      "derive quoted numbers from the run's own counts, not from literals in the source",
	Requires: []*analysis.Analyzer{facts.Sources.Analyzer, facts.Tails.Analyzer},
	Uses:     []*analysis.Analyzer{facts.Plan.Analyzer},
	Run:      run,
}

// span is a scope found in a file.
type span struct {
	scope      Scope
	file       *source.File
	start, end int // 1-based, inclusive
}

func run(p *analysis.Pass) (any, error) {
	var cfg Config
	found, err := analysis.OptionalSettings(p, &cfg)
	if err != nil {
		return nil, err
	}
	if !found || len(cfg.Scope)+len(cfg.Stale) == 0 {
		return nil, analysis.NoSettings("the spec names no functions or keys whose literals matter (rules.code.scope in %s)", checkout.File)
	}
	srcs := facts.Sources.Of(p)
	spec := p.Spec
	spans, err := findScopes(p, spec, srcs, cfg.Scope)
	if err != nil {
		return nil, err
	}
	if len(cfg.Scope) > 0 {
		divisors(p, spans)
		if err := quoted(p, spans, cfg.Note); err != nil {
			return nil, err
		}
	}
	if len(cfg.Stale) > 0 {
		if err := stale(p, srcs, cfg.Stale); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// findScopes finds every scope in its file. A scope the sources do not
// hold is a warning: the spec names code that is not there, so its
// literals go unchecked.
func findScopes(p *analysis.Pass, spec *checkout.Spec, srcs *facts.SourceSet, scopes []Scope) ([]span, error) {
	var out []span
	for _, sc := range scopes {
		if sc.File == "" || (sc.Function == "") == (sc.Key == "") {
			return nil, spec.RuleErrorf("code", "scope: an entry needs \"file\" and one of \"function\" or \"key\" (found %+v)", sc)
		}
		f, err := srcs.File(sc.File)
		if errors.Is(err, facts.ErrAbsent) {
			p.Report(finding.Finding{Severity: finding.Warn, Check: "scope", File: sc.File, Source: checkout.File,
				Message: fmt.Sprintf("%s is not in the snapshot: the literals of %s are not checked", sc.File, sc)})
			continue
		}
		if err != nil {
			return nil, err
		}
		n := len(out)
		if sc.Function != "" {
			for _, fn := range f.FuncsNamed(sc.Function) {
				out = append(out, span{sc, f, fn.Start, fn.End})
			}
		} else if start, end, ok := f.Key(sc.Block, sc.Key); ok {
			out = append(out, span{sc, f, start, end})
		}
		if len(out) == n {
			p.Report(finding.Finding{Severity: finding.Warn, Check: "scope", File: sc.File, Source: checkout.File,
				Message: fmt.Sprintf("the spec names %s, which the file does not define: its literals are not checked", sc)})
		}
	}
	return out, nil
}

// roundUpLitRE matches a round-up to a multiple of a literal,
// ((x + 16 - 1) / 16) * 16: a tile size, which the sizing rule judges.
var roundUpLitRE = regexp.MustCompile(`\+\s*([0-9]+)\s*-\s*1\s*\)\s*/\s*([0-9]+)\s*\)\s*\*\s*([0-9]+)`)

// divisors reports every division by a numeric literal that is not a unit
// conversion, in the scopes (a rate per a fixed token count).
func divisors(p *analysis.Pass, spans []span) {
	n := 0
	seen := map[string]bool{}
	for _, s := range spans {
		for _, lit := range s.file.Divisors(s.start, s.end) {
			key := fmt.Sprintf("%s:%d:%s", s.file.Path, lit.Line, lit.Text)
			if seen[key] || roundUpLitRE.MatchString(s.file.Code[lit.Line-1]) {
				continue
			}
			seen[key] = true
			v, err := num.Parse(lit.Text)
			if err != nil || source.IsUnitDivisor(v.Value) {
				continue
			}
			n++
			p.Report(finding.Finding{Severity: finding.Fail, Check: "divisor", File: s.file.Path, Line: lit.Line,
				Quote: strings.TrimSpace(s.file.Lines[lit.Line-1]), Raw: "/ " + lit.Text, Source: s.file.Path,
				Message: fmt.Sprintf("literal divisor %s at %s:%d: a derived rate must divide by a count read from the run, not a constant", lit.Text, s.file.Path, lit.Line)})
		}
	}
	if n == 0 && len(spans) > 0 {
		p.Report(finding.Finding{Severity: finding.Pass, Check: "divisor", File: spans[0].file.Path, Source: spanList(spans),
			Message: fmt.Sprintf("no literal divisor (other than unit conversions) in the %d functions and keys the spec names", len(spans))})
	}
}

// quoted reports a number the plan quotes that the scoped code hard-codes
// (the audit's "1.36 * gb"). Only numbers with a fraction or of three or
// more digits are compared: small integers (tile sizes, counts) are not
// quotes. Occurrences inside string literals (a self-test sample) are
// listed in the pass finding.
func quoted(p *analysis.Pass, spans []span, note string) error {
	doc, ok := facts.Plan.Lookup(p)
	if !ok {
		p.Report(finding.Finding{Severity: finding.Warn, Check: "quoted", Message: "no plan in the snapshot: quoted numbers cannot be looked for in the code"})
		return nil
	}
	quotes := map[float64]string{} // value → "1.36 (PLAN.md:310)"
	for _, l := range doc.Lines {
		for _, t := range l.Tokens() {
			for _, part := range t.Parts {
				if part.Decimals == 0 && part.Value < 100 && part.Value > -100 {
					continue
				}
				if _, ok := quotes[part.Value]; !ok {
					quotes[part.Value] = fmt.Sprintf("%s (%s:%d)", part.Text, doc.File, l.N)
				}
			}
		}
	}
	fails := 0
	inStrings := map[string][]string{} // literal → places
	seen := map[string]bool{}
	for _, s := range spans {
		for _, lit := range s.file.Literals(s.start, s.end) {
			key := fmt.Sprintf("%s:%d:%s:%v", s.file.Path, lit.Line, lit.Text, lit.InString)
			if seen[key] {
				continue
			}
			seen[key] = true
			v, err := num.Parse(lit.Text)
			if err != nil {
				continue
			}
			q, ok := quotes[v.Value]
			switch {
			case !ok:
			case lit.InString && v.Decimals > 0:
				inStrings[lit.Text] = append(inStrings[lit.Text], fmt.Sprintf("%s:%d", s.file.Path, lit.Line))
			case !lit.InString && (v.Decimals > 0 || v.Value >= 100):
				fails++
				p.Report(finding.Finding{Severity: finding.Fail, Check: "quoted", File: s.file.Path, Line: lit.Line,
					Quote: strings.TrimSpace(s.file.Lines[lit.Line-1]), Raw: lit.Text, Source: q,
					Message: fmt.Sprintf("%s:%d hard-codes %s, a number the plan quotes at %s", s.file.Path, lit.Line, lit.Text, q)})
			}
		}
	}
	if fails > 0 || len(spans) == 0 {
		return nil
	}
	msg := "no number the plan quotes is a literal in the functions and keys the spec names"
	if note != "" {
		msg += " (" + note + ")"
	}
	// Group the string occurrences by place: "1.36, 2.90 only inside string
	// literals at runner.py:711, runner.py:724".
	byPlace := map[string][]string{}
	for lit, places := range inStrings {
		k := strings.Join(slices.Compact(places), ", ")
		byPlace[k] = append(byPlace[k], lit)
	}
	var raw []string
	file := spans[0].file.Path
	for places, lits := range byPlace {
		sort.Strings(lits)
		raw = append(raw, fmt.Sprintf("%s only inside string literals at %s", strings.Join(lits, ", "), places))
		file = strings.SplitN(places, ":", 2)[0]
	}
	sort.Strings(raw)
	if len(raw) > 0 {
		msg += "; quoted numbers appear " + strings.Join(raw, "; ")
	}
	p.Report(finding.Finding{Severity: finding.Pass, Check: "quoted", File: file, Source: spanList(spans),
		Raw: strings.Join(raw, "; "), Message: msg})
	return nil
}

// stale checks the stale log texts against every run's tail and every
// source line.
func stale(p *analysis.Pass, srcs *facts.SourceSet, texts []Stale) error {
	tails := facts.Tails.Of(p)
	files, err := srcs.All()
	if err != nil {
		return err
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
	}
	where := "every run's tail"
	if len(names) > 0 {
		where += " and " + strings.Join(names, ", ")
	}
	for _, st := range texts {
		var inTails, inSrc []string
		found := tails.Find(st.Text)
		for _, m := range found {
			inTails = append(inTails, m.Run)
		}
		for _, f := range files {
			for i, l := range f.Lines {
				if strings.Contains(l, st.Text) {
					inSrc = append(inSrc, fmt.Sprintf("%s:%d", f.Path, i+1))
				}
			}
		}
		fd := finding.Finding{Severity: finding.Pass, Check: "stale", Quote: st.Text, Source: where}
		if len(names) > 0 {
			fd.File = names[0]
		}
		switch {
		case len(inTails) > 0:
			fd.Severity = finding.Fail
			fd.File, fd.Line = found[0].Source, found[0].Line
			fd.Raw = strings.Join(inTails, ", ")
			fd.Message = fmt.Sprintf("the stale text %q appears in the tails of %s", st.Text, strings.Join(inTails, ", "))
		case len(inSrc) > 0 && !st.InSourceOK:
			fd.Severity = finding.Fail
			fd.File = strings.SplitN(inSrc[0], ":", 2)[0]
			fd.Raw = strings.Join(inSrc, ", ")
			fd.Message = fmt.Sprintf("the stale text %q is still in the sources (%s)", st.Text, strings.Join(inSrc, ", "))
		case len(inSrc) > 0:
			fd.Raw = strings.Join(inSrc, ", ")
			fd.Message = fmt.Sprintf("%q appears in no tail; it survives only in a source branch no run took (%s)", st.Text, strings.Join(inSrc, ", "))
		default:
			fd.Message = fmt.Sprintf("%q appears in no tail and no source", st.Text)
		}
		p.Report(fd)
	}
	return nil
}

// spanList names the scopes checked: "runner.py: llama_cpp_blocks(), …".
func spanList(spans []span) string {
	var out []string
	for _, s := range spans {
		name := s.scope.String()
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return strings.Join(out, "; ")
}
