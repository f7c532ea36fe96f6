package unit

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/num"
)

var parseTests = []struct {
	in   string
	name string // canonical spelling
	dim  Dim
}{
	{"", "", Dim{}},
	{"ms", "ms", Dim{"s", ""}},
	{"µs", "µs", Dim{"s", ""}},
	{"μs", "µs", Dim{"s", ""}}, // Greek mu, what NFKC makes of the micro sign
	{"us", "µs", Dim{"s", ""}},
	{"kB", "KB", Dim{"B", ""}},
	{"KB", "KB", Dim{"B", ""}},
	{"KiB", "KiB", Dim{"B", ""}},
	{"TiB", "TiB", Dim{"B", ""}},
	{"bytes", "B", Dim{"B", ""}},
	{"tok", "tokens", Dim{"tokens", ""}},
	{"tokens", "tokens", Dim{"tokens", ""}},
	{"GB/s", "GB/s", Dim{"B", "s"}},
	{"GiB/s", "GiB/s", Dim{"B", "s"}},
	{"tok/s", "tok/s", Dim{"tokens", "s"}},
	{"t/s", "tok/s", Dim{"tokens", "s"}},
	{"tokens/s", "tok/s", Dim{"tokens", "s"}},
	{"tokens per second", "tok/s", Dim{"tokens", "s"}},
	{"ms/tok", "ms/tok", Dim{"s", "tokens"}},
	{"ms per token", "ms/tok", Dim{"s", "tokens"}},
	{"µs/tok", "µs/tok", Dim{"s", "tokens"}},
	{"us/token", "µs/tok", Dim{"s", "tokens"}},
	{"MB/tok", "MB/tok", Dim{"B", "tokens"}},
	{"misses/token", "misses/tok", Dim{"misses", "tokens"}},
	{"%", "%", Dim{"%", ""}},
	{"x", "×", Dim{"×", ""}},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		u, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q) = error %v; want %s", tt.in, err, tt.name)
			continue
		}
		if u.String() != tt.name || u.Dim() != tt.dim {
			t.Errorf("Parse(%q) = %s (%v); want %s (%v)", tt.in, u, u.Dim(), tt.name, tt.dim)
		}
	}
}

var parseErrorTests = []struct {
	in  string
	col int
}{
	{"gb", 1},            // case-sensitive
	{"msec", 1},          // not a spelling of ms
	{"ms/xyz", 4},        // the denominator
	{"ms per parsec", 8}, // written out
	{"t", 1},             // only in t/s
	{"tok/t", 5},
	{"GB/MB", 4}, // one dimension over itself is no rate
	{"ms/", 4},   // a missing denominator
	{"/s", 1},    // a missing numerator
	{"%/s", 3},   // a percentage is not a rate's amount
	{"1 ms", 1},  // a number is not a unit
	{"ms ", 1},   // nor a spelling with a space
	{"ms/tok/s", 4},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorTests {
		u, err := Parse(tt.in)
		var ue *Error
		if !errors.As(err, &ue) {
			t.Errorf("Parse(%q) = %s, %v; want an *Error", tt.in, u, err)
			continue
		}
		if ue.Col != tt.col || ue.Text != tt.in {
			t.Errorf("Parse(%q) error at column %d of %q (%v); want column %d", tt.in, ue.Col, ue.Text, err, tt.col)
		}
	}
}

func TestParseCaseHint(t *testing.T) {
	_, err := Parse("gib")
	if err == nil || err.Error() != `unit "gib": column 1: unknown unit "gib" (units are case-sensitive: GiB)` {
		t.Errorf("Parse(%q) = %v; want the case-sensitive hint", "gib", err)
	}
}

