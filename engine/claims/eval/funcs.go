package eval

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/unit"
)

// Func is a derivation: a named, documented computation over metrics that
// a claims row may use as its source.
type Func struct {
	Name    string
	Doc     string
	MinArgs int
	MaxArgs int // -1: any number
	Eval    func(args []Value, exprs []*claims.Expr) (Value, error)
}

// Signature returns what the grammar checks of a call of f.
func (f Func) Signature() claims.Signature {
	return claims.Signature{Name: f.Name, MinArgs: f.MinArgs, MaxArgs: f.MaxArgs}
}

// Funcs returns the derivations, sorted by name: a new table on each call,
// so that no caller changes another's.
func Funcs() []Func {
	fs := derivations()
	slices.SortFunc(fs, func(a, b Func) int { return strings.Compare(a.Name, b.Name) })
	return fs
}

// Signatures returns the derivations' signatures, for claims.Parse.
func Signatures() claims.Funcs {
	out := claims.Funcs{}
	for _, f := range derivations() {
		out[f.Name] = f.Signature()
	}
	return out
}

// funcTable returns the derivations by name.
func funcTable() map[string]Func {
	out := map[string]Func{}
	for _, f := range derivations() {
		out[f.Name] = f
	}
	return out
}

// scalar returns arg i as one number: a scalar, or a list of one.
func scalar(args []Value, i int) (Item, []Item, error) {
	v := args[i]
	switch {
	case v.Kind == Scalar && !math.IsNaN(v.X.Value):
		return v.X, v.Items(), nil
	case v.Kind == List && len(v.List) == 1:
		return v.List[0], v.List, nil
	}
	return Item{}, nil, fmt.Errorf("argument %d is not a number", i+1)
}

func list(args []Value, i int) ([]Item, error) {
	v := args[i]
	switch v.Kind {
	case List:
		return v.List, nil
	case Scalar:
		return []Item{v.X}, nil
	}
	return nil, fmt.Errorf("argument %d is not a list of values", i+1)
}

// computed builds a scalar computed from the given inputs.
func computed(x float64, unit string, from ...[]Item) Value {
	v := Value{Kind: Scalar, X: Item{Value: x, Unit: unit}}
	for _, f := range from {
		v.From = append(v.From, f...)
	}
	return v
}

// binary returns a derivation of two numbers.
func binary(name, doc string, unit func(a, b string) string, f func(a, b float64) (float64, error)) Func {
	return binaryExpr(name, doc, func(a, b string, _ *claims.Expr) string { return unit(a, b) }, f)
}

// binaryExpr is binary for a unit that depends on how the second argument
// is written (a literal divisor that converts units).
func binaryExpr(name, doc string, unit func(a, b string, bx *claims.Expr) string, f func(a, b float64) (float64, error)) Func {
	return Func{Name: name, Doc: doc, MinArgs: 2, MaxArgs: 2, Eval: func(args []Value, exprs []*claims.Expr) (Value, error) {
		a, fa, err := scalar(args, 0)
		if err != nil {
			return Value{}, err
		}
		b, fb, err := scalar(args, 1)
		if err != nil {
			return Value{}, err
		}
		x, err := f(a.Value, b.Value)
		if err != nil {
			return Value{}, err
		}
		return computed(x, unit(a.Unit, b.Unit, exprs[1]), fa, fb), nil
	}}
}

// unary returns a derivation of one number.
func unary(name, doc string, unit func(a string) string, f func(a float64) float64) Func {
	return Func{Name: name, Doc: doc, MinArgs: 1, MaxArgs: 1, Eval: func(args []Value, _ []*claims.Expr) (Value, error) {
		a, fa, err := scalar(args, 0)
		if err != nil {
			return Value{}, err
		}
		return computed(f(a.Value), unit(a.Unit), fa), nil
	}}
}

func nonzero(b float64) error {
	if b == 0 {
		return fmt.Errorf("division by zero")
	}
	return nil
}

func same(a, b string) string {
	if a == b {
		return a
	}
	return ""
}
func keep(a string) string { return a }

