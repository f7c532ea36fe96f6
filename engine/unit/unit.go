// Package unit holds the units of measure strataspec reads, as data: the
// spellings of each unit, its dimension and its size in the dimension's base
// unit. Times are based on the second, sizes on the byte, counts (tokens,
// slots, pages, runs, …) on one of the thing counted. A rate or a per-token
// form is one unit over another: "GB/s", "tok/s", "ms/tok" (also spelled
// "ms per token"), "µs/tok".
//
// Decimal and binary sizes are different units: KB and kB are 10³ bytes, MB
// 10⁶, GB 10⁹, TB 10¹²; KiB is 2¹⁰ bytes, MiB 2²⁰, GiB 2³⁰, TiB 2⁴⁰. No
// spelling means 1024 bytes but KiB.
//
// Spellings are case-sensitive ("GB" is a unit, "gb" is not): a unit the
// table does not hold is an error that says where in the spelling it stops
// being read. Conversion is between units of one dimension only.
package unit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
)

// Unit is a unit of measure. The zero Unit is "no unit" (a plain number).
// Units are comparable: two spellings of one unit ("tok/s", "t/s") give
// equal Units.
type Unit struct {
	name string // canonical spelling
	dim  Dim
	mag  mag
}

// Dim is a unit's dimension: the base of its numerator and of its
// denominator ("s", "B", "tokens", …; Den is "" for a unit that is no
// ratio). Two units convert into each other when their Dims are equal.
type Dim struct {
	Num, Den string
}

// String returns "time", "bytes/time", "tokens", … .
func (d Dim) String() string {
	s := baseNames[d.Num]
	if s == "" {
		s = d.Num
	}
	if d.Den != "" {
		den := baseNames[d.Den]
		if den == "" {
			den = d.Den
		}
		s += "/" + den
	}
	return s
}

// baseNames names the dimensions of the physical bases.
var baseNames = map[string]string{"s": "time", "B": "bytes", "": "none"}

// mag is a unit's size in its dimension's base unit: k × 10^p10 × 2^p2.
// Keeping the powers apart makes a decimal or binary conversion exact
// (µs → ms divides by 1000, it does not multiply by 0.001).
type mag struct {
	p10, p2 int
	k       float64
}

func (m mag) div(o mag) mag { return mag{m.p10 - o.p10, m.p2 - o.p2, m.k / o.k} }

func (m mag) apply(x float64) float64 {
	if m.k != 1 {
		x *= m.k
	}
	x = math.Ldexp(x, m.p2)
	switch {
	case m.p10 > 0:
		x *= math.Pow10(m.p10)
	case m.p10 < 0:
		x /= math.Pow10(-m.p10)
	}
	return x
}

func (m mag) float() float64 { return m.apply(1) }

// String returns the unit's canonical spelling ("" for no unit).
func (u Unit) String() string { return u.name }

// Dim returns the unit's dimension.
func (u Unit) Dim() Dim { return u.dim }

// IsNone reports whether u is no unit.
func (u Unit) IsNone() bool { return u == Unit{} }

// atom is one simple unit of the table: its canonical spelling, the
// spelling it takes in a ratio ("tok" for tokens), its base and size, and
// the other spellings it is read in.
type atom struct {
	name, short string // short: the spelling in a ratio, when not name
	base        string
	mag         mag
	spellings   []string // read alone and in ratios
	ratioOnly   []string // read only as a ratio's numerator ("t" in "t/s")
	prose       []string // read by Parse only, not in plan text ("second")
	onlyRatio   bool     // the atom is read only as a ratio's numerator
	meaning     string
}

func p10(p int) mag { return mag{p10: p, k: 1} }
func p2(p int) mag  { return mag{p2: p, k: 1} }

