package gate

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/stats"
	"github.com/strataspec/strataspec/engine/tail"
)

// Significance of comparisons.
//
// A row whose sources compare two metrics (an arrow pair "A:m ; B:m", a
// ratio(A:m, B:m), any derivation over two metric values) of which at least
// one carries repeated samples (llama-bench's samples_ts; see
// tail.Metric.Samples) is tested as benchstat tests a difference: the
// Mann-Whitney U test at α = 0.05 (engine/stats), with the ratio of the
// medians and its 95% interval. A side without samples counts as one
// sample. A difference that is not significant, or samples too few to show
// one (fewer than 4 a side), fails the row (status CaveatMissing, the
// message carrying U and p) unless the row names a caveat, which the plan
// must then state beside the quote. A significant difference passes; its U
// and p are appended to the binding's Raw, so that the pass finding shows
// them.
//
// The two metrics' configurations (every field of a llama-bench row that is
// not a result) are compared too: the fields they differ in are named in
// the message, since two rows are like for like only when they agree on
// every one of them.

// Significance is the test of one compared pair.
type Significance struct {
	A, B       eval.Item // the compared values, in source order
	Comparison stats.Comparison
	Err        error    // the test could not be made (all samples equal, ...)
	Unlike     []string // configuration fields A and B differ in
}

// Passed reports whether the difference is significant.
func (s *Significance) Passed() bool { return s.Err == nil && s.Comparison.Significant }

// String prints the test: "Mann-Whitney U=2, p=0.03175, n=5+5; …".
func (s *Significance) String() string {
	msg := s.Comparison.String()
	if s.Err != nil {
		msg += " (" + s.Err.Error() + ")"
	}
	if len(s.Unlike) > 0 {
		msg += "; configurations differ in " + strings.Join(s.Unlike, ", ")
	}
	return msg
}

// sampled returns the metric an item was read from, when it has samples or
// a configuration.
func sampled(env *eval.Env, it eval.Item) (tail.Metric, bool) {
	if it.Run == "" {
		return tail.Metric{}, false
	}
	ms := env.Metrics[it.Run]
	if ms == nil {
		return tail.Metric{}, false
	}
	for _, m := range ms.List {
		if m.Name == it.Metric && m.Line == it.Line && m.Detail != nil {
			return m, true
		}
	}
	return tail.Metric{}, false
}

// significance tests the compared pair of a row's values, if the row
// compares two metrics one of which has samples; nil otherwise.
func significance(env *eval.Env, row *claims.Row, vals []eval.Value) *Significance {
	var items []eval.Item
	seen := map[string]bool{}
	for _, v := range vals {
		for _, it := range v.Items() {
			key := fmt.Sprintf("%s\x00%s\x00%d", it.Run, it.Metric, it.Line)
			if it.Run == "" || seen[key] {
				continue
			}
			seen[key] = true
			items = append(items, it)
		}
	}
	if len(items) != 2 {
		return nil
	}
	ma, okA := sampled(env, items[0])
	mb, okB := sampled(env, items[1])
	if len(ma.Samples()) == 0 && len(mb.Samples()) == 0 {
		return nil
	}
	sample := func(m tail.Metric, ok bool, it eval.Item) []float64 {
		if ok && len(m.Samples()) > 0 {
			return m.Samples()
		}
		return []float64{it.Value}
	}
	if quotedInverse(row) {
		// ratio(X, Y) quotes X/Y: the test's ratio of medians (B over A)
		// is printed in the quoted direction when X is B.
		items[0], items[1] = items[1], items[0]
		ma, mb, okA, okB = mb, ma, okB, okA
	}
	s := &Significance{A: items[0], B: items[1]}
	s.Comparison, s.Err = stats.Compare(sample(ma, okA, items[0]), sample(mb, okB, items[1]))
	if okA && okB {
		s.Unlike = llamacpp.Unlike(ma.Config(), mb.Config())
	}
	return s
}

// quotedInverse reports whether a row's values quote the first compared
// metric over the second (ratio(X, Y) = X/Y), the inverse of the test's
// ratio of medians, which is the second side's over the first's.
func quotedInverse(row *claims.Row) bool {
	return row != nil && len(row.Sources) == 1 && row.Sources[0].Op == claims.OpCall && row.Sources[0].Name == "ratio"
}

// checkSignificance applies the significance test to a matched binding.
func checkSignificance(env *eval.Env, b *Binding, vals []eval.Value, file string) {
	s := significance(env, b.Row, vals)
	if s == nil {
		return
	}
	b.Significance = s
	if s.Passed() {
		b.Raw += " (significant: " + s.String() + ")"
		return
	}
	if len(b.Row.Caveats) > 0 {
		b.Raw += " (not significant, caveat stated: " + s.String() + ")"
		return
	}
	why := "do not differ significantly at α = 0.05"
	if s.Comparison.TooFew {
		why = fmt.Sprintf("are too few to show a difference at α = 0.05 (need ≥ %d samples a side)", stats.MinDetect)
	}
	b.Status = CaveatMissing
	b.Msg = fmt.Sprintf("%s: %s compares %s and %s, whose samples %s: %s; name a caveat the plan states beside it (claims row %s:%d), or measure more repetitions",
		b.Place, b.Token.Text, s.A.Where(), s.B.Where(), why, s.String(), file, b.Row.Line)
}
