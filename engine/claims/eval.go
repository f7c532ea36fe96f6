package claims

import (
	"fmt"
	"maps"
	"math"
	"strings"

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
// their parsed metrics, and the table's sets and constants.
type Env struct {
	Names   []string                 // every run and record name, in archive order
	Metrics map[string]*tail.Metrics // parsed tails by name
	Table   *Table
	// Tail returns a run's archived output tail ("" when there is none);
	// nil when tails are not at hand (code spans are then checked by
	// their rows only).
	Tail func(run string) string

	sets    map[string][]string
	ix      *index
	derived []Item // the values the claims rows derive, set by Check
}

// Set returns the runs of a named set, expanded once.
func (env *Env) Set(name string) ([]string, error) {
	if r, ok := env.sets[name]; ok {
		return r, nil
	}
	s := env.Table.Sets[name]
	if s == nil {
		return nil, fmt.Errorf("unknown set @%s%s", name, names.DidYouMean("@"+name, sigilNames("@", maps.Keys(env.Table.Sets))))
	}
	runs := s.Expand(env.Names)
	if len(runs) == 0 {
		return nil, fmt.Errorf("set @%s (%s line %d) matches no run", name, env.Table.File, s.Line)
	}
	if env.sets == nil {
		env.sets = map[string][]string{}
	}
	env.sets[name] = runs
	return runs, nil
}

func (env *Env) metric(run, name string) (Item, error) {
	ms, ok := env.Metrics[run]
	if !ok {
		return Item{}, fmt.Errorf("no run %q in the archive%s", run, names.DidYouMean(run, env.Names))
	}
	ref, err := ParseRef(name)
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
	m, err := ref.Find(ms)
	if err != nil {
		return Item{}, fmt.Errorf("run %s: %v", run, err)
	}
	// The item names the metric, not its selector: the occurrence is its line.
	return Item{Value: m.Num.Value, Text: m.Num.Text, Unit: plan.CanonUnit(m.Unit), Run: run, Metric: m.Name, Line: m.Line}, nil
}

// Eval evaluates an expression.
func (env *Env) Eval(e *Expr) (Value, error) {
	switch e.Op {
	case OpNumber:
		return Value{Kind: Scalar, X: Item{Value: e.Num.Value, Text: e.Num.Text, Metric: e.Num.Text}}, nil
	case OpConst:
		c := env.Table.Consts[e.Name]
		if c == nil {
			return Value{}, fmt.Errorf("unknown constant $%s", e.Name)
		}
		it := Item{Value: c.Num.Value, Text: c.Num.Text, Unit: c.Unit, Metric: "$" + c.Name}
		return Value{Kind: Scalar, X: it, From: []Item{it}}, nil
	case OpMetric:
		it, err := env.metric(e.Run, e.Metric)
		if err != nil {
			return Value{}, err
		}
		return Value{Kind: Scalar, X: it, From: []Item{it}}, nil
	case OpSet:
		runs, err := env.Set(e.Name)
		return Value{Kind: Runs, Runs: runs}, err
	case OpSetMetric:
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
	case OpWord:
		return Value{Kind: Scalar, X: Item{Metric: e.Name, Value: math.NaN()}}, nil
	case OpCall:
		f := funcs[e.Name]
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

// describe says where a value came from, for a finding's Source.
func (v Value) describe(e *Expr) string {
	var where []string
	for _, it := range v.Items() {
		if it.Run != "" || strings.HasPrefix(it.Metric, "$") {
			where = append(where, it.Where())
		}
	}
	if e.Op == OpMetric && len(where) == 1 {
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
