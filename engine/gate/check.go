// Package gate checks a plan against its claims table: every row against
// its quote's occurrences in the plan and its source's value (Check), every
// number of a claim section that no row binds, every measurement-like
// number outside the claim sections, and the code spans that quote a
// tail. The table's grammar is engine/claims; evaluating its sources,
// engine/claims/eval.
package gate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
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

// String returns the status's name, e.g. "match" or "drops-runs".
func (s Status) String() string {
	statusNames := [...]string{"match", "mismatch", "drops-runs", "stale", "caveat-missing", "bad-source", "extra"}
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Binding is the check of one row at one occurrence of its quote.
type Binding struct {
	Row     *claims.Row
	Token   plan.Token // the quote in the plan (zero when Stale)
	Place   string     // the plan place of the quote (the row's place when Stale)
	Status  Status
	Raw     string      // the source's value(s), printed like the quote
	Source  string      // where the value(s) came from
	Msg     string      // what is wrong, "" for a match
	Dropped []eval.Item // DropsRuns: the runs of the set outside the quoted range
	// Elsewhere holds, for a Mismatch, per part of the quote, the raw values
	// of any run that print as that part in its unit (empty: in no run).
	Elsewhere [][]eval.Item
	// PartOK says, per part of the quote, whether it equals its source.
	PartOK []bool
	// Notes holds, for a Mismatch, the reasons that are not a different
	// value: a unit that differs, a quote more precise than its source.
	Notes []string
	// Significance is the test of a compared pair with samples (see
	// significance.go); nil when the row compares no sampled metrics.
	Significance *Significance
}

// Unbound is a number in a claim section that no row binds.
type Unbound struct {
	Token   plan.Token
	Place   string
	Nearest [][]eval.Item // per part, the nearest raw values with a compatible unit
}

// Uncovered is a measurement-like number (see Measurement) outside the
// claim sections, or in a fenced code block anywhere, and outside the
// sections declared not claims: a number the gate does not check.
type Uncovered struct {
	Token  plan.Token
	Place  string // the section's place, or its title where it has no number
	Fenced bool   // in a fenced code block, where no row binds a number
}

// Unreadable is a word in a claim section that holds a digit and is
// neither a number the gate reads nor an identifier (plan.Identifier), nor
// declared one (ident in the claims table).
type Unreadable struct {
	Word  plan.Word
	Place string
}

// SpanCheck is the check of a code span in a claim section that quotes
// numbers: it quotes a tail line verbatim (OK, Run set), or its numbers are
// bound by rows (OK, Run empty), or neither.
type SpanCheck struct {
	Span  plan.Span
	Line  int
	Place string
	OK    bool
	Run   string   // the run whose tail holds the span, "" when none does
	Runs  []string // the runs the span was looked for in
	Loose []string // the span's numbers no row binds, when not OK
}

// SectionCount counts the numbers of one section of the plan.
type SectionCount struct {
	Place   string `json:"place"`   // the section's place, or its title where it has no number
	Gated   int    `json:"gated"`   // numbers in a claim section or bound by a row
	Ungated int    `json:"ungated"` // measurement-like numbers outside the claim sections
	Skipped int    `json:"skipped"` // measurement-like numbers in a section declared not claims
}

// Counts counts what the gate checks: the numbers of the claim sections and
// those bound by a row (gated), the measurement-like numbers outside them
// (ungated), and those in sections declared not claims (skipped), in total
// and per section, in plan order. A section line removed from the claims
// table shows as a drop in Gated.
type Counts struct {
	Gated    int            `json:"gated"`
	Ungated  int            `json:"ungated"`
	Skipped  int            `json:"skipped"`
	Sections []SectionCount `json:"sections"`
}

// Limits on what a check lists; past them it counts. A plan line of a
// million numbers costs the memory of its text, not a finding per number.
const (
	MaxUnbound   = 1000 // unbound numbers listed (Result.Unbound)
	MaxUncovered = 1000 // ungated numbers listed (Result.Uncovered)
	MaxExtra     = 20   // occurrences of a quote listed beyond a row's n=K
)

// Result is the check of a plan against a claims table.
type Result struct {
	Bindings []Binding
	Unbound  []Unbound
	// UnboundMore counts the unbound numbers past MaxUnbound.
	UnboundMore int
	// Uncovered lists the ungated measurement-like numbers (up to
	// MaxUncovered; Gate.Ungated counts them all).
	Uncovered []Uncovered
	// Spans are the checks of the code spans in claim sections that quote
	// numbers and are not command-line arguments or settings.
	Spans []SpanCheck
	// Unreadable lists the unreadable numbers of the claim sections (up to
	// MaxUnbound).
	Unreadable []Unreadable
	// PlanErrors are the plan's reading errors on lines in claim sections,
	// and what the plan hides there from its reader (plan.Doc.Hidden).
	PlanErrors []*plan.Error
	// MissingSections are declared claim sections (and skip sections)
	// with no heading in the plan.
	MissingSections []claims.Section
	// EmptySections are declared claim sections that hold no number.
	EmptySections []claims.Section
	// Gate counts the numbers the gate checks and those it does not.
	Gate Counts
	// Derived are the values the claims rows derive (a computed scalar per
	// source), each printed like its part of the row's quote: candidates
	// for an unbound number's nearest raw values, beside the runs' own.
	Derived []eval.Item
}

// Measurement reports whether a token reads as a measurement, the numbers
// the gate must not miss outside its claim sections: a number with a unit
// (a percentage, a rate, a ratio "2.67×" included), a range, an arrow pair
// or a ± pair. A bare count ("3 of them", "×3") is not one.
func Measurement(t plan.Token) bool {
	switch t.Kind {
	case plan.Range, plan.Arrow, plan.PlusMinus:
		return true
	}
	return t.Unit != ""
}

// sectionName names a section in counts and messages: its place, or its
// title where it has no number.
func sectionName(s *plan.Section) string {
	if s == nil {
		return "(before the first heading)"
	}
	if p := s.Place(); p != "" {
		return p
	}
	return "\"" + s.Title + "\""
}

// ref is one occurrence of a row's quote in the plan.
type ref struct {
	tok   plan.Token
	place string
}

// rowRefs collects a row's occurrences: the first N+MaxExtra, and a count.
type rowRefs struct {
	refs  []ref
	count int
}

// Check checks every row of t against doc and the archive in env, finds the
// numbers of the claim sections that no row binds and the measurement-like
// numbers outside them, and counts both. It reads the plan line by line and
// holds one line's tokens at a time. It changes neither doc, t nor env.
func Check(doc *plan.Doc, t *claims.Table, env *eval.Env) *Result {
	kinds := newSectionKinds(doc, t)
	sc := newScan(t, kinds)
	for i := range doc.Lines {
		sc.line(i, &doc.Lines[i])
	}
	res := &Result{
		Unbound:     sc.unbound,
		UnboundMore: sc.unboundMore,
		Uncovered:   sc.uncovered,
		Unreadable:  sc.unreadable,
		Gate:        sc.counts(),
	}
	res.MissingSections = missingSections(doc, t)
	res.EmptySections = emptySections(t, sc.inDeclared, res.MissingSections)
	res.PlanErrors = planErrors(doc, kinds)
	res.Bindings, res.Derived = bindRows(doc, t, env, sc.refs)
	for i := range res.Unbound {
		res.Unbound[i].Nearest = nearestParts(env, res.Unbound[i].Token, res.Derived)
	}
	res.Spans = checkSpans(doc, t, env, res, sc.claimLines, sc.byQuote)
	return res
}

// sectionKind says how the claims table declares a section of the plan.
type sectionKind struct {
	claim bool // in a claim section and not in a skip
	skip  bool // in a section declared not claims
}

// sectionKinds holds the kind of every section of a plan.
type sectionKinds struct {
	t     *claims.Table
	known map[*plan.Section]sectionKind
}

// newSectionKinds classifies every section of doc (and the text before the
// first heading) by t's declarations.
func newSectionKinds(doc *plan.Doc, t *claims.Table) sectionKinds {
	k := sectionKinds{t: t, known: make(map[*plan.Section]sectionKind, len(doc.Sections)+1)}
	k.known[nil] = k.classify(nil)
	for _, s := range doc.Sections {
		k.known[s] = k.classify(s)
	}
	return k
}

// of returns the kind of section s.
func (k sectionKinds) of(s *plan.Section) sectionKind {
	if kind, ok := k.known[s]; ok {
		return kind
	}
	return k.classify(s)
}

func (k sectionKinds) classify(s *plan.Section) sectionKind {
	skip := inAny(s, k.t.Skips)
	return sectionKind{claim: inAny(s, k.t.Sections) && !skip, skip: skip}
}

// inAny reports whether section s is in one of the declared places.
func inAny(s *plan.Section, secs []claims.Section) bool {
	for _, d := range secs {
		if s != nil && s.In(d.Place) {
			return true
		}
	}
	return false
}

// missingSections returns the declared claim sections and skip sections
// that name no heading of the plan.
func missingSections(doc *plan.Doc, t *claims.Table) []claims.Section {
	var out []claims.Section
	for _, decl := range [][]claims.Section{t.Sections, t.Skips} {
		for _, s := range decl {
			if !slices.ContainsFunc(doc.Sections, func(sec *plan.Section) bool { return sec.In(s.Place) }) {
				out = append(out, s)
			}
		}
	}
	return out
}

// emptySections returns the declared claim sections, present in the plan,
// that hold no number (inDeclared counts the lines with one per place).
func emptySections(t *claims.Table, inDeclared map[string]int, missing []claims.Section) []claims.Section {
	var out []claims.Section
	for _, s := range t.Sections {
		if inDeclared[s.Place] == 0 && !slices.Contains(missing, s) {
			out = append(out, s)
		}
	}
	return out
}

// planErrors returns the plan's reading errors, and what it hides from its
// reader, on lines of claim sections.
func planErrors(doc *plan.Doc, kinds sectionKinds) []*plan.Error {
	var out []*plan.Error
	for _, errs := range [][]*plan.Error{doc.Errors, doc.Hidden} {
		for _, e := range errs {
			if e.Line >= 1 && e.Line <= len(doc.Lines) && kinds.of(doc.Lines[e.Line-1].Section).claim {
				out = append(out, e)
			}
		}
	}
	return out
}

// nearestParts returns, per part of an unbound token, the raw values
// nearest to it in its unit, the values the rows derive included.
func nearestParts(env *eval.Env, tk plan.Token, derived []eval.Item) [][]eval.Item {
	var out [][]eval.Item
	for j, p := range tk.Parts {
		out = append(out, env.Nearest(p.Value, tk.Units[j], 3, derived))
	}
	return out
}

// scan is one reading of a plan's lines against a claims table: what it
// counts, lists and binds, line by line. It is local to one Check.
type scan struct {
	t       *claims.Table
	kinds   sectionKinds
	byQuote map[string][]*claims.Row
	refs    map[*claims.Row]*rowRefs

	total       Counts
	bySection   map[string]*SectionCount
	order       []string // section names in the order first counted
	unbound     []Unbound
	unboundMore int
	uncovered   []Uncovered
	unreadable  []Unreadable
	claimLines  []int          // indexes of the lines in claim sections
	inDeclared  map[string]int // claim section place → lines with a number in it
}

func newScan(t *claims.Table, kinds sectionKinds) *scan {
	sc := &scan{t: t, kinds: kinds, byQuote: map[string][]*claims.Row{}, refs: make(map[*claims.Row]*rowRefs, len(t.Rows)),
		bySection: map[string]*SectionCount{}, inDeclared: map[string]int{}}
	for _, row := range t.Rows {
		sc.byQuote[row.Quote] = append(sc.byQuote[row.Quote], row)
	}
	return sc
}

// counts returns the totals and the counts per section, in plan order.
func (sc *scan) counts() Counts {
	c := sc.total
	for _, n := range sc.order {
		c.Sections = append(c.Sections, *sc.bySection[n])
	}
	return c
}

// count returns the counts of section s, made on first use.
func (sc *scan) count(s *plan.Section) *SectionCount {
	n := sectionName(s)
	c := sc.bySection[n]
	if c == nil {
		c = &SectionCount{Place: n}
		sc.bySection[n] = c
		sc.order = append(sc.order, n)
	}
	return c
}

// line reads line i of the plan.
func (sc *scan) line(i int, l *plan.Line) {
	sec := l.Section
	kind := sc.kinds.of(sec)
	if l.Fenced() && !kind.claim {
		sc.fencedOutside(l, kind.skip)
		return
	}
	place := ""
	if sec != nil {
		place = sec.Place()
	}
	if kind.claim && !l.Fenced() {
		for _, w := range l.Unreadable() {
			if sc.t.Idents[plan.TrimWord(w.Text)] == nil && len(sc.unreadable) < MaxUnbound {
				sc.unreadable = append(sc.unreadable, Unreadable{Word: w, Place: place})
			}
		}
	}
	hasNum := false
	each := l.EachToken
	if l.Fenced() {
		each = slices.Values(l.FencedTokens())
	}
	each(func(tk plan.Token) bool {
		hasNum = sc.token(tk, sec, place, kind) || hasNum
		return true
	})
	if !kind.claim {
		return
	}
	sc.claimLines = append(sc.claimLines, i)
	if hasNum {
		for _, s := range sc.t.Sections {
			if sec.In(s.Place) {
				sc.inDeclared[s.Place]++
			}
		}
	}
}

// fencedOutside counts a code block's line outside the claim sections: its
// numbers are never bound, so the measurement-like ones are counted and
// listed, that none escapes unseen (in a claim section they are claims).
func (sc *scan) fencedOutside(l *plan.Line, skip bool) {
	for _, tk := range l.FencedTokens() {
		if !Measurement(tk) {
			continue
		}
		c := sc.count(l.Section)
		if skip {
			c.Skipped++
			sc.total.Skipped++
			continue
		}
		c.Ungated++
		sc.total.Ungated++
		if len(sc.uncovered) < MaxUncovered {
			sc.uncovered = append(sc.uncovered, Uncovered{Token: tk, Place: sectionName(l.Section), Fenced: true})
		}
	}
}

// token reads one number of the plan: it notes the rows that bind it,
// counts it, and lists it when no row binds a claim or when it is an
// ungated measurement. It reports whether the token is a number of a claim
// section.
func (sc *scan) token(tk plan.Token, sec *plan.Section, place string, kind sectionKind) bool {
	c := sc.count(sec)
	bound := sc.bind(tk, sec, place)
	if sc.t.Idents[tk.Text] != nil && kind.claim && !bound {
		// declared an identifier (a year, a depth): not a claim
		c.Gated++
		sc.total.Gated++
		return false
	}
	// Gated counts the claims in force: numbers of the declared claim
	// sections. A row still binding a number of a section whose line was
	// removed is checked, but the number is not gated: a section line
	// removed shows as a drop in the count.
	switch {
	case kind.claim:
		c.Gated++
		sc.total.Gated++
		if !bound {
			if len(sc.unbound) < MaxUnbound {
				sc.unbound = append(sc.unbound, Unbound{Token: tk, Place: place})
			} else {
				sc.unboundMore++
			}
		}
		return true
	case !Measurement(tk):
	case kind.skip:
		c.Skipped++
		sc.total.Skipped++
	default:
		c.Ungated++
		sc.total.Ungated++
		if len(sc.uncovered) < MaxUncovered {
			sc.uncovered = append(sc.uncovered, Uncovered{Token: tk, Place: sectionName(sec)})
		}
	}
	return false
}

// bind notes tk as an occurrence of every row that quotes it at a place
// holding sec, and reports whether there is one.
func (sc *scan) bind(tk plan.Token, sec *plan.Section, place string) bool {
	if sec == nil {
		return false
	}
	bound := false
	for _, row := range sc.byQuote[tk.Text] {
		if !sec.In(row.Place) {
			continue
		}
		bound = true
		rr := sc.refs[row]
		if rr == nil {
			rr = &rowRefs{}
			sc.refs[row] = rr
		}
		if rr.count < row.N+MaxExtra {
			rr.refs = append(rr.refs, ref{tk, place})
		}
		rr.count++
	}
	return bound
}

// bindRows checks every row at its occurrences (refs) and returns the
// bindings, in table order, and the values the rows derive.
func bindRows(doc *plan.Doc, t *claims.Table, env *eval.Env, refs map[*claims.Row]*rowRefs) ([]Binding, []eval.Item) {
	var out []Binding
	var derived []eval.Item
	for _, row := range t.Rows {
		var rr rowRefs
		if p := refs[row]; p != nil {
			rr = *p
		}
		vals, srcs, evalErr := evalRow(env, row)
		if evalErr == nil {
			derived = append(derived, derivedItems(t, row, vals)...)
		}
		out = append(out, bindRow(doc, t, env, row, rr, vals, srcs, evalErr)...)
	}
	return out, dedupeItems(derived)
}

// bindRow returns the bindings of one row: stale when its quote is gone
// (or occurs fewer times than it binds), else one per occurrence.
func bindRow(doc *plan.Doc, t *claims.Table, env *eval.Env, row *claims.Row, rr rowRefs, vals []eval.Value, srcs []string, evalErr error) []Binding {
	if rr.count == 0 {
		return []Binding{{Row: row, Place: row.Place, Status: Stale,
			Msg: fmt.Sprintf("%s: %q is no longer in the plan (claims row %s:%d)", row.Place, row.Quote, t.File, row.Line)}}
	}
	var out []Binding
	if rr.count < row.N {
		out = append(out, Binding{Row: row, Place: row.Place, Status: Stale,
			Msg: fmt.Sprintf("%s: %q occurs %d times in the plan; claims row %s:%d binds %d (n=%d)", row.Place, row.Quote, rr.count, t.File, row.Line, row.N, row.N)})
	}
	for _, r := range rr.refs {
		b := Binding{Row: row, Token: r.tok, Place: r.place}
		switch {
		case rr.count > row.N:
			b.Status, b.Msg = Extra, fmt.Sprintf("%s: %q occurs %d times; claims row %s:%d binds %d (n=%d): an edit or a copy made another, or the row needs n=%d", r.place, row.Quote, rr.count, t.File, row.Line, row.N, row.N, rr.count)
		case evalErr != nil:
			b.Status, b.Msg = BadSource, fmt.Sprintf("%s: source of %q (claims row %s:%d) cannot be read: %v", r.place, row.Quote, t.File, row.Line, evalErr)
		default:
			compare(&b, vals, srcs, env)
			if b.Status == Match {
				checkSignificance(env, &b, vals, t.File) // significance.go
			}
		}
		if b.Status == Match {
			checkCaveats(doc, t, &b)
		}
		out = append(out, b)
	}
	return out
}

// checkCaveats makes a matched binding CaveatMissing when the plan does not
// state a caveat its row names beside the quote.
func checkCaveats(doc *plan.Doc, t *claims.Table, b *Binding) {
	var missing, empty []string
	for _, id := range b.Row.Caveats {
		if _, ok := doc.Caveat(id, b.Place); ok {
			continue
		}
		missing = append(missing, "("+id+")")
		if c, ok := doc.EmptyCaveat(id, b.Place); ok {
			empty = append(empty, fmt.Sprintf("(%s) at %s:%d", id, doc.File, c.Line))
		}
	}
	if len(missing) == 0 {
		return
	}
	b.Status = CaveatMissing
	b.Msg = fmt.Sprintf("%s: claims row %s:%d names caveat %s, which the plan does not state in %s", b.Place, t.File, b.Row.Line, strings.Join(missing, ", "), b.Place)
	if len(empty) > 0 {
		b.Msg += fmt.Sprintf(" (caveat %s says nothing: a caveat needs at least %d words)", strings.Join(empty, ", "), plan.MinCaveatWords)
	}
}

// derivedItems returns the values a row derives (a computed scalar per
// source; values read as printed are in the index already), each printed
// like its part of the row's quote, capped at the derivation's precision,
// and labelled with the row's place and line.
func derivedItems(t *claims.Table, row *claims.Row, vals []eval.Value) []eval.Item {
	var quote []num.Number
	for _, tk := range plan.Scan(row.Quote) {
		if tk.Text == row.Quote {
			quote = tk.Parts
			break
		}
	}
	var out []eval.Item
	for i, v := range vals {
		if v.Kind != eval.Scalar || v.X.Text != "" || math.IsNaN(v.X.Value) || math.IsInf(v.X.Value, 0) || len(v.From) == 0 {
			continue
		}
		it := v.X
		it.Metric = row.Sources[i].String()
		it.Origin = fmt.Sprintf("%s, %s:%d", row.Place, t.File, row.Line)
		if i < len(quote) && len(quote) == len(vals) {
			var bp *eval.Bound
			if bd, ok := eval.PrecisionOf(v, row.Digits); ok {
				bp = &bd
			}
			it.Text = eval.Display(it, quote[i], bp)
		}
		out = append(out, it)
	}
	return out
}

// dedupeItems drops the items equal to an earlier one (a derivation bound
// by several rows), keeping order.
func dedupeItems(l []eval.Item) []eval.Item {
	type key struct {
		v            float64
		unit, metric string
	}
	seen := map[key]bool{}
	var out []eval.Item
	for _, it := range l {
		k := key{it.Value, it.Unit, it.Metric}
		if !seen[k] {
			seen[k] = true
			out = append(out, it)
		}
	}
	return out
}

func evalRow(env *eval.Env, row *claims.Row) ([]eval.Value, []string, error) {
	var vals []eval.Value
	var srcs []string
	for _, e := range row.Sources {
		v, err := env.Eval(e)
		if err != nil {
			return nil, nil, err
		}
		vals = append(vals, v)
		srcs = append(srcs, v.Describe(e))
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

// withUnit appends a unit, if any, after a space: "52.60 + 24.72 %".
func withUnit(s, unit string) string {
	if unit == "" {
		return s
	}
	return s + " " + unit
}

// Compare checks a quote tk against a row's evaluated sources vals, as
// Check does at each of the quote's occurrences (the row's caveats and
// the significance of a compared pair aside), and returns the binding.
func Compare(tk plan.Token, row *claims.Row, vals []eval.Value, env *eval.Env) Binding {
	b := Binding{Row: row, Token: tk}
	srcs := make([]string, len(vals))
	for i, v := range vals {
		if i < len(row.Sources) {
			srcs[i] = v.Describe(row.Sources[i])
		}
	}
	compare(&b, vals, srcs, env)
	return b
}

// compare fills b from the row's evaluated sources.
func compare(b *Binding, vals []eval.Value, srcs []string, env *eval.Env) {
	tk := b.Token
	b.Source = strings.Join(srcs, " ; ")
	parts := tk.Parts
	switch {
	case len(vals) == len(parts):
		var raws, why []string
		units := append([]string(nil), tk.Units...)
		unitDiff := false
		for i, v := range vals {
			c := eval.Compare(parts[i], tk.Units[i], v, b.Row.Digits, b.Row.PadZeros)
			raws = append(raws, c.Raw)
			b.PartOK = append(b.PartOK, c.OK)
			if !c.OK {
				why = append(why, c.Why...)
				b.Notes = append(b.Notes, c.Notes...)
			}
			if !eval.UnitOK(tk.Units[i], c.Unit) {
				units[i], unitDiff = c.Unit, true
			}
		}
		if unitDiff {
			// each part in its source's own unit: the quote's would misname it
			for i := range raws {
				raws[i] = withUnit(raws[i], units[i])
			}
			b.Raw = strings.Join(raws, sep(tk.Kind))
		} else {
			b.Raw = withUnit(strings.Join(raws, sep(tk.Kind)), tk.Unit)
		}
		if len(why) > 0 {
			b.Status = Mismatch
			b.Msg = strings.Join(why, "; ")
		}
	case len(vals) == 1 && len(parts) == 2 && tk.Kind == plan.Range:
		v := vals[0]
		if v.Kind == eval.List {
			v = eval.PairOf(v.List)
		}
		if v.Kind != eval.Pair {
			b.Status, b.Msg = BadSource, fmt.Sprintf("a quoted range needs a range source (range(@SET:METRIC)), got %s", b.Row.Sources[0])
			return
		}
		uok := eval.UnitOK(tk.Units[0], v.Lo.Unit)
		unit := tk.Unit
		if !uok {
			unit = v.Lo.Unit
		}
		// each end of the range is one run's print: it bounds its part
		var notes, shown []string
		precOK := []bool{true, true}
		for i, it := range []eval.Item{v.Lo, v.Hi} {
			bd, hasBound := eval.PrecisionOf(eval.Value{Kind: eval.Scalar, X: it}, -1)
			var bp *eval.Bound
			if hasBound {
				bp = &bd
				if why := bd.Check(parts[i]); why != "" {
					notes, precOK[i] = append(notes, why), false
				}
			}
			shown = append(shown, eval.Display(it, parts[i], bp))
		}
		b.Raw = withUnit(shown[0]+"–"+shown[1], unit)
		valOK := []bool{num.Matches(v.Lo.Value, parts[0]), num.Matches(v.Hi.Value, parts[1])}
		b.PartOK = []bool{uok && valOK[0] && precOK[0], uok && valOK[1] && precOK[1]}
		if b.PartOK[0] && b.PartOK[1] {
			return
		}
		b.Status = Mismatch
		if !uok {
			n := fmt.Sprintf("unit: the quote is in %s, the source in %s", tk.Units[0], v.Lo.Unit)
			b.Msg, b.Notes = n, []string{n}
			return
		}
		if valOK[0] && valOK[1] {
			// equal values, quoted more precisely than printed
			b.Msg, b.Notes = strings.Join(notes, "; "), notes
			break
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
				if it.Value < parts[0].Value-eval.Half(parts[0]) || it.Value > parts[1].Value+eval.Half(parts[1]) {
					b.Dropped = append(b.Dropped, it)
				}
			}
			var names []string
			for _, it := range b.Dropped {
				names = append(names, fmt.Sprintf("%s (%s)", it.Run, eval.Display(it, parts[0], nil)))
			}
			b.Msg = fmt.Sprintf("the range leaves out %s of its %d runs: %s", plural(len(b.Dropped), "run"), len(v.List), strings.Join(names, ", "))
			if len(notes) > 0 {
				b.Msg += "; " + strings.Join(notes, "; ")
				b.Notes = notes
			}
			return
		}
		b.Msg = fmt.Sprintf("the runs of the set span %s", b.Raw)
		if len(notes) > 0 {
			b.Msg += "; " + strings.Join(notes, "; ")
			b.Notes = notes
		}
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

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}
