package num

import (
	"math"
	"testing"
)

var parseTests = []struct {
	in       string
	value    float64
	decimals int
	sci      bool
}{
	{"3,194.19", 3194.19, 2, false},
	{"105,851.73", 105851.73, 2, false},
	{"90.11", 90.11, 2, false},
	{"2441", 2441, 0, false},
	{"2.16e-07", 2.16e-07, 2, true},
	{"-0.5", -0.5, 1, false},
	{"\u22120.5", -0.5, 1, false}, // a typographic minus, as Markdown editors insert
	{"0.0", 0, 1, false},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		n, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q) error %v", tt.in, err)
			continue
		}
		if n.Value != tt.value || n.Decimals != tt.decimals || n.Sci != tt.sci {
			t.Errorf("Parse(%q) = %v/%d/%v; want %v/%d/%v", tt.in, n.Value, n.Decimals, n.Sci, tt.value, tt.decimals, tt.sci)
		}
	}
}

func TestParseSpecial(t *testing.T) {
	for _, in := range []string{"inf", "-inf", "nan"} {
		n, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q) error %v", in, err)
		}
		if !math.IsInf(n.Value, 0) && !math.IsNaN(n.Value) {
			t.Errorf("Parse(%q) = %v; want inf or nan", in, n.Value)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "1,23.4", "12,3456", "1.2,3", "abc", "1..2"} {
		if n, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %v; want error", in, n.Value)
		}
	}
}

var matchTests = []struct {
	raw   float64
	quote string
	want  bool
}{
	{90.107, "90.11", true},
	{57.612, "57.61", true},
	{3194.19, "3,194.23", false},
	{3194.19, "3,194.19", true},
	{5793.65, "5,793.62", false},
	{0.0645, "0.064461", false},
	{2.1649e-07, "2.16e-07", true},
	{2.1651e-07, "2.16e-07", false},
	{51.8387, "51.8", true},
	{1.3586, "1.36", true},
	{1.3586, "1.35", false},
	{0.125, "0.13", true}, // half away from zero, as printf's %.2f prints 0.125 in decimal
	{math.NaN(), "nan", true},
	{math.Inf(1), "inf", true},
	{1, "inf", false},
}

func TestMatches(t *testing.T) {
	for _, tt := range matchTests {
		if got := Matches(tt.raw, MustParse(tt.quote)); got != tt.want {
			t.Errorf("Matches(%v, %q) = %v; want %v", tt.raw, tt.quote, got, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		d    int
		want string
	}{
		{3194.19, 2, "3,194.19"},
		{105851.73, 2, "105,851.73"},
		{2441, 0, "2,441"},
		{-1234.5, 1, "-1,234.5"},
		{12, 2, "12.00"},
	} {
		if got := Format(tt.v, tt.d); got != tt.want {
			t.Errorf("Format(%v, %d) = %q; want %q", tt.v, tt.d, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			return
		}
		_ = Matches(n.Value, n)
	})
}

// BenchmarkParse: go test ./engine/num -run '^$' -bench Parse -benchmem
func BenchmarkParse(b *testing.B) {
	texts := []string{"3,194.19", "2.16e-07", "90.11", "2441", "nan"}
	for b.Loop() {
		for _, s := range texts {
			if _, err := Parse(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}
