package claims

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/strataspec/strataspec/engine/num"
)

// Op is the kind of an expression node.
type Op int

// Expression nodes.
const (
	OpNumber    Op = iota // 100
	OpMetric              // RUN:METRIC
	OpSetMetric           // @SET:METRIC
	OpSet                 // @SET
	OpConst               // $NAME
	OpWord                // a bare word, e.g. a unit argument: to(x, MB)
	OpCall                // NAME(args…)
)

// Expr is a parsed source expression.
type Expr struct {
	Op     Op
	Num    num.Number // OpNumber
	Run    string     // OpMetric
	Metric string     // OpMetric, OpSetMetric
	Name   string     // OpSet, OpSetMetric (set), OpConst, OpWord, OpCall (function)
	Args   []*Expr    // OpCall
}

// String prints the expression in the claims table's syntax.
func (e *Expr) String() string {
	switch e.Op {
	case OpNumber:
		return e.Num.Text
	case OpMetric:
		return e.Run + ":" + e.Metric
	case OpSetMetric:
		return "@" + e.Name + ":" + e.Metric
	case OpSet:
		return "@" + e.Name
	case OpConst:
		return "$" + e.Name
	case OpWord:
		return e.Name
	}
	var args []string
	for _, a := range e.Args {
		args = append(args, a.String())
	}
	return e.Name + "(" + strings.Join(args, ", ") + ")"
}

// Walk calls f for e and every expression below it, parents first.
func (e *Expr) Walk(f func(*Expr)) { e.walk(f) }

func (e *Expr) walk(f func(*Expr)) {
	f(e)
	for _, a := range e.Args {
		a.walk(f)
	}
}

// Signature is what the grammar knows of a derivation: its name and how
// many arguments a call of it takes. The evaluator holds the derivations
// themselves (engine/claims/eval's Funcs) and gives their signatures to
// Parse, as text/template gives its functions to its parser: the grammar
// holds no table of its own.
type Signature struct {
	Name    string
	MinArgs int
	MaxArgs int // -1: any number
}

// Arity says how many arguments the derivation takes: "2", "1 to 2", "at
// least 2".
func (s Signature) Arity() string {
	switch {
	case s.MaxArgs < 0:
		return fmt.Sprintf("at least %d", s.MinArgs)
	case s.MinArgs == s.MaxArgs:
		return fmt.Sprint(s.MinArgs)
	}
	return fmt.Sprintf("%d to %d", s.MinArgs, s.MaxArgs)
}

// Funcs are the derivations a source may call, by name.
type Funcs map[string]Signature

// names returns the derivations' names, sorted.
func (fs Funcs) names() []string {
	out := make([]string, 0, len(fs))
	for n := range fs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// MaxDepth is how deeply derivations may nest in one expression. The
// deepest row of the fixtures nests 8 calls; a deeper expression is a
// syntax error, so that parsing, evaluation and printing recurse a bounded
// number of times whatever the table holds.
const MaxDepth = 32

// ParseExpr parses a source expression. A call is checked against funcs
// (its name and its number of arguments) here, so a typo is a syntax error
// with its line. Parsing is linear in the length of s, and an expression
// nested deeper than MaxDepth is an error.
func ParseExpr(s string, funcs Funcs) (*Expr, error) {
	p := &exprParser{s: s, funcs: funcs}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("unexpected %q at column %d", clip(p.s[p.i:]), p.i+1)
	}
	return e, nil
}

// errTooDeep is an expression nested deeper than MaxDepth.
type errTooDeep struct{ col int }

func (e errTooDeep) Error() string {
	return fmt.Sprintf("derivations nested deeper than %d at column %d", MaxDepth, e.col)
}

type exprParser struct {
	s     string
	i     int
	depth int // calls open at p.i
	funcs Funcs
}

