// Package suggest proposes PLAN.claims rows for the numbers the plan gate
// (engine/gate) cannot source; tools/strataspec's -suggest prints them. It
// lives beside the program, not in the engine: the audit never suggests,
// and nothing here writes a claims table.
package suggest

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/unit"
)

// Suggestion proposes claims rows for a quote the gate cannot source: a
// number of a claim section that no row binds, or one whose row's source
// gives another value. Each candidate row has been evaluated and matches
// the quote at its precision and unit.
type Suggestion struct {
	Place string
	Quote string
	Token plan.Token // the quote's first occurrence
	Lines []int      // plan lines of the quote's occurrences at the place
	Why   string     // "unbound", or what the present row's check said
	// Rows are the candidate rows: one when the quote has a unique source,
	// several when more than one source prints it (choose one), none when
	// no run metric or derivation over at most two metrics does.
	Rows []string
	// Parts lists, per part of the quote, its candidate sources.
	Parts [][]string
	// Nearest holds, per part with no candidate, the raw values nearest
	// to it.
	Nearest [][]eval.Item

	// Keep lists the runs the quote's present row covers when that row is a
	// range over a set: a suggested set must keep every one of them (a
	// narrower set would hide the runs the quote leaves out), and no
	// per-part source is suggested in its place.
	Keep []string

	whole []string // sources for the whole quote: range(@SET:METRIC)
}

// NearestText describes the raw values nearest to part i of the quote
// (see DescribeNearest).
func (s Suggestion) NearestText(i int) string {
	if i >= len(s.Nearest) || i >= len(s.Token.Parts) {
		return ""
	}
	return eval.DescribeNearest(s.Token.Parts[i:i+1], s.Token.Units[i:i+1], s.Nearest[i:i+1])
}

// Unique reports whether the suggestion has exactly one row.
func (s Suggestion) Unique() bool { return len(s.Rows) == 1 }

// MaxCandidates is how many sources Rows lists per part of a quote.
const MaxCandidates = 6

// Rows proposes, for every quote res could not source (unbound,
// mismatched, a range that drops runs, or bound to a source that cannot be
// read: a misspelt run or metric), the claims rows that would bind
// it: a single run metric that prints the value at the quoted precision
// and unit, or, where none does, a registered derivation over at most two
// metrics (ratio, change, miss_reduction, sub, add, a unit conversion).
// Occurrences of one quote at one place make one suggestion (with n=K).
// It never writes the table.
func Rows(t *claims.Table, env *eval.Env, res *gate.Result) []Suggestion {
	type key struct{ place, quote string }
	var order []key
	groups := map[key]*Suggestion{}
	add := func(tk plan.Token, place, why string) {
		k := key{place, tk.Text}
		s := groups[k]
		if s == nil {
			s = &Suggestion{Place: place, Quote: tk.Text, Token: tk, Why: why}
			groups[k] = s
			order = append(order, k)
		}
		s.Lines = append(s.Lines, tk.Line)
	}
	for _, u := range res.Unbound {
		add(u.Token, u.Place, "unbound")
	}
	keep := map[key][]string{}
	for _, b := range res.Bindings {
		if b.Status == gate.Mismatch || b.Status == gate.DropsRuns || b.Status == gate.BadSource {
			why := b.Msg
			if !strings.Contains(why, "(claims row ") { // a bad source's message names its row
				why = fmt.Sprintf("%s (claims row %s:%d)", why, t.File, b.Row.Line)
			}
			add(b.Token, b.Place, why)
			if b.Token.Kind == plan.Range && len(b.Row.Sources) == 1 {
				k := key{b.Place, b.Token.Text}
				keep[k] = appendNew(keep[k], b.Row.MetricRuns(env)...)
			}
		}
	}
	sg := &suggester{env: env, funcs: eval.Signatures()}
	// first the run metrics that print each part; the runs they name, and
	// the runs already bound on a line, are the line's context, where a
	// derivation over two metrics is looked for
	ctx := map[int]map[string]bool{}
	addCtx := func(line int, runs ...string) {
		if ctx[line] == nil {
			ctx[line] = map[string]bool{}
		}
		for _, r := range runs {
			ctx[line][r] = true
		}
	}
	for _, b := range res.Bindings {
		if b.Status == gate.Match && b.Token.Line > 0 {
			addCtx(b.Token.Line, b.Row.MetricRuns(env)...)
		}
	}
	sg.sets = declaredSets(t, env)
	for _, k := range order {
		s := groups[k]
		s.Keep = keep[k]
		if s.Token.Kind == plan.Range && len(s.Token.Parts) == 2 {
			s.whole = sg.ranges(s.Token, s.Keep)
		}
		if len(s.Keep) > 0 {
			// a range row's quote is bound to the whole set or to nothing:
			// no source per part
			s.Parts = make([][]string, len(s.Token.Parts))
			continue
		}
		for i, p := range s.Token.Parts {
			c := sg.direct(p, s.Token.Units[i])
			s.Parts = append(s.Parts, c)
			for _, src := range c {
				if run, _, ok := strings.Cut(src, ":"); ok {
					for _, ln := range s.Lines {
						addCtx(ln, run)
					}
				}
			}
		}
	}
	out := make([]Suggestion, 0, len(order))
	for _, k := range order {
		s := groups[k]
		tk := s.Token
		opts := ""
		if len(s.Lines) > 1 {
			opts = fmt.Sprintf(" | n=%d", len(s.Lines))
		}
		// a sentence may wrap: the line before is context too
		runs := map[string]bool{}
		for _, ln := range s.Lines {
			for _, l := range []int{ln - 1, ln} {
				for r := range ctx[l] {
					runs[r] = true
				}
			}
		}
		if len(s.whole) > 0 || len(s.Keep) > 0 {
			for _, src := range s.whole {
				s.Rows = append(s.Rows, fmt.Sprintf("%s | %s | %s%s", s.Place, s.Quote, src, opts))
			}
			s.Nearest = make([][]eval.Item, len(tk.Parts))
			if len(s.whole) == 0 {
				for i, p := range tk.Parts {
					s.Nearest[i] = env.Nearest(p.Value, tk.Units[i], 3, res.Derived)
				}
			}
			out = append(out, *s)
			continue
		}
		combos := 1
		for i, p := range tk.Parts {
			if len(s.Parts[i]) == 0 {
				s.Parts[i] = sg.derived(p, tk.Units[i], runs)
			}
			if len(s.Parts[i]) == 0 {
				s.Nearest = append(s.Nearest, env.Nearest(p.Value, tk.Units[i], 3, res.Derived))
			} else {
				s.Nearest = append(s.Nearest, nil)
			}
			combos *= len(s.Parts[i])
		}
		if combos > 0 && combos <= MaxCandidates {
			for _, srcs := range product(s.Parts) {
				s.Rows = append(s.Rows, fmt.Sprintf("%s | %s | %s%s", s.Place, s.Quote, strings.Join(srcs, " ; "), opts))
			}
		}
		out = append(out, *s)
	}
	return out
}