var convertTests = []struct {
	x        float64
	from, to string
	want     float64
}{
	{1234.5, "µs/tok", "ms/tok", 1.2345},
	{1.2345, "ms/tok", "µs/tok", 1234.5},
	{1, "GiB", "GB", 1.073741824},
	{1, "GB", "GiB", 1e9 / (1 << 30)},
	{1, "KiB", "B", 1024},
	{1, "kB", "B", 1000},
	{3, "TB", "GB", 3000},
	{1, "TiB", "GiB", 1024},
	{90, "s", "min", 1.5},
	{2, "h", "min", 120},
	{250, "ms", "s", 0.25},
	{6.1, "GB/s", "MB/s", 6100},
	{1, "GiB/s", "MB/ms", 1.073741824},
	{1, "GiB/tok", "KiB/tok", 1 << 20},
	{20, "tok/s", "tok/ms", 0.02},
	{7, "tokens", "tok", 7},
	{0.5, "ms per token", "s/tok", 0.0005},
}

func TestConvert(t *testing.T) {
	for _, tt := range convertTests {
		got, err := Convert(tt.x, MustParse(tt.from), MustParse(tt.to))
		if err != nil || math.Abs(got-tt.want) > 1e-12*math.Abs(tt.want) {
			t.Errorf("Convert(%v, %s, %s) = %v, %v; want %v", tt.x, tt.from, tt.to, got, err, tt.want)
		}
	}
}

// A conversion by a power of ten is exact in the way the printed value is:
// 1234.5 µs is the float64 nearest 1.2345, not 1234.5 × 0.001.
func TestConvertExact(t *testing.T) {
	got, _ := Convert(1234.5, MustParse("µs"), MustParse("ms"))
	if got != 1.2345 {
		t.Errorf("Convert(1234.5, µs, ms) = %v; want exactly 1.2345", got)
	}
}

func TestConvertDimensions(t *testing.T) {
	for _, p := range [][2]string{{"ms", "MB"}, {"ms/tok", "ms"}, {"tok/s", "ms/tok"}, {"slots", "pages"}, {"%", ""}, {"GB/s", "GB/tok"}} {
		if got, err := Convert(1, MustParse(p[0]), MustParse(p[1])); err == nil {
			t.Errorf("Convert(1, %s, %s) = %v, nil; want an error", p[0], p[1], got)
		}
	}
}

var convertNumberTests = []struct {
	in       string
	from, to string
	text     string
	decimals int
}{
	{"1,234.5", "µs/tok", "ms/tok", "1.2345", 4},
	{"1.2345", "ms/tok", "µs/tok", "1,234.5", 1},
	{"3194", "ms", "s", "3.194", 3},
	{"3.5", "s", "ms", "3,500", 0},
	{"15.820", "GiB", "GB", "16.987", 3},
	{"2.16e-07", "s", "ms", "2.16e-04", 2},
	{"42", "tok", "tokens", "42", 0},
}

func TestConvertNumber(t *testing.T) {
	for _, tt := range convertNumberTests {
		got, err := ConvertNumber(num.MustParse(tt.in), MustParse(tt.from), MustParse(tt.to))
		if err != nil || got.Text != tt.text || got.Decimals != tt.decimals {
			t.Errorf("ConvertNumber(%q, %s, %s) = %q (%d decimals), %v; want %q (%d)", tt.in, tt.from, tt.to, got.Text, got.Decimals, err, tt.text, tt.decimals)
		}
		if back, err := num.Parse(got.Text); err != nil || !num.Matches(got.Value, back) {
			t.Errorf("ConvertNumber(%q, %s, %s): value %v does not print as its text %q", tt.in, tt.from, tt.to, got.Value, got.Text)
		}
	}
}

// TestConvertNumberShiftExact: a conversion by a power of ten is a shift of
// the decimal point, so the value is exactly the one its text parses to,
// not the float product (0.024830 s × 1000 is 24.830000000000002).
func TestConvertNumberShiftExact(t *testing.T) {
	for _, tt := range [][3]string{{"0.024830", "s/tok", "ms/tok"}, {"24830", "µs/tok", "ms/tok"}, {"0.1", "s", "ms"},
		{"7.07", "GB", "MB"}, {"0.3", "ms", "µs"}} {
		got, err := ConvertNumber(num.MustParse(tt[0]), MustParse(tt[1]), MustParse(tt[2]))
		if err != nil {
			t.Fatalf("ConvertNumber(%q, %s, %s): %v", tt[0], tt[1], tt[2], err)
		}
		if back, err := num.Parse(got.Text); err != nil || got.Value != back.Value {
			t.Errorf("ConvertNumber(%q, %s, %s) = %v, printed %q; want the value %v its text reads", tt[0], tt[1], tt[2], got.Value, got.Text, back.Value)
		}
	}
}