// derivations returns every derivation, in the order they are documented.
func derivations() []Func {
	return []Func{{Name: "range", Doc: "range(@SET:METRIC): min–max of a metric over every run of a set", MinArgs: 1, MaxArgs: 1,
		Eval: func(args []Value, _ []*claims.Expr) (Value, error) {
			l, err := list(args, 0)
			if err != nil || len(l) == 0 {
				return Value{}, fmt.Errorf("want a non-empty list")
			}
			return PairOf(l), nil
		}},
		{Name: "each", Doc: "each(@SET:METRIC): the value every run of a set has (fails if two differ)", MinArgs: 1, MaxArgs: 1,
			Eval: func(args []Value, _ []*claims.Expr) (Value, error) {
				l, err := list(args, 0)
				if err != nil || len(l) == 0 {
					return Value{}, fmt.Errorf("want a non-empty list")
				}
				for _, it := range l[1:] {
					if it.Value != l[0].Value {
						return Value{}, fmt.Errorf("runs differ: %s = %v, %s = %v", l[0].Run, l[0].Value, it.Run, it.Value)
					}
				}
				return Value{Kind: Scalar, X: l[0], From: l}, nil
			}},
		{Name: "count", Doc: "count(@SET): the number of runs in a set", MinArgs: 1, MaxArgs: 1,
			Eval: func(args []Value, _ []*claims.Expr) (Value, error) {
				switch v := args[0]; v.Kind {
				case Runs:
					return Value{Kind: Scalar, X: Item{Value: float64(len(v.Runs)), Unit: "runs"}}, nil
				case List:
					return computed(float64(len(v.List)), "runs", v.List), nil
				}
				return Value{}, fmt.Errorf("want a set")
			}},
		{Name: "mean", Doc: "mean(@SET:METRIC): the macro mean (equal weight per run)", MinArgs: 1, MaxArgs: 1,
			Eval: func(args []Value, _ []*claims.Expr) (Value, error) {
				l, err := list(args, 0)
				if err != nil || len(l) == 0 {
					return Value{}, fmt.Errorf("want a non-empty list")
				}
				s := 0.0
				for _, it := range l {
					s += it.Value
				}
				return computed(s/float64(len(l)), l[0].Unit, l), nil
			}},
		{Name: "add", Doc: "add(a, b, …): a + b + …", MinArgs: 2, MaxArgs: -1,
			Eval: func(args []Value, _ []*claims.Expr) (Value, error) {
				var from []Item
				s, unit := 0.0, ""
				for i := range args {
					a, fa, err := scalar(args, i)
					if err != nil {
						return Value{}, err
					}
					if i == 0 {
						unit = a.Unit
					} else {
						unit = same(unit, a.Unit)
					}
					s += a.Value
					from = append(from, fa...)
				}
				return computed(s, unit, from), nil
			}},
		binary("sub", "sub(a, b): a − b", same, func(a, b float64) (float64, error) { return a - b, nil }),
		binary("pure_gpu", "pure_gpu(T1_GPU, HOST_WAIT): pure GPU time = T1 GPU − host wait", same,
			func(a, b float64) (float64, error) { return a - b, nil }),
		binary("miss_reduction", "miss_reduction(a, b): 100 × (1 − a/b), in %", func(_, _ string) string { return "%" },
			func(a, b float64) (float64, error) { return 100 * (1 - a/b), nonzero(b) }),
		binary("change", "change(from, to): 100 × (to − from)/from, in % (negative for a drop)", func(_, _ string) string { return "%" },
			func(a, b float64) (float64, error) { return 100 * (b - a) / a, nonzero(a) }),
		binary("ratio", "ratio(a, b): a / b, as a factor (×)", func(_, _ string) string { return "×" },
			func(a, b float64) (float64, error) { return a / b, nonzero(b) }),
		binaryExpr("div", "div(a, b): a / b (a per-token unit when b counts tokens: MB / tokens = MB/tok; a literal b that converts a's unit gives the other unit: µs/tok / 1000 = ms/tok)",
			divUnit, func(a, b float64) (float64, error) { return a / b, nonzero(b) }),
		binary("mul", "mul(a, b): a × b", func(a, b string) string {
			if b == "" {
				return a
			}
			if a == "" {
				return b
			}
			return ""
		}, func(a, b float64) (float64, error) { return a * b, nil }),
		unary("ceil", "ceil(x): x rounded up", keep, math.Ceil),
		unary("floor", "floor(x): x rounded down", keep, math.Floor),
		unary("gib_to_gb", "gib_to_gb(x): GiB to GB (× 1.073741824)", func(string) string { return "GB" },
			func(a float64) float64 { return a * (1 << 30) / 1e9 }),
		unary("gb_to_gib", "gb_to_gib(x): GB to GiB (÷ 1.073741824)", func(string) string { return "GiB" },
			func(a float64) float64 { return a * 1e9 / (1 << 30) }),
		{Name: "to", Doc: "to(x, UNIT): x converted to UNIT, a unit of x's dimension (engine/unit: ns us ms s min h; B KB KiB MB MiB GB GiB TB TiB; ratios such as ms/tok, us/tok, GB/s, tok/s)", MinArgs: 2, MaxArgs: 2,
			Eval: func(args []Value, exprs []*claims.Expr) (Value, error) {
				a, fa, err := scalar(args, 0)
				if err != nil {
					return Value{}, err
				}
				if exprs[1].Op != claims.OpWord {
					return Value{}, fmt.Errorf("second argument must be a unit")
				}
				to, err := unit.Parse(exprs[1].Name)
				if err != nil {
					return Value{}, fmt.Errorf("second argument: %v", err)
				}
				from, err := unit.Parse(a.Unit)
				if err != nil {
					return Value{}, fmt.Errorf("first argument: %v", err)
				}
				x, err := unit.Convert(a.Value, from, to)
				if err != nil {
					return Value{}, fmt.Errorf("cannot convert %q to %q: %v", a.Unit, exprs[1].Name, err)
				}
				return computed(x, to.String(), fa), nil
			}},
		{Name: "rate", Doc: "rate(RUN:AMOUNT, RUN:TOKENS): amount per token, divided by the same run's own token count", MinArgs: 2, MaxArgs: 2,
			Eval: func(args []Value, exprs []*claims.Expr) (Value, error) {
				if exprs[0].Op != claims.OpMetric || exprs[1].Op != claims.OpMetric {
					return Value{}, fmt.Errorf("both arguments must be RUN:METRIC")
				}
				if exprs[0].Run != exprs[1].Run {
					return Value{}, fmt.Errorf("amount from %s divided by the token count of %s: a rate divides by the run's own token count", exprs[0].Run, exprs[1].Run)
				}
				a, fa, _ := scalar(args, 0)
				b, fb, _ := scalar(args, 1)
				if err := nonzero(b.Value); err != nil {
					return Value{}, fmt.Errorf("%s: %s is 0", exprs[1].Run, exprs[1].Metric)
				}
				unit := ""
				if a.Unit != "" && !strings.Contains(a.Unit, "/") {
					unit = a.Unit + "/tok"
				}
				return computed(a.Value/b.Value, unit, fa, fb), nil
			}},
	}
}

// divUnit is the unit of a / b: a's unit over a unitless b, except that a
// literal b that converts a's unit into another of the table gives that
// unit (µs/tok ÷ 1000 is ms/tok); a per-token unit over a count of tokens
// (MB ÷ tokens = MB/tok); none otherwise.
func divUnit(a, b string, be *claims.Expr) string {
	switch {
	case b == "" && be.Op == claims.OpNumber:
		if u, err := unit.Parse(a); err == nil {
			if to, ok := unit.Between(u, be.Num.Value); ok {
				return to.String()
			}
		}
		return a
	case b == "":
		return a
	case b == "tokens" && a != "" && !strings.Contains(a, "/"):
		return a + "/tok"
	}
	return ""
}