// product returns every choice of one element per list.
func product(l [][]string) [][]string {
	out := [][]string{nil}
	for _, c := range l {
		var next [][]string
		for _, pre := range out {
			for _, x := range c {
				next = append(next, append(append([]string(nil), pre...), x))
			}
		}
		out = next
	}
	return out
}

type suggester struct {
	env   *eval.Env
	funcs claims.Funcs // the derivations a suggested source may call
	sets  []namedSet   // the table's sets, expanded
}

type namedSet struct {
	name string
	runs []string
}

// declaredSets returns the table's sets that expand to runs, by name.
func declaredSets(t *claims.Table, env *eval.Env) []namedSet {
	var out []namedSet
	for name := range t.Sets {
		if runs, err := env.Set(name); err == nil {
			out = append(out, namedSet{name, runs})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// ranges returns the sources range(@SET:METRIC) that give a quoted range
// exactly: the metric's smallest and largest value over a declared set
// that holds every run of keep.
func (sg *suggester) ranges(tk plan.Token, keep []string) []string {
	var out []string
	metrics := map[string]bool{}
	for _, it := range sg.env.Items("") {
		if it.Run != "" {
			metrics[it.Metric] = true
		}
	}
	names := make([]string, 0, len(metrics))
	for m := range metrics {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, st := range sg.sets {
		if !holds(st.runs, keep) {
			continue
		}
		for _, m := range names {
			if len(out) >= MaxCandidates {
				return out
			}
			src := fmt.Sprintf("range(@%s:%s)", st.name, m)
			e, err := claims.ParseExpr(src, sg.funcs)
			if err != nil {
				continue
			}
			v, err := sg.env.Eval(e)
			if err != nil {
				continue
			}
			row := &claims.Row{Digits: -1, Sources: []*claims.Expr{e}}
			if gate.Compare(tk, row, []eval.Value{v}, sg.env).Status == gate.Match {
				out = append(out, src)
			}
		}
	}
	return out
}

// try evaluates src and adds it to out when it prints q in unit. It
// reports false when out is full.
func (sg *suggester) try(out *[]string, q num.Number, unit, src string) bool {
	if len(*out) >= MaxCandidates {
		return false
	}
	for _, o := range *out {
		if o == src {
			return true
		}
	}
	e, err := claims.ParseExpr(src, sg.funcs)
	if err != nil {
		return true
	}
	v, err := sg.env.Eval(e)
	if err != nil || v.Kind != eval.Scalar {
		return true
	}
	if eval.Compare(q, unit, v, -1, false).OK {
		*out = append(*out, src)
	}
	return true
}

// direct returns up to MaxCandidates run metrics that print q in unit (or
// with no unit, as counts are printed).
func (sg *suggester) direct(q num.Number, unit string) []string {
	var out []string
	items := sg.env.Printed(q, unit)
	if unit != "" {
		for _, it := range sg.env.Printed(q, "") {
			if it.Unit == "" {
				items = append(items, it)
			}
		}
	}
	// a metric every run of a declared set prints as q, and no other run:
	// each(@SET:METRIC) stands for them all
	byMetric := map[string][]string{}
	for _, it := range items {
		byMetric[it.Metric] = append(byMetric[it.Metric], it.Run)
	}
	covered := map[string]bool{}
	for _, st := range sg.sets {
		for m, runs := range byMetric {
			if len(st.runs) > 1 && sameRuns(st.runs, runs) && sg.try(&out, q, unit, fmt.Sprintf("each(@%s:%s)", st.name, m)) {
				covered[m] = true
			}
		}
	}
	for _, it := range items {
		if covered[it.Metric] {
			continue
		}
		if !sg.try(&out, q, unit, it.Run+":"+it.Metric) {
			break
		}
	}
	return out
}

// holds reports whether runs holds every run of want.
func holds(runs, want []string) bool {
	for _, w := range want {
		if !slices.Contains(runs, w) {
			return false
		}
	}
	return true
}

// sameRuns reports whether a and b hold the same runs.
func sameRuns(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[string]bool{}
	for _, r := range a {
		in[r] = true
	}
	for _, r := range b {
		if !in[r] {
			return false
		}
	}
	return true
}

// conversions returns the derivations to(RUN:METRIC, UNIT) that print q in
// its unit u from a metric in another unit of u's dimension (engine/unit),
// and whether they are MaxCandidates already.
func (sg *suggester) conversions(q num.Number, u string) ([]string, bool) {
	var out []string
	to, err := unit.Parse(u)
	if err != nil || to.IsNone() {
		return nil, false
	}
	for _, from := range unit.Of(to.Dim()) {
		f, err := unit.Factor(to, from)
		if from == to || err != nil {
			continue
		}
		for _, it := range sg.env.Items(from.String()) {
			if it.Run != "" && near(it.Value, q.Value*f, q, f) && !sg.try(&out, q, u, fmt.Sprintf("to(%s:%s, %s)", it.Run, it.Metric, u)) {
				return out, true
			}
		}
	}
	return out, false
}

// derived returns up to MaxCandidates derivations that print q in unit: a
// unit conversion of one metric; or, over two metrics of the runs in
// context (the runs of the quote's line), a ratio (×), a change or miss
// reduction (%) of one metric across two runs, or a sum or difference of
// two metrics of one run in the quote's unit. Outside its line's runs a
// derivation over two metrics matches by coincidence too easily.
func (sg *suggester) derived(q num.Number, unit string, runs map[string]bool) []string {
	out, full := sg.conversions(q, unit)
	if full || len(out) > 0 || len(runs) == 0 {
		return out
	}
	var items []eval.Item
	for _, it := range sg.env.Items("") {
		if runs[it.Run] {
			items = append(items, it)
		}
	}
	type fn struct {
		name string
		f    func(a, b float64) float64
	}
	var cross []fn
	switch unit {
	case "×":
		cross = []fn{{"ratio", func(a, b float64) float64 { return a / b }}}
	case "%":
		cross = []fn{{"change", func(a, b float64) float64 { return 100 * (b - a) / a }},
			{"miss_reduction", func(a, b float64) float64 { return 100 * (1 - a/b) }}}
	}
	for _, a := range items {
		for _, b := range items {
			if a == b {
				continue
			}
			src := func(f string) string { return fmt.Sprintf("%s(%s:%s, %s:%s)", f, a.Run, a.Metric, b.Run, b.Metric) }
			if a.Unit == b.Unit && a.Run != b.Run {
				for _, f := range cross {
					if b.Value != 0 && a.Value != 0 && num.Matches(f.f(a.Value, b.Value), q) && !sg.try(&out, q, unit, src(f.name)) {
						return out
					}
				}
			}
			if unit == "" || a.Run != b.Run || a.Unit != unit || b.Unit != unit {
				continue
			}
			if num.Matches(a.Value-b.Value, q) && !sg.try(&out, q, unit, src("sub")) {
				return out
			}
			if a.Metric < b.Metric && num.Matches(a.Value+b.Value, q) && !sg.try(&out, q, unit, src("add")) {
				return out
			}
		}
	}
	return out
}

// near reports whether a raw value v, converted by factor, may print as q.
func near(v, want float64, q num.Number, factor float64) bool {
	return math.Abs(v-want) <= eval.Half(q)*factor+1e-12*math.Abs(want)
}

// appendNew appends to l the strings of add it does not hold.
func appendNew(l []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(l, a) {
			l = append(l, a)
		}
	}
	return l
}
