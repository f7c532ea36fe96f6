// Package eval evaluates the sources of a claims table (engine/claims)
// against an archive's metrics, as text/template executes what
// text/template/parse parsed: an environment (Env: the runs' and records'
// metrics, the table's sets and constants), the values an expression
// evaluates to (Value, Item), the derivations a source may call (Funcs),
// and how precisely a value may be quoted (Bound, Compare).
//
// Precision: a quote may not be more precise than its source. A value read
// as printed (RUN:METRIC, @SET:METRIC, each(…), $NAME, a number) bounds the
// quote to the decimals it was printed with: 3,194.1900 ms does not match a
// run that printed 3194.19, though the values are equal. A derivation over
// metrics (mean, ratio, to, …) bounds the quote to the decimals of the most
// precise metric feeding it, unless the row says digits=K, which allows K
// decimals for the derivation (it never lets a quote out-print a value read
// as printed). A derivation fed by no printed value (count(@SET)) is exact.
// A scientific quote is compared by the place of its last digit
// (2.16e-07 against 2.1649e-07). A finding prints a raw value at the
// precision its source printed it (a derivation's at the quote's, capped by
// the derivation's bound), never at a finer one.
//
// An Env is built once (NewEnv) and never changes: evaluating, and the
// lookups of printed and nearest values, read it and write nothing.
package eval

