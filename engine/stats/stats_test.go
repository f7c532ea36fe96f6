package stats

import (
	"errors"
	"math"
	"testing"
)

// aeq reports whether x and y agree to 8 significant digits.
func aeq(x, y float64) bool {
	if x == y {
		return true
	}
	return math.Abs(x-y) <= 1e-8*math.Max(math.Abs(x), math.Abs(y))
}

// The expected U and p below are benchstat's own test data on the same
// inputs: github.com/aclements/go-moremath stats/utest_test.go (commit
// 1c145d50aad9b6c52123198a286ee165f1ee99cf; its large-sample values are
// checked there against R's wilcox.test) and golang.org/x/perf
// benchmath/assumption_test.go, TestCompareNone (commit
// af31a76731725f4850083dc6a181043ec240186e).
func TestMannWhitneyBenchmathData(t *testing.T) {
	s1 := []float64{2, 1, 3, 5}
	s2 := []float64{12, 11, 13, 15}
	s3 := []float64{0, 4, 6, 7}
	s4 := []float64{2, 2, 2, 2}
	l1 := make([]float64, 500)
	for i := range l1 {
		l1[i] = float64(i * 2)
	}
	l2 := make([]float64, 600)
	for i := range l2 {
		l2[i] = float64(i*2 - 41)
	}
	l3 := append([]float64{}, l2...)
	copy(l3[:30], l1[:30])
	tests := []struct {
		name   string
		x1, x2 []float64
		u, p   float64
	}{
		{"small, no ties", s1, s2, 0, 0.028571428571428577},
		{"small, no ties, swapped", s2, s1, 0, 0.028571428571428577},
		{"interleaved", s1, s3, 5, 0.485714285714285770},
		{"identical", s1, s1, 8, 1},
		{"ties", s1, s4, 6, 0.7142857142857143},
		{"large", l1, l2, 135250, 0.0049335360814172224},
		{"large, identical", l1, l1, 125000, 1},
		{"large, ties", l1, l3, 134845, 0.0038703814239617884},
		// benchmath TestCompareNone.
		{"benchmath 3 a side", []float64{-1, -1, -1}, []float64{1, 1, 1}, 0, 0.1},
		{"benchmath 4 a side", []float64{-1, -1, -1, -1}, []float64{1, 1, 1, 1}, 0, 0.02857142857142857},
		{"benchmath mixed", []float64{1, -1, -1, -1}, []float64{-1, 1, 1, 1}, 4, 0.4857142857142857},
	}
	for _, tt := range tests {
		got, err := MannWhitney(tt.x1, tt.x2)
		if err != nil {
			t.Errorf("MannWhitney(%s): %v", tt.name, err)
			continue
		}
		if !aeq(got.U, tt.u) || !aeq(got.P, tt.p) {
			t.Errorf("MannWhitney(%s) = U %v, p %v; want U %v, p %v", tt.name, got.U, got.P, tt.u, tt.p)
		}
	}
}