// atoms is the table. Counts are each their own dimension: tokens do not
// convert into slots.
var atoms = []atom{
	{name: "ns", base: "s", mag: p10(-9), meaning: "nanosecond"},
	{name: "µs", base: "s", mag: p10(-6), spellings: []string{"μs", "us"}, meaning: "microsecond (µ is U+00B5; the Greek μ U+03BC, what NFKC makes of it, and us are read as it)"},
	{name: "ms", base: "s", mag: p10(-3), prose: []string{"millisecond", "milliseconds"}, meaning: "millisecond"},
	{name: "s", base: "s", mag: p10(0), prose: []string{"second", "seconds"}, meaning: "second"},
	{name: "min", base: "s", mag: mag{k: 60}, meaning: "minute"},
	{name: "h", base: "s", mag: mag{k: 3600}, meaning: "hour"},
	{name: "B", base: "B", mag: p10(0), spellings: []string{"byte", "bytes"}, meaning: "byte"},
	{name: "KB", base: "B", mag: p10(3), spellings: []string{"kB"}, meaning: "kilobyte, decimal (1024 B is KiB)"},
	{name: "MB", base: "B", mag: p10(6), meaning: "megabyte"},
	{name: "GB", base: "B", mag: p10(9), meaning: "gigabyte"},
	{name: "TB", base: "B", mag: p10(12), meaning: "terabyte"},
	{name: "KiB", base: "B", mag: p2(10), meaning: "kibibyte"},
	{name: "MiB", base: "B", mag: p2(20), meaning: "mebibyte"},
	{name: "GiB", base: "B", mag: p2(30), meaning: "gibibyte"},
	{name: "TiB", base: "B", mag: p2(40), meaning: "tebibyte"},
	{name: "tokens", short: "tok", base: "tokens", mag: p10(0), spellings: []string{"tok", "toks", "token"}, ratioOnly: []string{"t"}, meaning: "tokens (t only in t/s)"},
	{name: "misses", base: "misses", mag: p10(0), onlyRatio: true, meaning: "expert misses, only in a ratio (misses/tok): \"0.85 misses\" in prose is no quantity"},
	{name: "slots", base: "slots", mag: p10(0), spellings: []string{"slot"}, meaning: "arena slots"},
	{name: "pages", base: "pages", mag: p10(0), spellings: []string{"page"}, meaning: "VM pages"},
	{name: "runs", base: "runs", mag: p10(0), spellings: []string{"run"}, meaning: "runs (decode steps, repeats)"},
	{name: "classes", base: "classes", mag: p10(0), spellings: []string{"class"}, meaning: "size classes"},
	{name: "docs", base: "docs", mag: p10(0), spellings: []string{"doc"}, meaning: "documents"},
	{name: "domains", base: "domains", mag: p10(0), spellings: []string{"domain"}, meaning: "domains"},
	{name: "steps", base: "steps", mag: p10(0), spellings: []string{"step"}, meaning: "steps"},
	{name: "cells", base: "cells", mag: p10(0), spellings: []string{"cell"}, meaning: "cells"},
	{name: "threads", base: "threads", mag: p10(0), spellings: []string{"thread"}, meaning: "threads"},
	{name: "experts", base: "experts", mag: p10(0), spellings: []string{"expert"}, meaning: "experts"},
	{name: "%", base: "%", mag: p10(0), meaning: "percent (its own dimension: 50 % does not convert to 0.5)"},
	{name: "×", base: "×", mag: p10(0), spellings: []string{"x"}, meaning: "a factor, as in 3×"},
}

// spelled is one spelling of an atom and where it may stand.
type spelled struct {
	a         *atom
	ratioOnly bool
	prose     bool
}

// bySpelling indexes the table by spelling.
var bySpelling = index()

func index() map[string]spelled {
	m := map[string]spelled{}
	for i := range atoms {
		a := &atoms[i]
		add := func(s string, ratioOnly, prose bool) {
			if _, dup := m[s]; dup {
				panic("unit: spelling " + s + " twice in the table")
			}
			m[s] = spelled{a, ratioOnly, prose}
		}
		add(a.name, a.onlyRatio, false)
		for _, s := range a.spellings {
			add(s, a.onlyRatio, false)
		}
		for _, s := range a.ratioOnly {
			add(s, true, false)
		}
		for _, s := range a.prose {
			add(s, false, true)
		}
	}
	return m
}

