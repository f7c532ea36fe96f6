package claims

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
)

// Status is the outcome of checking one row at one quote.
type Status int

// Statuses.
const (
	Match         Status = iota // the quote equals its source at the quoted precision and unit
	Mismatch                    // the source gives another value (or unit)
	DropsRuns                   // a quoted range is the range of only some runs of its set
	Stale                       // the quote is not in the plan at the row's place
	CaveatMissing               // the row names a caveat the plan does not state beside the quote
	BadSource                   // the source cannot be evaluated (run or metric gone)
	Extra                       // the quote occurs more often at its place than the row binds (n=K)
)

var statusNames = [...]string{"match", "mismatch", "drops-runs", "stale", "caveat-missing", "bad-source", "extra"}

// String returns the status's name, e.g. "match" or "drops-runs".
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Binding is the check of one row at one occurrence of its quote.
type Binding struct {
	Row     *Row
	Token   plan.Token // the quote in the plan (zero when Stale)
	Place   string     // the plan place of the quote (the row's place when Stale)
	Status  Status
	Raw     string // the source's value(s), printed like the quote
	Source  string // where the value(s) came from
	Msg     string // what is wrong, "" for a match
	Dropped []Item // DropsRuns: the runs of the set outside the quoted range
	// Elsewhere holds, for a Mismatch, per part of the quote, the raw values
	// of any run that print as that part in its unit (empty: in no run).
	Elsewhere [][]Item
	// PartOK says, per part of the quote, whether it equals its source.
	PartOK []bool
}

// Unbound is a number in a claim section that no row binds.
type Unbound struct {
	Token   plan.Token
	Place   string
	Nearest [][]Item // per part, the nearest raw values with a compatible unit
}

// Result is the check of a plan against a claims table.
type Result struct {
	Bindings []Binding
	Unbound  []Unbound
	// PlanErrors are the plan's reading errors on lines in claim sections.
	PlanErrors []*plan.Error
	// MissingSections are declared claim sections with no heading in the plan.
	MissingSections []Section
}

type tokRef struct {
	tok   plan.Token
	place string
	claim bool // in a claim section
	bound bool
}

// Check checks every row of t against doc and the archive in env, and finds
// the numbers of the claim sections that no row binds.
func Check(doc *plan.Doc, t *Table, env *Env) *Result {
	res := &Result{}
	inClaim := func(place string) bool {
		for _, s := range t.Sections {
			if place != "" && plan.InPlace(place, s.Place) {
				return true
			}
		}
		return false
	}
	for _, s := range t.Sections {
		found := false
		for _, sec := range doc.Sections {
			if plan.InPlace(sec.Place(), s.Place) {
				found = true
				break
			}
		}
		if !found {
			res.MissingSections = append(res.MissingSections, s)
		}
	}
	byText := map[string][]*tokRef{}
	var claimToks []*tokRef
	for i := range doc.Lines {
		l := &doc.Lines[i]
		if l.Section == nil || len(l.Tokens) == 0 {
			continue
		}
		place := l.Section.Place()
		claim := inClaim(place)
		for _, tk := range l.Tokens {
			r := &tokRef{tok: tk, place: place, claim: claim}
			byText[tk.Text] = append(byText[tk.Text], r)
			if claim {
				claimToks = append(claimToks, r)
			}
		}
	}
	for _, e := range doc.Errors {
		if inClaim(doc.Place(e.Line)) {
			res.PlanErrors = append(res.PlanErrors, e)
		}
	}
	for _, row := range t.Rows {
		var refs []*tokRef
		for _, r := range byText[row.Quote] {
			if plan.InPlace(r.place, row.Place) {
				refs = append(refs, r)
			}
		}
		if len(refs) == 0 {
			res.Bindings = append(res.Bindings, Binding{Row: row, Place: row.Place, Status: Stale,
				Msg: fmt.Sprintf("%s: %q is no longer in the plan (claims row %s:%d)", row.Place, row.Quote, t.File, row.Line)})
			continue
		}
		if len(refs) < row.N {
			res.Bindings = append(res.Bindings, Binding{Row: row, Place: row.Place, Status: Stale,
				Msg: fmt.Sprintf("%s: %q occurs %d times in the plan; claims row %s:%d binds %d (n=%d)", row.Place, row.Quote, len(refs), t.File, row.Line, row.N, row.N)})
		}
		vals, srcs, evalErr := evalRow(env, row)
		for _, r := range refs {
			r.bound = true
			b := Binding{Row: row, Token: r.tok, Place: r.place}
			switch {
			case len(refs) > row.N:
				b.Status, b.Msg = Extra, fmt.Sprintf("%s: %q occurs %d times; claims row %s:%d binds %d (n=%d): an edit or a copy made another, or the row needs n=%d", r.place, row.Quote, len(refs), t.File, row.Line, row.N, row.N, len(refs))
			case evalErr != nil:
				b.Status, b.Msg = BadSource, fmt.Sprintf("%s: source of %q cannot be read: %v", r.place, row.Quote, evalErr)
			default:
				compare(&b, vals, srcs, env)
			}
			if b.Status == Match {
				var missing []string
				for _, id := range row.Caveats {
					if _, ok := doc.Caveat(id, r.place); !ok {
						missing = append(missing, "("+id+")")
					}
				}
				if len(missing) > 0 {
					b.Status = CaveatMissing
					b.Msg = fmt.Sprintf("%s: claims row %s:%d names caveat %s, which the plan does not state in %s", r.place, t.File, row.Line, strings.Join(missing, ", "), r.place)
				}
			}
			res.Bindings = append(res.Bindings, b)
		}
	}
	for _, r := range claimToks {
		if r.bound {
			continue
		}
		u := Unbound{Token: r.tok, Place: r.place}
		for i, p := range r.tok.Parts {
			u.Nearest = append(u.Nearest, env.Nearest(p.Value, r.tok.Units[i], 3))
		}
		res.Unbound = append(res.Unbound, u)
	}
	return res
}

