package spec

import (
	"math"
	"slices"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
)

// TestChartsForFailingRangesAndComparisons checks that every failing range
// and comparison of fixtures/m5-v3 carries the data of its chart (the HTML
// report draws a chart for each Plot): the unsourced ranges F14 and F15
// had none while passing findings had charts. Each plot's runs span the
// raw range the finding names, and an arrow pair quotes its two numbers.
func TestChartsForFailingRangesAndComparisons(t *testing.T) {
	fs := auditFindings(t, "../fixtures/m5-v3", "")
	tests := []struct {
		rule, id, quote string
		kind            string
		lo, hi          float64   // the smallest and largest value plotted
		quoted          []float64 // the plot's quoted numbers
	}{
		{"plan.range", "F13", "6.39–6.44 GB/s", "range", 3.66, 6.44, []float64{6.39, 6.44}},
		{"plan.unsourced", "F14", "6.82–7.07 GB/s", "range", 6.10, 7.07, []float64{6.82, 7.07}},
		{"plan.unsourced", "F15", "0.5 s", "range", 0.4, 0.9, []float64{0.5}},
		{"compare.unlike", "F17", "14.3 → 38.11 tok/s", "compare", 14.3, 38.11, []float64{14.3, 38.11}},
		{"compare.unlike", "F17", "2.67×", "compare", 14.3, 38.11, nil},
		{"compare.unlike", "F18", "1.40 → 3.22 tok/s", "compare", 1.40, 3.22, []float64{1.40, 3.22}},
		{"compare.unlike", "F16", "−55.8 %", "compare", 46808.58, 105851.73, nil},
		// a per-token figure derived from MB: the quote is not on the MB axis
		{"compare.unlike", "F19", "1,628.5 → 514.3 MB/tok", "compare", 33428.34, 105851.73, nil},
		{"compare.significance", "", "9.51 → 13.52 tok/s", "compare", 9.51, 13.52, []float64{9.51, 13.52}},
	}
	for _, tt := range tests {
		var got *finding.Finding
		for i, f := range fs {
			if f.Rule == tt.rule && f.ID == tt.id && f.Quote == tt.quote && f.Severity == finding.Fail {
				got = &fs[i]
				break
			}
		}
		if got == nil {
			t.Errorf("%s %s %q: no fail finding", tt.rule, tt.id, tt.quote)
			continue
		}
		p := got.Plot
		if p == nil || len(p.Points) == 0 {
			t.Errorf("%s %s %q: plot = %v; want the values behind the finding", tt.rule, tt.id, tt.quote, p)
			continue
		}
		if p.Kind != tt.kind {
			t.Errorf("%s %q: plot kind = %q; want %q", tt.rule, tt.quote, p.Kind, tt.kind)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, pt := range p.Points {
			lo, hi = math.Min(lo, pt.Value), math.Max(hi, pt.Value)
		}
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("%s %q: plotted values span %v–%v; want %v–%v", tt.rule, tt.quote, lo, hi, tt.lo, tt.hi)
		}
		if !slices.Equal(p.Quoted, tt.quoted) {
			t.Errorf("%s %q: plot quotes %v; want %v", tt.rule, tt.quote, p.Quoted, tt.quoted)
		}
	}
}