// ratioName is the atom's spelling in a ratio: "tok" for tokens.
func (a *atom) ratioName() string {
	if a.short != "" {
		return a.short
	}
	return a.name
}

func (a *atom) unit() Unit { return Unit{name: a.name, dim: Dim{Num: a.base}, mag: a.mag} }

// ratio builds n/d: an amount of time, bytes, tokens or misses over time
// or tokens (GB/s, tok/s, ms/tok, MB/tok, misses/tok). It fails for any
// other pair: "slots per token" is no unit.
func ratio(n, d *atom) (Unit, bool) {
	amount := n.base == "s" || n.base == "B" || n.base == "tokens" || n.base == "misses"
	if !amount || n.base == d.base || d.base != "s" && d.base != "tokens" {
		return Unit{}, false
	}
	return Unit{name: n.ratioName() + "/" + d.ratioName(), dim: Dim{Num: n.base, Den: d.base}, mag: n.mag.div(d.mag)}, true
}

// Error is a unit spelling that cannot be read: Col is the 1-based byte
// column in Text where reading stopped.
type Error struct {
	Text string
	Col  int
	Msg  string
}

// Error returns `unit "TEXT": column N: MESSAGE`.
func (e *Error) Error() string {
	return fmt.Sprintf("unit %q: column %d: %s", e.Text, e.Col, e.Msg)
}

// Parse reads a unit's spelling: a unit of the table ("ms", "GiB",
// "tokens"), a ratio of two ("GB/s", "tok/s", "t/s", "ms/tok", "µs/tok"),
// or a ratio written out ("ms per token", "tokens per second"). The empty
// string is no unit. Anything else is an *Error naming the column.
func Parse(s string) (Unit, error) {
	if s == "" {
		return Unit{}, nil
	}
	n, d, sep, ok := cut(s)
	na, err := atomAt(s, 0, n, ok)
	if err != nil {
		return Unit{}, err
	}
	if !ok {
		return na.unit(), nil
	}
	at := len(n) + len(sep)
	da, err := atomAt(s, at, d, false)
	if err != nil {
		return Unit{}, err
	}
	u, ok := ratio(na, da)
	if !ok {
		return Unit{}, &Error{Text: s, Col: at + 1, Msg: fmt.Sprintf("%s over %s is not a rate", na.name, da.name)}
	}
	return u, nil
}

// MustParse is Parse for spellings in tables; it panics on an error.
func MustParse(s string) Unit {
	u, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// cut splits "n/d" or "n per d".
func cut(s string) (n, d, sep string, ok bool) {
	if i := strings.Index(s, " per "); i >= 0 {
		return s[:i], s[i+5:], " per ", true
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i+1:], "/", true
	}
	return s, "", "", false
}

// atomAt looks up the spelling w found at byte offset at of s.
func atomAt(s string, at int, w string, numerator bool) (*atom, error) {
	sp, ok := bySpelling[w]
	switch {
	case w == "":
		return nil, &Error{Text: s, Col: at + 1, Msg: "a unit is missing here"}
	case !ok:
		msg := fmt.Sprintf("unknown unit %q", w)
		if a := caseless[strings.ToLower(w)]; a != nil {
			msg += fmt.Sprintf(" (units are case-sensitive: %s)", a.name)
		}
		return nil, &Error{Text: s, Col: at + 1, Msg: msg}
	case sp.ratioOnly && !numerator:
		return nil, &Error{Text: s, Col: at + 1, Msg: fmt.Sprintf("%q stands only before a denominator, as in %s/s or %s/tok", w, w, w)}
	}
	return sp.a, nil
}

// caseless finds an atom by its lower-cased canonical spelling, for the
// hint that units are case-sensitive ("gb" → GB).
var caseless = func() map[string]*atom {
	m := map[string]*atom{}
	for i := range atoms {
		m[strings.ToLower(atoms[i].name)] = &atoms[i]
	}
	return m
}()

