package plan

import "testing"

// microCases: the micro sign U+00B5 becomes the Greek mu U+03BC under NFKC,
// which the plan reads before numbers; both, and "us", must still be read as
// micro (a helper saw "µs" read as no unit while the unit table was landing).
var microCases = []struct {
	line string
	unit string
}{
	{"GPU time is 1,234.5 \u00b5s per token.", "µs/tok"},
	{"GPU time is 12 \u00b5s/tok.", "µs/tok"},
	{"A fill takes 5 \u03bcs.", "µs"},
	{"A fill takes 5 us.", "µs"},
}

func TestMicroUnits(t *testing.T) {
	for _, c := range microCases {
		d := Parse("PLAN.md", []byte("# P\n\n## §1 R\n\n"+c.line+"\n"))
		toks := d.TokensIn("§1")
		if len(toks) != 1 {
			t.Errorf("Parse(%q): %d numbers in §1; want 1", c.line, len(toks))
			continue
		}
		if got := toks[0].Unit; got != c.unit {
			t.Errorf("Parse(%q) unit = %q; want %q", c.line, got, c.unit)
		}
	}
}
