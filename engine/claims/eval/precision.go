package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
)

// lastPlace returns the power of ten of a printed number's last digit:
// -2 for 3,194.19, 0 for 12,288, -9 for 2.16e-07 (the mantissa's two
// decimals below the exponent -7).
func lastPlace(n num.Number) int {
	if !n.Sci {
		return -n.Decimals
	}
	t := strings.TrimSpace(n.Text)
	i := strings.IndexAny(t, "eE")
	if i < 0 {
		return -n.Decimals
	}
	exp, err := strconv.Atoi(strings.TrimPrefix(t[i+1:], "+"))
	if err != nil {
		return -n.Decimals
	}
	return exp - n.Decimals
}

// placeText says how precise a number is printed: "with 4 decimals" for a
// plain number, "to 1e-09" for a scientific one.
func placeText(n num.Number) string {
	if n.Sci {
		return fmt.Sprintf("to 1e%03d", lastPlace(n))
	}
	return "with " + plural(n.Decimals, "decimal")
}

// printedText says how precise a source printed a number: "2 decimals",
// "to 1e-09".
func printedText(n num.Number) string { return strings.TrimPrefix(placeText(n), "with ") }

// printed returns the number an item was printed as, ok false for a
// computed item (no text) or text that does not parse.
func printed(it Item) (num.Number, bool) {
	if it.Text == "" {
		return num.Number{}, false
	}
	n, err := num.Parse(it.Text)
	if err != nil || math.IsNaN(n.Value) || math.IsInf(n.Value, 0) {
		return num.Number{}, false
	}
	return n, true
}

// Bound is the finest precision a quote of a value may have.
type Bound struct {
	place   int  // power of ten of the finest digit allowed
	from    Item // the printed item that sets it (zero for digits=K)
	n       num.Number
	derived bool // a derivation's bound: the most precise metric feeding it
	digits  bool // set by the row's digits=K
}

// feeds reports whether a raw item of a computed value bounds its
// precision: a metric or a declared constant, not a literal number of the
// expression.
func feeds(it Item) bool {
	return it.Run != "" || strings.HasPrefix(it.Metric, "$")
}

// PrecisionOf returns the bound of a value's precision, ok false when the
// value is exact (a count over runs, a derivation fed by no printed value).
// items are the printed items to bound by: for a value read as printed,
// itself (or every run of a list); for a derivation, what fed it. digits is
// the row's digits=K (-1 when not given); it only applies to a derivation.
func PrecisionOf(v Value, digits int) (Bound, bool) {
	var items []Item
	derived := false
	switch v.Kind {
	case Scalar:
		if v.X.Text != "" {
			items = []Item{v.X}
			if len(v.From) > 1 {
				items = v.From // each(@SET:METRIC): every run's print
			}
		} else {
			derived = true
			if digits >= 0 {
				return Bound{place: -digits, derived: true, digits: true}, true
			}
			for _, it := range v.From {
				if feeds(it) {
					items = append(items, it)
				}
			}
		}
	case List:
		items = v.List
	case Pair:
		items = []Item{v.Lo, v.Hi}
	}
	var b Bound
	ok := false
	for _, it := range items {
		n, good := printed(it)
		if !good {
			continue
		}
		if p := lastPlace(n); !ok || p < b.place {
			b, ok = Bound{place: p, from: it, n: n, derived: derived}, true
		}
	}
	return b, ok
}

// Place returns the power of ten of the finest digit a quote may have.
func (b Bound) Place() int { return b.place }

// Check returns why quote q is more precise than the bound allows, "" when
// it is not.
func (b Bound) Check(q num.Number) string {
	if lastPlace(q) >= b.place {
		return ""
	}
	switch {
	case b.digits:
		return fmt.Sprintf("precision: %s is quoted %s; its row allows %s (digits=%d)", q.Text, placeText(q), plural(-b.place, "decimal"), -b.place)
	case b.derived:
		return fmt.Sprintf("precision: %s is quoted %s; the most precise metric feeding its source printed %s: %s at %s; a row may allow more with digits=K", q.Text, placeText(q), printedText(b.n), b.from.Text, b.from.Where())
	}
	return fmt.Sprintf("precision: %s is quoted %s; its source printed %s: %s at %s", q.Text, placeText(q), printedText(b.n), b.from.Text, b.from.Where())
}

// Display prints a raw item like the quote q (thousands separators, a
// typographic minus) at the precision its source printed it: its own
// printed precision when it was read as printed, else q's capped by the
// bound of the value it belongs to (nil: no bound).
func Display(it Item, q num.Number, b *Bound) string {
	like := q
	if n, ok := printed(it); ok {
		like.Decimals, like.Sci = n.Decimals, n.Sci
		if n.Sci {
			like.Text = n.Text
		}
	} else if b != nil && lastPlace(q) < b.place {
		if q.Sci {
			like.Decimals = max(0, q.Decimals-(b.place-lastPlace(q)))
		} else {
			like.Decimals = max(0, -b.place)
		}
	}
	return Format(it.Value, like)
}

// zeroPadded reports whether every digit of q finer than 10^place is a
// zero: 1.40 against a bound of one decimal, not 1.45.
func zeroPadded(q num.Number, place int) bool {
	if q.Sci {
		return false
	}
	extra := q.Decimals + place // digits beyond the bound
	t := strings.TrimSpace(q.Text)
	if extra <= 0 || extra > len(t) {
		return extra <= 0
	}
	return strings.Trim(t[len(t)-extra:], "0") == ""
}

// plural prints a count of w: "1 decimal", "2 decimals".
func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}