// One case of go-moremath's test data is not reproduced on purpose:
// {2,1,3,5} against {1,1,1,1,1} gives p = 0 there, which no permutation
// test can give (the observed arrangement has positive probability). The
// exact conditional distribution gives a positive p.
func TestMannWhitneyTiesPositive(t *testing.T) {
	got, err := MannWhitney([]float64{2, 1, 3, 5}, []float64{1, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if got.U != 2.5 || !(got.P > 0 && got.P < 0.1) {
		t.Errorf("MannWhitney = U %v, p %v; want U 2.5, 0 < p < 0.1", got.U, got.P)
	}
}

func TestMannWhitneyErrors(t *testing.T) {
	if _, err := MannWhitney([]float64{2, 2}, []float64{2, 2, 2}); !errors.Is(err, ErrSamplesEqual) {
		t.Errorf("MannWhitney(equal) error = %v; want ErrSamplesEqual", err)
	}
	if _, err := MannWhitney(nil, []float64{1}); !errors.Is(err, ErrEmpty) {
		t.Errorf("MannWhitney(empty) error = %v; want ErrEmpty", err)
	}
	if _, err := MannWhitney([]float64{math.NaN()}, []float64{1}); err == nil {
		t.Errorf("MannWhitney(NaN) error = nil; want an error")
	}
}

// The exact and normal paths agree where both apply: just below and above
// ExactLimit the p-values of shifted samples are close.
func TestMannWhitneyExactVersusNormal(t *testing.T) {
	x1 := make([]float64, 30)
	x2 := make([]float64, 30)
	for i := range x1 {
		x1[i] = float64(i)
		x2[i] = float64(i) + 7.5
	}
	exact, err := MannWhitney(x1, x2)
	if err != nil || !exact.Exact {
		t.Fatalf("MannWhitney(30+30) = %+v, %v; want exact", exact, err)
	}
	normal := normalP(exact.U1, 30, 30, 0)
	if math.Abs(exact.P-normal) > 0.25*exact.P {
		t.Errorf("exact p %v and normal p %v differ by more than 25%%", exact.P, normal)
	}
}

// Expected values from benchmath/assumption_test.go, TestSummaryNone and
// TestMedianSamples (commit af31a76731725f4850083dc6a181043ec240186e).
func TestMedianCIBenchmathData(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		x                 []float64
		conf              float64
		med, lo, hi, cove float64
	}{
		{[]float64{-10, 2, 3, 4, 5, 6}, 0.95, 3.5, -10, 6, 1 - 0.03125},
		{[]float64{-10, 2, 3, 4, 5, 6}, 0.99, 3.5, -inf, inf, 1},
		{[]float64{1, 2}, 0, 1.5, 1, 2, 0.5},
		{[]float64{1}, 0.95, 1, -inf, inf, 1},
		// 8 samples at 0.99: the tails are 2 × 0.00390625.
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8}, 0.99, 4.5, 1, 8, 1 - 0.0078125},
	}
	for _, tt := range tests {
		med, lo, hi, cov, err := MedianCI(tt.x, tt.conf)
		if err != nil || med != tt.med || lo != tt.lo || hi != tt.hi || !aeq(cov, tt.cove) {
			t.Errorf("MedianCI(%v, %v) = %v [%v, %v] %v, %v; want %v [%v, %v] %v", tt.x, tt.conf, med, lo, hi, cov, err, tt.med, tt.lo, tt.hi, tt.cove)
		}
	}
}

// MinDetect and MinInterval are what the distributions give: benchmath's
// uTestMinP table (2/C(2n,n)) crosses 0.05 at 4, and a median interval at
// 0.95 first exists at 6.
func TestSampleSizeThresholds(t *testing.T) {
	for n := 1; n <= 6; n++ {
		a := make([]float64, n)
		b := make([]float64, n)
		for i := range a {
			a[i], b[i] = float64(i), float64(100+i)
		}
		u, err := MannWhitney(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := u.P <= Alpha, n >= MinDetect; got != want {
			t.Errorf("n=%d: separated samples significant = %v (p %v); want %v", n, got, u.P, want)
		}
		_, lo, _, _, _ := MedianCI(a, Confidence)
		if got, want := !math.IsInf(lo, 0), n >= MinInterval; got != want {
			t.Errorf("n=%d: finite median interval = %v; want %v", n, got, want)
		}
	}
}

func TestCompare(t *testing.T) {
	base := []float64{100, 101, 99, 100.5, 99.5, 100.2}
	fast := []float64{200, 202, 198, 201, 199, 200.4}
	c, err := Compare(base, fast)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Significant || c.TooFew || c.U != 0 {
		t.Errorf("Compare(separated) = %+v; want significant, U 0", c)
	}
	if !(c.RatioLo <= c.Ratio && c.Ratio <= c.RatioHi) || math.IsInf(c.RatioLo, 0) || !(c.Ratio > 1.9 && c.Ratio < 2.1) {
		t.Errorf("Compare(separated) ratio = %v [%v, %v]; want about 2 inside a finite interval", c.Ratio, c.RatioLo, c.RatioHi)
	}
	c, err = Compare([]float64{1, 2, 3}, []float64{4, 5, 6})
	if err != nil || c.Significant || !c.TooFew || !math.IsInf(c.RatioHi, 1) {
		t.Errorf("Compare(3 a side) = %+v, %v; want not significant, too few, no interval", c, err)
	}
}