func evalRow(env *Env, row *Row) ([]Value, []string, error) {
	var vals []Value
	var srcs []string
	for _, e := range row.Sources {
		v, err := env.Eval(e)
		if err != nil {
			return nil, nil, err
		}
		vals = append(vals, v)
		srcs = append(srcs, v.describe(e))
	}
	return vals, srcs, nil
}

// sep returns the joiner a token's parts are printed with.
func sep(k plan.Kind) string {
	switch k {
	case plan.Range:
		return "–"
	case plan.Arrow:
		return " → "
	case plan.Sum:
		return " + "
	case plan.PlusMinus:
		return " ± "
	}
	return " "
}

// Format prints v like the quoted number q: same decimals, scientific if q
// is, thousands separators if q has them.
func Format(v float64, q num.Number) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case q.Sci:
		return strconv.FormatFloat(v, 'e', q.Decimals, 64)
	case strings.Contains(q.Text, ","):
		return num.Format(v, q.Decimals)
	}
	s := strconv.FormatFloat(num.Round(v, q.Decimals), 'f', q.Decimals, 64)
	if strings.HasPrefix(q.Text, "−") && strings.HasPrefix(s, "-") {
		s = "−" + s[1:]
	}
	return s
}

func unitOK(quoted, source string) bool {
	return quoted == "" || source == "" || quoted == source
}

// withUnit appends a unit, if any, after a space: "52.60 + 24.72 %".
func withUnit(s, unit string) string {
	if unit == "" {
		return s
	}
	return s + " " + unit
}

// compare fills b from the row's evaluated sources.
func compare(b *Binding, vals []Value, srcs []string, env *Env) {
	tk := b.Token
	b.Source = strings.Join(srcs, " ; ")
	parts := tk.Parts
	switch {
	case len(vals) == len(parts):
		var raws []string
		ok := true
		var why []string
		for i, v := range vals {
			raw, good, msg := comparePart(parts[i], tk.Units[i], v)
			raws = append(raws, raw)
			b.PartOK = append(b.PartOK, good)
			if !good {
				ok = false
				why = append(why, msg)
			}
		}
		b.Raw = withUnit(strings.Join(raws, sep(tk.Kind)), tk.Unit)
		if !ok {
			b.Status = Mismatch
			b.Msg = strings.Join(why, "; ")
		}
	case len(vals) == 1 && len(parts) == 2 && tk.Kind == plan.Range:
		v := vals[0]
		if v.Kind == List {
			v = toPair(v.List)
		}
		if v.Kind != Pair {
			b.Status, b.Msg = BadSource, fmt.Sprintf("a quoted range needs a range source (range(@SET:METRIC)), got %s", b.Row.Sources[0])
			return
		}
		b.Raw = withUnit(Format(v.Lo.Value, parts[0])+"–"+Format(v.Hi.Value, parts[1]), tk.Unit)
		uok := unitOK(tk.Units[0], v.Lo.Unit)
		b.PartOK = []bool{uok && num.Matches(v.Lo.Value, parts[0]), uok && num.Matches(v.Hi.Value, parts[1])}
		if b.PartOK[0] && b.PartOK[1] {
			return
		}
		b.Status = Mismatch
		if !uok {
			b.Msg = fmt.Sprintf("unit: the quote is in %s, the source in %s", tk.Units[0], v.Lo.Unit)
			return
		}
		// a sub-range: both ends are values of runs in the set
		var loIn, hiIn bool
		for _, it := range v.List {
			loIn = loIn || num.Matches(it.Value, parts[0])
			hiIn = hiIn || num.Matches(it.Value, parts[1])
		}
		if loIn && hiIn {
			b.Status = DropsRuns
			for _, it := range v.List {
				if it.Value < parts[0].Value-half(parts[0]) || it.Value > parts[1].Value+half(parts[1]) {
					b.Dropped = append(b.Dropped, it)
				}
			}
			var names []string
			for _, it := range b.Dropped {
				names = append(names, fmt.Sprintf("%s (%s)", it.Run, Format(it.Value, parts[0])))
			}
			b.Msg = fmt.Sprintf("the range leaves out %s of its %d runs: %s", plural(len(b.Dropped), "run"), len(v.List), strings.Join(names, ", "))
			return
		}
		b.Msg = fmt.Sprintf("the runs of the set span %s", b.Raw)
	default:
		b.Status, b.Msg = BadSource, fmt.Sprintf("the row gives %d sources for a quote of %d parts", len(vals), len(parts))
		return
	}
	if b.Status == Mismatch {
		for i, p := range parts {
			b.Elsewhere = append(b.Elsewhere, env.Printed(p, tk.Units[i]))
		}
	}
}