// Canon returns the canonical spelling of a unit ("t/s" → "tok/s", "us" →
// "µs", "kB" → "KB", "" → ""), or "" when s is no unit of the table.
func Canon(s string) string {
	u, err := Parse(s)
	if err != nil {
		return ""
	}
	return u.name
}

// Prefix returns the unit whose symbol starts s and the bytes it spans: the
// longest atom (ns … TiB, tok, slots, %, ×, …) and, when ratios is true and
// "/" and another atom follow, the ratio ("GB/s", "ms/tok"). Words a plan
// writes in prose ("second", "per") are not symbols. ok is false when no
// unit starts s. A caller that reads units in running text checks the word
// boundary after n itself.
func Prefix(s string, ratios bool) (u Unit, n int, ok bool) {
	a, n, only := prefixAtom(s)
	if a == nil {
		return Unit{}, 0, false
	}
	if ratios && n < len(s) && s[n] == '/' {
		if d, m, donly := prefixAtom(s[n+1:]); d != nil && !donly {
			if r, ok := ratio(a, d); ok {
				return r, n + 1 + m, true
			}
		}
	}
	if only {
		return Unit{}, 0, false
	}
	return a.unit(), n, true
}

// prefixAtom returns the longest atom symbol at the start of s.
func prefixAtom(s string) (a *atom, n int, ratioOnly bool) {
	if s == "" {
		return nil, 0, false
	}
	for _, l := range lengths[s[0]] { // the plan reader asks after every number
		if l > len(s) {
			continue
		}
		if sp, ok := bySpelling[s[:l]]; ok && !sp.prose {
			return sp.a, l, sp.ratioOnly
		}
	}
	return nil, 0, false
}

// lengths lists, for each first byte, the lengths of the spellings that
// start with it, longest first.
var lengths = func() (out [256][]int) {
	for s := range bySpelling {
		l := out[s[0]]
		if !slices.Contains(l, len(s)) {
			l = append(l, len(s))
			slices.SortFunc(l, func(a, b int) int { return b - a })
			out[s[0]] = l
		}
	}
	return out
}()

// Factor returns the number a value in from is multiplied by to be in to:
// Factor(µs, ms) = 0.001, Factor(GiB, GB) = 1.073741824. Units of two
// dimensions are an error.
func Factor(from, to Unit) (float64, error) {
	if from.dim != to.dim {
		return 0, convErr(from, to)
	}
	return from.mag.div(to.mag).float(), nil
}

func convErr(from, to Unit) error {
	return fmt.Errorf("unit: %s (%s) does not convert to %s (%s)", show(from), from.dim, show(to), to.dim)
}

func show(u Unit) string {
	if u.IsNone() {
		return "no unit"
	}
	return u.name
}

// Seconds converts a duration v in the time unit named ("ms", "min": a
// time unit of the table) into seconds; a name the table does not know, or
// a unit of another dimension, is an error.
func Seconds(v float64, name string) (float64, error) {
	from, err := Parse(name)
	if err != nil {
		return 0, err
	}
	sec := MustParse("s")
	if from.Dim() != sec.Dim() {
		return 0, fmt.Errorf("a unit of %s, not of time", from.Dim())
	}
	return Convert(v, from, sec)
}

// Convert converts x from one unit to another of its dimension: Convert(
// 1234.5, µs/tok, ms/tok) = 1.2345.
func Convert(x float64, from, to Unit) (float64, error) {
	if from.dim != to.dim {
		return 0, convErr(from, to)
	}
	return from.mag.div(to.mag).apply(x), nil
}