func (p *exprParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c == '/' || c == '*' || c == '?' || c == '[' || c == ']' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func (p *exprParser) name() string {
	j := p.i
	for p.i < len(p.s) {
		switch {
		case isNameByte(p.s[p.i]):
			p.i++
		case strings.HasPrefix(p.s[p.i:], "µ") || strings.HasPrefix(p.s[p.i:], "μ"):
			p.i += len("µ") // a unit argument: to(x, µs/tok)
		default:
			return p.s[j:p.i]
		}
	}
	return p.s[j:p.i]
}

// metricName reads a metric reference after "RUN:" or "@SET:": a name,
// then an optional [KEY=VALUE,…] selector (any text up to the ']') and an
// optional #N occurrence (see Ref).
func (p *exprParser) metricName() (string, error) {
	j := p.i
	for p.i < len(p.s) && isNameByte(p.s[p.i]) && p.s[p.i] != '[' {
		p.i++
	}
	if p.i == j {
		return "", fmt.Errorf("missing metric after ':'")
	}
	if p.i < len(p.s) && p.s[p.i] == '[' {
		k := strings.IndexByte(p.s[p.i:], ']')
		if k < 0 {
			return "", fmt.Errorf("missing ']' in metric %s", clip(p.s[j:]))
		}
		p.i += k + 1
	}
	if p.i < len(p.s) && p.s[p.i] == '#' {
		p.i++
		for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
			p.i++
		}
	}
	m := p.s[j:p.i]
	if _, err := ParseRef(m); err != nil {
		return "", err
	}
	return m, nil
}

func (p *exprParser) expr() (*Expr, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("empty expression")
	}
	switch c := p.s[p.i]; {
	case c == '$':
		p.i++
		n := p.name()
		if !nameRE.MatchString(n) {
			return nil, fmt.Errorf("bad constant name %q", n)
		}
		return &Expr{Op: OpConst, Name: n}, nil
	case c == '@':
		p.i++
		n := p.name()
		if !nameRE.MatchString(n) {
			return nil, fmt.Errorf("bad set name %q", n)
		}
		if p.i < len(p.s) && p.s[p.i] == ':' {
			p.i++
			m, err := p.metricName()
			if err != nil {
				return nil, fmt.Errorf("@%s: %v", n, err)
			}
			return &Expr{Op: OpSetMetric, Name: n, Metric: m}, nil
		}
		return &Expr{Op: OpSet, Name: n}, nil
	case c == '-' || '0' <= c && c <= '9':
		j := p.i
		p.i++
		for p.i < len(p.s) {
			c := p.s[p.i]
			group := c == ',' && p.i+3 < len(p.s) && allDigits(p.s[p.i+1:p.i+4]) && (p.i+4 == len(p.s) || !unicode.IsDigit(rune(p.s[p.i+4])))
			if !unicode.IsDigit(rune(c)) && strings.IndexByte(".eE+-", c) < 0 && !group {
				break
			}
			p.i++
		}
		n, err := num.Parse(p.s[j:p.i])
		if err == nil && (p.i >= len(p.s) || !isNameByte(p.s[p.i]) && p.s[p.i] != ':') {
			return &Expr{Op: OpNumber, Num: n}, nil
		}
		p.i = j // a run name that starts with a digit
	}
	n := p.name()
	if n == "" {
		return nil, fmt.Errorf("unexpected %q at column %d", clip(p.s[p.i:]), p.i+1)
	}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '(' {
		f, ok := p.funcs[n]
		if !ok {
			return nil, fmt.Errorf("unknown derivation %s (known: %s)", n, strings.Join(p.funcs.names(), ", "))
		}
		if p.depth >= MaxDepth {
			return nil, errTooDeep{p.i + 1}
		}
		p.i++
		p.depth++
		defer func() { p.depth-- }()
		call := &Expr{Op: OpCall, Name: n}
		for {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ')' && len(call.Args) == 0 {
				p.i++
				break
			}
			a, err := p.expr()
			if err != nil {
				if _, deep := err.(errTooDeep); deep {
					return nil, err // said once, not once per level
				}
				return nil, fmt.Errorf("%s: %v", n, err)
			}
			call.Args = append(call.Args, a)
			p.space()
			if p.i >= len(p.s) {
				return nil, fmt.Errorf("%s: missing ')'", n)
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == ')' {
				p.i++
				break
			}
			return nil, fmt.Errorf("%s: unexpected %q at column %d", n, clip(p.s[p.i:]), p.i+1)
		}
		if len(call.Args) < f.MinArgs || f.MaxArgs >= 0 && len(call.Args) > f.MaxArgs {
			return nil, fmt.Errorf("%s: %d arguments; want %s", n, len(call.Args), f.Arity())
		}
		return call, nil
	}
	if p.i < len(p.s) && p.s[p.i] == ':' {
		p.i++
		m, err := p.metricName()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", n, err)
		}
		return &Expr{Op: OpMetric, Run: n, Metric: m}, nil
	}
	return &Expr{Op: OpWord, Name: n}, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
