// Package num parses and compares numbers as they are printed in logs and plans:
// thousands separators, printed precision, and equality at the precision a
// number was quoted with.
package num

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Number is a value together with the text it was printed as.
type Number struct {
	Value    float64 // the parsed value
	Text     string  // the text as printed, e.g. "3,194.19"
	Decimals int     // digits after the decimal point in Text (for scientific text, of the mantissa)
	Sci      bool    // Text is in scientific notation (2.16e-07)
}

// separators removes thousands separators and maps a typographic minus to '-'.
var separators = strings.NewReplacer(",", "", "\u202f", "", "\u00a0", "", "\u2009", "", "\u2212", "-")

// Parse parses a printed number: an optional sign, digits with optional
// thousands separators (",", or a thin or no-break space), an optional
// fraction and an optional exponent. "inf", "-inf" and "nan" parse to the IEEE
// values, as C's printf prints them.
func Parse(text string) (Number, error) {
	n := Number{Text: text}
	s := strings.TrimSpace(text)
	if word := strings.TrimLeft(s, "+-"); strings.EqualFold(word, "inf") || strings.EqualFold(word, "infinity") || strings.EqualFold(word, "nan") {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return n, fmt.Errorf("num: parse %q: %w", text, err)
		}
		n.Value = v
		return n, nil
	}
	clean := s
	if strings.ContainsAny(s, ",\u202f\u00a0\u2009\u2212") {
		clean = separators.Replace(s) // a Replace allocates even when it replaces nothing
	}
	if clean == "" {
		return n, fmt.Errorf("num: parse %q: empty", text)
	}
	if strings.Contains(s, ",") && !validGrouping(s) {
		return n, fmt.Errorf("num: parse %q: misplaced thousands separator", text)
	}
	v, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		return n, fmt.Errorf("num: parse %q: %w", text, errorsUnwrap(err))
	}
	n.Value = v
	mant := clean
	if i := strings.IndexAny(clean, "eE"); i >= 0 {
		n.Sci = true
		mant = clean[:i]
	}
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		n.Decimals = len(mant) - i - 1
	}
	return n, nil
}

// MustParse is Parse for literals in tables; it panics on malformed text.
func MustParse(text string) Number {
	n, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return n
}

func errorsUnwrap(err error) error {
	if ne, ok := err.(*strconv.NumError); ok {
		return ne.Err
	}
	return err
}

// validGrouping reports whether the commas in s separate groups of three digits.
func validGrouping(s string) bool {
	s = strings.TrimLeft(s, "+-\u2212")
	intPart := s
	if i := strings.IndexAny(s, ".eE"); i >= 0 {
		intPart = s[:i]
		if strings.Contains(s[i:], ",") {
			return false
		}
	}
	groups := strings.Split(intPart, ",")
	if len(groups[0]) == 0 || len(groups[0]) > 3 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

// Round rounds v half away from zero to d decimals.
func Round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	r := math.Round(v*p) / p
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return v
	}
	return r
}

// Matches reports whether raw, rounded to the precision quoted was printed
// with, equals quoted. Raw 90.107 matches "90.11"; raw 3194.19 does not match
// "3,194.23". A scientific quote compares mantissas at its precision
// (2.16e-07 matches 2.1649e-07).
func Matches(raw float64, quoted Number) bool {
	if math.IsNaN(raw) || math.IsNaN(quoted.Value) {
		return math.IsNaN(raw) && math.IsNaN(quoted.Value)
	}
	if math.IsInf(raw, 0) || math.IsInf(quoted.Value, 0) {
		return raw == quoted.Value
	}
	if quoted.Sci {
		if quoted.Value == 0 {
			return raw == 0
		}
		exp := math.Floor(math.Log10(math.Abs(quoted.Value)))
		scale := math.Pow(10, exp)
		return Round(raw/scale, quoted.Decimals) == Round(quoted.Value/scale, quoted.Decimals)
	}
	// Compare in integer units of the last printed digit so that binary
	// floating point does not decide a tie.
	p := math.Pow(10, float64(quoted.Decimals))
	return math.Round(raw*p+sign(raw)*1e-9) == math.Round(quoted.Value*p)
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// Format prints v with d decimals and thousands separators, as the plan does.
func Format(v float64, d int) string {
	s := strconv.FormatFloat(v, 'f', d, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	b.WriteString(frac)
	return b.String()
}