import (
	"fmt"
	"maps"
	"math"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/names"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

// Item is one raw value and where it came from.
type Item struct {
	Value  float64
	Text   string // as printed where it was read ("" for a computed value)
	Unit   string // canonical unit (plan.CanonUnit), "" for none
	Run    string // run (or record) it was read from; "" for a computed value or a constant
	Metric string // metric name, or "$name" for a constant
	Line   int    // line in the run's tail
	// Origin is, for a value a claims row derives, the row's place and
	// line ("§7.1 #5, PLAN.claims:97"); "" for a value read from a run.
	Origin string
}

// Where describes the item's source: "run: metric (line N)".
func (it Item) Where() string {
	switch {
	case it.Run != "" && it.Line > 0:
		return fmt.Sprintf("%s: %s (tail line %d)", it.Run, it.Metric, it.Line)
	case it.Run != "":
		return it.Run + ": " + it.Metric
	}
	return it.Metric
}

// Label names the item's source in a list of candidates: "run: metric",
// or for a value a claims row derives, "derivation, place, file:line".
func (it Item) Label() string {
	switch {
	case it.Run != "":
		return it.Run + ": " + it.Metric
	case it.Origin != "":
		return it.Metric + ", " + it.Origin
	}
	return it.Metric
}

// Kind is the shape of a value.
type Kind int

// Value kinds.
const (
	Scalar Kind = iota // one number
	List               // one number per run of a set
	Pair               // a range: min and max
	Runs               // a set of runs
)

// Value is what an expression evaluates to.
type Value struct {
	Kind Kind
	X    Item     // Scalar
	From []Item   // Scalar: the raw items a computed value was derived from
	List []Item   // List, in archive order
	Lo   Item     // Pair
	Hi   Item     // Pair
	Runs []string // Runs
}

// Env is what expressions are evaluated against: the archive's runs and
// their parsed metrics, and the table's sets and constants. Build it with
// NewEnv and change none of its fields afterwards.
type Env struct {
	Names   []string                 // every run and record name, in archive order
	Metrics map[string]*tail.Metrics // parsed tails by name
	Table   *claims.Table
	// Tail returns a run's archived output tail ("" when there is none);
	// nil when tails are not at hand (code spans are then checked by
	// their rows only).
	Tail func(run string) string

	funcs map[string]Func
	sets  map[string]expanded // the table's sets, expanded over Names
	ix    index
}

// expanded is a declared set expanded over the archive's names: its runs,
// or why it has none.
type expanded struct {
	runs []string
	err  error
}

// NewEnv returns the environment of a table over the archive's runs and
// records (names, in archive order, and their metrics; a name may have no
// metrics). tails reads a run's output tail; it may be nil. The table's
// sets are expanded and the printed values indexed here, once.
func NewEnv(t *claims.Table, names []string, metrics map[string]*tail.Metrics, tails func(run string) string) *Env {
	env := &Env{Names: names, Metrics: metrics, Table: t, Tail: tails, funcs: funcTable(), sets: map[string]expanded{}}
	for name, s := range t.Sets {
		e := expanded{runs: s.Expand(names)}
		if len(e.runs) == 0 {
			e.err = fmt.Errorf("set @%s (%s line %d) matches no run", name, t.File, s.Line)
		}
		env.sets[name] = e
	}
	env.ix = newIndex(names, metrics)
	return env
}

// Set returns the runs of a named set.
func (env *Env) Set(name string) ([]string, error) {
	e, ok := env.sets[name]
	if !ok {
		var declared []string
		for k := range maps.Keys(env.Table.Sets) {
			declared = append(declared, "@"+k)
		}
		return nil, fmt.Errorf("unknown set @%s%s", name, names.DidYouMean("@"+name, declared))
	}
	return e.runs, e.err
}

func (env *Env) metric(run, name string) (Item, error) {
	ms, ok := env.Metrics[run]
	if !ok {
		return Item{}, fmt.Errorf("no run %q in the archive%s", run, names.DidYouMean(run, env.Names))
	}
	ref, err := claims.ParseRef(name)
	if err != nil {
		return Item{}, err
	}
	if _, ok := ms.Get(ref.Name); !ok {
		var known []string
		for _, m := range ms.List {
			known = append(known, m.Name)
		}
		return Item{}, fmt.Errorf("run %s has no metric %q%s", run, ref.Name, names.DidYouMean(ref.Name, known))
	}
	m, err := Find(ref, ms)
	if err != nil {
		return Item{}, fmt.Errorf("run %s: %v", run, err)
	}
	// The item names the metric, not its selector: the occurrence is its line.
	return Item{Value: m.Num.Value, Text: m.Num.Text, Unit: plan.CanonUnit(m.Unit), Run: run, Metric: m.Name, Line: m.Line}, nil
}

// Eval evaluates an expression.
func (env *Env) Eval(e *claims.Expr) (Value, error) {
	switch e.Op {
	case claims.OpNumber:
		return Value{Kind: Scalar, X: Item{Value: e.Num.Value, Text: e.Num.Text, Metric: e.Num.Text}}, nil
	case claims.OpConst:
		c := env.Table.Consts[e.Name]
		if c == nil {
			return Value{}, fmt.Errorf("unknown constant $%s", e.Name)
		}
		it := Item{Value: c.Num.Value, Text: c.Num.Text, Unit: c.Unit, Metric: "$" + c.Name}
		return Value{Kind: Scalar, X: it, From: []Item{it}}, nil
	case claims.OpMetric:
		it, err := env.metric(e.Run, e.Metric)
		if err != nil {
			return Value{}, err
		}
		return Value{Kind: Scalar, X: it, From: []Item{it}}, nil
	case claims.OpSet:
		runs, err := env.Set(e.Name)
		return Value{Kind: Runs, Runs: runs}, err
	case claims.OpSetMetric:
		runs, err := env.Set(e.Name)
		if err != nil {
			return Value{}, err
		}
		v := Value{Kind: List}
		for _, r := range runs {
			it, err := env.metric(r, e.Metric)
			if err != nil {
				return Value{}, fmt.Errorf("@%s: %v", e.Name, err)
			}
			v.List = append(v.List, it)
		}
		return v, nil
	case claims.OpWord:
		return Value{Kind: Scalar, X: Item{Metric: e.Name, Value: math.NaN()}}, nil
	case claims.OpCall:
		f, ok := env.funcs[e.Name]
		if !ok {
			return Value{}, fmt.Errorf("unknown derivation %s", e.Name)
		}
		args := make([]Value, len(e.Args))
		for i, a := range e.Args {
			v, err := env.Eval(a)
			if err != nil {
				return Value{}, err
			}
			args[i] = v
		}
		v, err := f.Eval(args, e.Args)
		if err != nil {
			return Value{}, fmt.Errorf("%s: %v", e.Name, err)
		}
		return v, nil
	}
	return Value{}, fmt.Errorf("bad expression %v", e)
}

// Items returns every raw item a value was read or derived from.
func (v Value) Items() []Item {
	switch v.Kind {
	case Scalar:
		if len(v.From) > 0 {
			return v.From
		}
		return []Item{v.X}
	case List:
		return v.List
	case Pair:
		return []Item{v.Lo, v.Hi}
	}
	return nil
}

// Describe says where a value, the value of e, came from, for a finding's
// Source: "run: metric (tail line N)", or e with the runs and constants
// that fed it.
func (v Value) Describe(e *claims.Expr) string {
	var where []string
	for _, it := range v.Items() {
		if it.Run != "" || strings.HasPrefix(it.Metric, "$") {
			where = append(where, it.Where())
		}
	}
	if e.Op == claims.OpMetric && len(where) == 1 {
		return where[0]
	}
	if len(where) > 4 {
		where = append(where[:4], fmt.Sprintf("… %d more", len(where)-4))
	}
	if len(where) == 0 {
		return e.String()
	}
	return e.String() + " [" + strings.Join(where, "; ") + "]"
}
