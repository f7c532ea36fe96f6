package eval

import (
	"math"
	"sort"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

// Printed returns the raw values, across every run, that print as the
// quoted number q (at its precision) in the given unit ("" for any unit):
// values printed at least as precisely as q that round to it.
func (env *Env) Printed(q num.Number, unit string) []Item {
	all := env.Items(unit)
	lo := q.Value - Half(q)
	i := sort.Search(len(all), func(i int) bool { return all[i].Value >= lo-1e-12 })
	var out []Item
	for ; i < len(all) && all[i].Value <= q.Value+Half(q)+1e-12; i++ {
		if n, ok := printed(all[i]); ok && lastPlace(n) <= lastPlace(q) && num.Matches(all[i].Value, q) {
			out = append(out, all[i])
		}
	}
	return out
}

// Items returns the printed values of every run and record whose unit is
// unit (all of them when unit is ""), smallest first, a value that is not
// a finite number left out. The slice is the environment's: do not change
// it.
func (env *Env) Items(unit string) []Item {
	if unit == "" {
		return env.ix.all
	}
	return env.ix.byUnit[unit]
}

// index holds the printed values of an archive, sorted by value.
type index struct {
	all    []Item
	byUnit map[string][]Item
}

// newIndex indexes the metrics of the named runs and records.
func newIndex(names []string, metrics map[string]*tail.Metrics) index {
	ix := index{byUnit: map[string][]Item{}}
	for _, name := range names {
		ms := metrics[name]
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
	return ix
}

// Nearest returns up to k raw values nearest to v among the metrics whose
// unit is unit (every metric when unit is ""), and among extra (the values
// the claims rows derive, gate.Result.Derived), nearest first.
func (env *Env) Nearest(v float64, unit string, k int, extra []Item) []Item {
	out := nearest(env.Items(unit), v, k)
	if len(extra) == 0 {
		return out
	}
	var d []Item
	for _, it := range extra {
		if unit == "" || it.Unit == unit {
			d = append(d, it)
		}
	}
	out = append(out, d...)
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].Value-v) < math.Abs(out[j].Value-v) })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// nearest returns up to k items of the sorted list l nearest to v.
func nearest(l []Item, v float64, k int) []Item {
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
