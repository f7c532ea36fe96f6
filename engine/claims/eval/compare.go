package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
)

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

// UnitOK reports whether a quoted unit and a source's agree: equal, or
// either one absent.
func UnitOK(quoted, source string) bool {
	return quoted == "" || source == "" || quoted == source
}

// Half is half a unit of q's last decimal: how far a value may be from q
// and still print as q.
func Half(q num.Number) float64 { return 0.5 * math.Pow(10, -float64(q.Decimals)) }

// PairOf returns the range of a list: its smallest and largest items, the
// list kept for the runs it spans. An empty list gives the zero Value.
func PairOf(l []Item) Value {
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

// PartCheck is the comparison of one quoted number with its source.
type PartCheck struct {
	Raw   string   // the source's value, at the precision it was printed
	Unit  string   // the source's unit ("" for none)
	OK    bool     // the quote equals its source in value, unit and precision
	Why   []string // what is wrong, when not OK
	Notes []string // the reasons of Why that are not a different value: unit, precision
}

// Compare compares one quoted number q, in unit, with one source value.
// digits is the row's digits=K (-1 when not given); pad is the row's
// pad=zeros.
func Compare(q num.Number, unit string, v Value, digits int, pad bool) PartCheck {
	var c PartCheck
	fail := func(note bool, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		c.Why = append(c.Why, msg)
		if note {
			c.Notes = append(c.Notes, msg)
		}
	}
	bd, hasBound := PrecisionOf(v, digits)
	var bp *Bound
	if hasBound {
		bp = &bd
	}
	switch v.Kind {
	case Scalar:
		c.Raw, c.Unit = Display(v.X, q, bp), v.X.Unit
		if !UnitOK(unit, v.X.Unit) {
			fail(true, "unit: %s is quoted in %s, its source is in %s: the units differ", q.Text, unit, v.X.Unit)
		} else if !num.Matches(v.X.Value, q) {
			fail(false, "%s is quoted, the source gives %s", q.Text, c.Raw)
		}
	case List, Pair:
		if v.Kind == List {
			v = PairOf(v.List)
		}
		c.Unit = v.Lo.Unit
		lo, hi := Display(v.Lo, q, bp), Display(v.Hi, q, bp)
		if c.Raw = lo; lo != hi {
			c.Raw = lo + "–" + hi
		}
		if !UnitOK(unit, v.Lo.Unit) {
			fail(true, "unit: %s is quoted in %s, its source is in %s: the units differ", q.Text, unit, v.Lo.Unit)
		} else if Format(v.Lo.Value, q) != Format(v.Hi.Value, q) || !num.Matches(v.Lo.Value, q) {
			fail(false, "%s is quoted as one number, its runs span %s", q.Text, c.Raw)
		}
	default:
		return PartCheck{Why: []string{"the source is a set of runs, not a number"}}
	}
	if hasBound {
		if why := bd.Check(q); why != "" && !(pad && zeroPadded(q, bd.place)) {
			fail(true, "%s", why)
		}
	}
	c.OK = len(c.Why) == 0
	return c
}