func half(q num.Number) float64 { return 0.5 * math.Pow(10, -float64(q.Decimals)) }

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}

// toPair returns the range of a list: its smallest and largest items, the
// list kept for the runs it spans. An empty list gives the zero Value.
func toPair(l []Item) Value {
	if len(l) == 0 {
		return Value{}
	}
	v := Value{Kind: Pair, Lo: l[0], Hi: l[0], List: l}
	for _, it := range l[1:] {
		if it.Value < v.Lo.Value {
			v.Lo = it
		}
		if it.Value > v.Hi.Value {
			v.Hi = it
		}
	}
	return v
}

// comparePart compares one quoted number with one source value.
func comparePart(q num.Number, unit string, v Value) (raw string, ok bool, msg string) {
	switch v.Kind {
	case Scalar:
		raw = Format(v.X.Value, q)
		if !unitOK(unit, v.X.Unit) {
			return raw, false, fmt.Sprintf("unit: %s is quoted in %s, its source is in %s", q.Text, unit, v.X.Unit)
		}
		if !num.Matches(v.X.Value, q) {
			return raw, false, fmt.Sprintf("%s is quoted, the source gives %s", q.Text, raw)
		}
		return raw, true, ""
	case List, Pair:
		if v.Kind == List {
			v = toPair(v.List)
		}
		lo, hi := Format(v.Lo.Value, q), Format(v.Hi.Value, q)
		if lo == hi {
			raw = lo
		} else {
			raw = lo + "–" + hi
		}
		if !unitOK(unit, v.Lo.Unit) {
			return raw, false, fmt.Sprintf("unit: %s is quoted in %s, its source is in %s", q.Text, unit, v.Lo.Unit)
		}
		if lo != hi || !num.Matches(v.Lo.Value, q) {
			return raw, false, fmt.Sprintf("%s is quoted as one number, its runs span %s", q.Text, raw)
		}
		return raw, true, ""
	}
	return "", false, "the source is a set of runs, not a number"
}

// Printed returns the raw values, across every run, that print as the
// quoted number q (at its precision) in the given unit ("" for any unit).
func (env *Env) Printed(q num.Number, unit string) []Item {
	ix := env.index()
	all := ix.all
	if unit != "" {
		all = ix.byUnit[unit]
	}
	lo := q.Value - half(q)
	i := sort.Search(len(all), func(i int) bool { return all[i].Value >= lo-1e-12 })
	var out []Item
	for ; i < len(all) && all[i].Value <= q.Value+half(q)+1e-12; i++ {
		if num.Matches(all[i].Value, q) {
			out = append(out, all[i])
		}
	}
	return out
}

type index struct {
	all    []Item
	byUnit map[string][]Item
}

func (env *Env) index() *index {
	if env.ix != nil {
		return env.ix
	}
	ix := &index{byUnit: map[string][]Item{}}
	for _, name := range env.Names {
		ms := env.Metrics[name]
		if ms == nil {
			continue
		}
		for _, m := range ms.List {
			it := Item{Value: m.Num.Value, Text: m.Num.Text, Unit: plan.CanonUnit(m.Unit), Run: name, Metric: m.Name, Line: m.Line}
			if math.IsNaN(it.Value) || math.IsInf(it.Value, 0) {
				continue
			}
			ix.all = append(ix.all, it)
			ix.byUnit[it.Unit] = append(ix.byUnit[it.Unit], it)
		}
	}
	less := func(l []Item) func(i, j int) bool {
		return func(i, j int) bool { return l[i].Value < l[j].Value }
	}
	sort.SliceStable(ix.all, less(ix.all))
	for _, l := range ix.byUnit {
		sort.SliceStable(l, less(l))
	}
	env.ix = ix
	return ix
}

// Nearest returns up to k raw values nearest to v among the metrics whose
// unit is unit (every metric when unit is ""), nearest first.
func (env *Env) Nearest(v float64, unit string, k int) []Item {
	ix := env.index()
	l := ix.all
	if unit != "" {
		l = ix.byUnit[unit]
	}
	i := sort.Search(len(l), func(i int) bool { return l[i].Value >= v })
	var out []Item
	a, b := i-1, i
	for len(out) < k && (a >= 0 || b < len(l)) {
		if b >= len(l) || a >= 0 && v-l[a].Value <= l[b].Value-v {
			out = append(out, l[a])
			a--
		} else {
			out = append(out, l[b])
			b++
		}
	}
	return out
}