var betweenTests = []struct {
	from string
	f    float64
	want string // "" for no conversion
}{
	{"µs", 1000, "ms"},
	{"µs/tok", 1000, "ms/tok"},
	{"ms", 1000, "s"},
	{"s", 60, "min"},
	{"min", 60, "h"},
	{"B", 1024, "KiB"},
	{"MiB", 1024, "GiB"},
	{"B", 1 << 30, "GiB"},
	{"MB", 1000, "GB"},
	{"KB", 1e9, "TB"},
	{"MB", 65, ""},    // a token count, not a conversion
	{"MB", 1024, ""},  // MB is decimal: MB ÷ 1024 is no unit
	{"GiB", 1000, ""}, // GiB is binary
	{"tokens", 1000, ""},
	{"", 1000, ""},
	{"ms", 0, ""},
	{"ms", -1000, ""},
}

func TestBetween(t *testing.T) {
	for _, tt := range betweenTests {
		got, ok := Between(MustParse(tt.from), tt.f)
		if ok != (tt.want != "") || got.String() != tt.want {
			t.Errorf("Between(%s, %v) = %s, %v; want %q", tt.from, tt.f, got, ok, tt.want)
		}
	}
}

func TestIsConversion(t *testing.T) {
	for f, want := range map[float64]bool{1000: true, 1e6: true, 1e9: true, 1024: true, 1 << 20: true, 1 << 30: true, 60: true, 3600: true, 65: false, 7.5: false, 1: false, 43: false, 100: false} {
		if got := IsConversion(f); got != want {
			t.Errorf("IsConversion(%v) = %v; want %v", f, got, want)
		}
	}
}

var prefixTests = []struct {
	in     string
	ratios bool
	want   string
	n      int
}{
	{"ms/tok rest", true, "ms/tok", 6},
	{"ms/tok rest", false, "ms", 2},
	{"GB/s.", true, "GB/s", 4},
	{"tokens and", true, "tokens", 6},
	{"t/s", true, "tok/s", 3},
	{"t/s", false, "", 0}, // "t" is no unit alone
	{"MiB)", true, "MiB", 3},
	{"μs/tok", true, "µs/tok", len("μs/tok")},
	{"ms/xyz", true, "ms", 2}, // no denominator: the atom alone
	{"seconds", true, "s", 1}, // prose words are not symbols; "s" is
	{"zz", true, "", 0},
}

func TestPrefix(t *testing.T) {
	for _, tt := range prefixTests {
		u, n, ok := Prefix(tt.in, tt.ratios)
		if ok != (tt.want != "") || u.String() != tt.want || n != tt.n {
			t.Errorf("Prefix(%q, %v) = %s, %d, %v; want %q, %d", tt.in, tt.ratios, u, n, ok, tt.want, tt.n)
		}
	}
}

func TestCanon(t *testing.T) {
	for in, want := range map[string]string{"t/s": "tok/s", "us": "µs", "kB": "KB", "": "", "gb": "", "ms per token": "ms/tok"} {
		if got := Canon(in); got != want {
			t.Errorf("Canon(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestSeconds: a duration in a time unit of the table in seconds; a unit
// of another dimension, or none of the table's, is an error.
func TestSeconds(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		name string
		want float64
		err  string
	}{
		{1500, "ms", 1.5, ""},
		{2, "min", 120, ""},
		{3, "s", 3, ""},
		{1, "MiB", 0, "not of time"},
		{1, "furlong", 0, "furlong"},
	} {
		got, err := Seconds(tt.v, tt.name)
		switch {
		case tt.err == "" && (err != nil || math.Abs(got-tt.want) > 1e-12):
			t.Errorf("Seconds(%v, %q) = %v, %v; want %v", tt.v, tt.name, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Seconds(%v, %q) = %v, %v; want an error containing %q", tt.v, tt.name, got, err, tt.err)
		}
	}
}