// ConvertNumber converts a printed number, keeping its printed precision in
// the new unit: 1,234.5 µs is 1.2345 ms (one decimal becomes four). A
// conversion by a power of ten moves the decimals exactly; another (GiB to
// GB) keeps as many significant decimals as its factor's size allows.
func ConvertNumber(n num.Number, from, to Unit) (num.Number, error) {
	v, err := Convert(n.Value, from, to)
	if err != nil {
		return num.Number{}, err
	}
	if from == to {
		return n, nil
	}
	f := from.mag.div(to.mag)
	shift := -int(math.Round(math.Log10(f.float())))
	if f.p2 == 0 && f.k == 1 {
		shift = -f.p10
	}
	out := num.Number{Value: v, Sci: n.Sci, Decimals: n.Decimals}
	switch {
	case n.Sci:
		out.Text = strconv.FormatFloat(v, 'e', n.Decimals, 64)
	case math.IsInf(v, 0) || math.IsNaN(v):
		out.Text = n.Text
	default:
		out.Decimals = max(0, n.Decimals+shift)
		if f.p2 == 0 && f.k == 1 && n.Decimals+shift >= 0 {
			// a shift of the decimal point loses nothing: the value is the
			// printed one (0.024830 s is 24.830 ms, not 24.830000000000002)
			out.Value = num.Round(v, out.Decimals)
		}
		out.Text = num.Format(out.Value, out.Decimals)
	}
	return out, nil
}

// Between returns the unit a value in from is in after it is divided by f,
// when f converts from into another unit of the table of its dimension
// (µs ÷ 1000 is ms, MiB ÷ 1024 is GiB, s ÷ 60 is min); ok is false when f
// is no such conversion.
func Between(from Unit, f float64) (Unit, bool) {
	if f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) || from.IsNone() {
		return Unit{}, false
	}
	for _, to := range Of(from.dim) {
		if to == from {
			continue
		}
		if k, err := Factor(to, from); err == nil && closeTo(k, f) {
			return to, true
		}
	}
	return Unit{}, false
}

// closeTo compares a table factor with a literal at 1e-12 relative.
func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }

// Of returns every unit of the table of dimension d, in table order (for a
// ratio dimension, each ratio of two of its atoms).
func Of(d Dim) []Unit {
	var num, den []*atom
	for i := range atoms {
		a := &atoms[i]
		if a.base == d.Num {
			num = append(num, a)
		}
		if d.Den != "" && a.base == d.Den {
			den = append(den, a)
		}
	}
	var out []Unit
	if d.Den == "" {
		for _, a := range num {
			out = append(out, a.unit())
		}
		return out
	}
	for _, n := range num {
		for _, dd := range den {
			if u, ok := ratio(n, dd); ok {
				out = append(out, u)
			}
		}
	}
	return out
}

// IsConversion reports whether dividing by f converts between two units of
// one dimension of the table (1000, 1024, 2³⁰, 60, 3600, …) rather than
// counting something.
func IsConversion(f float64) bool {
	for i := range atoms {
		if _, ok := Between(atoms[i].unit(), f); ok {
			return true
		}
	}
	return false
}

// Markdown returns the table as Markdown (unit, dimension, size, other
// spellings, meaning): the table README.md carries.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| unit | dimension | size | also read as | meaning |\n|---|---|---|---|---|\n")
	for i := range atoms {
		a := &atoms[i]
		also := append(append(append([]string(nil), a.spellings...), a.ratioOnly...), a.prose...)
		for j, s := range also {
			also[j] = "`" + s + "`"
		}
		alsoText := strings.Join(also, " ")
		if alsoText == "" {
			alsoText = "–"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", a.name, a.unit().dim, a.mag.text(a.base), alsoText, a.meaning)
	}
	return b.String()
}

// text prints a size in its base: "10⁻⁶ s", "2³⁰ B", "60 s", "1".
func (m mag) text(base string) string {
	if base != "s" && base != "B" {
		return "1"
	}
	switch {
	case m.k != 1:
		return strconv.FormatFloat(m.k, 'f', -1, 64) + " " + base
	case m.p2 != 0:
		return "2" + sup(m.p2) + " " + base
	case m.p10 != 0:
		return "10" + sup(m.p10) + " " + base
	}
	return "1 " + base
}

func sup(p int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	r := []rune(digits)
	var b strings.Builder
	if p < 0 {
		b.WriteString("⁻")
		p = -p
	}
	for _, c := range strconv.Itoa(p) {
		b.WriteRune(r[c-'0'])
	}
	return b.String()
}
