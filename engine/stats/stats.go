// Package stats decides whether two samples of a benchmark differ, the way
// benchstat (golang.org/x/perf/benchmath, AssumeNothing) does: the
// Mann-Whitney U test at α = 0.05 for the difference, and confidence
// intervals of the medians from order statistics for the size of it.
//
// # The U test
//
// U counts the pairs (x1, x2) with x1 > x2, a tie counting one half; the
// reported U is the smaller of that count for either sample, as benchmath's
// stats package reports it. The two-sided p-value is twice the smaller tail
// of U's distribution under the null hypothesis that both samples come from
// one distribution:
//
//   - Exact, for n1+n2 ≤ ExactLimit: the permutation distribution of the
//     rank sum, counted by dynamic programming over the pooled ranks. With
//     ties the ranks are midranks and the distribution is the one
//     conditional on the observed ties (Cheung & Klotz 1997).
//   - Beyond, the normal approximation with the tie correction of the
//     variance and a continuity correction of one half, as R's wilcox.test
//     computes it.
//
// A sample of all-equal values in both arms is ErrSamplesEqual: the test
// says nothing.
//
// # Sample sizes
//
// With n values a side the smallest two-sided p the exact test can give is
// 2/C(2n, n): 0.1 for 3, 0.0286 for 4. So at α = 0.05 a difference can be
// detected only with at least 4 samples a side (MinDetect), whatever the
// data; benchstat warns "need >= 4 samples to detect a difference". A 95%
// confidence interval of a median needs at least 6 samples (MinInterval):
// with 5 the widest interval, from the smallest to the largest value,
// covers the median with probability 1 − 2/2⁵ = 0.9375 only.
//
// # The ratio
//
// Compare reports the ratio of the medians (second over first) and a
// conservative interval for it: from the low end of the second median's
// interval over the high end of the first's, to the high end over the low
// end. When either median has no finite interval (fewer than MinInterval
// samples) the ratio's interval is (−∞, +∞).
package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Alpha is the significance level benchstat uses.
const Alpha = 0.05

// Confidence is the confidence level of benchstat's intervals.
const Confidence = 0.95

// ExactLimit is the largest n1+n2 for which the U test's p-value is computed
// from the exact distribution.
const ExactLimit = 60

// MinDetect is the fewest samples a side with which the U test can reach
// p ≤ Alpha.
const MinDetect = 4

// MinInterval is the fewest samples with which a median has a finite
// interval at Confidence.
const MinInterval = 6

// ErrSamplesEqual is returned when every value of both samples is the same.
var ErrSamplesEqual = errors.New("all samples are equal")

// ErrEmpty is returned for a sample with no value.
var ErrEmpty = errors.New("empty sample")

// UTest is the result of a Mann-Whitney U test.
type UTest struct {
	N1, N2 int
	U      float64 // min(U1, U2); U1 counts pairs with x1 > x2, ties one half
	U1     float64 // the count for the first sample
	P      float64 // two-sided p-value
	Exact  bool    // P from the exact distribution (else normal approximation)
}

// MannWhitney runs the two-sided Mann-Whitney U test on x1 and x2.
func MannWhitney(x1, x2 []float64) (UTest, error) {
	n1, n2 := len(x1), len(x2)
	if n1 == 0 || n2 == 0 {
		return UTest{N1: n1, N2: n2, P: 1}, ErrEmpty
	}
	for _, x := range append(slices.Clone(x1), x2...) {
		if math.IsNaN(x) {
			return UTest{N1: n1, N2: n2, P: 1}, fmt.Errorf("sample holds NaN")
		}
	}
	// Pool and rank with midranks, doubled so that every rank is an integer.
	type obs struct {
		v     float64
		first bool
	}
	pool := make([]obs, 0, n1+n2)
	for _, v := range x1 {
		pool = append(pool, obs{v, true})
	}
	for _, v := range x2 {
		pool = append(pool, obs{v, false})
	}
	slices.SortFunc(pool, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	n := n1 + n2
	rank2 := make([]int, n) // 2 × midrank
	ties := 0.0             // Σ (t³ − t) over tie groups
	groups := 0
	for i := 0; i < n; {
		j := i
		for j < n && pool[j].v == pool[i].v {
			j++
		}
		// Ranks i+1 … j, midrank (i+1+j)/2, doubled: i+1+j.
		for k := i; k < j; k++ {
			rank2[k] = i + 1 + j
		}
		t := float64(j - i)
		ties += t*t*t - t
		groups++
		i = j
	}
	if groups == 1 {
		return UTest{N1: n1, N2: n2, U: float64(n1*n2) / 2, U1: float64(n1*n2) / 2, P: 1}, ErrSamplesEqual
	}
	r1 := 0 // doubled rank sum of sample 1
	for i, o := range pool {
		if o.first {
			r1 += rank2[i]
		}
	}
	u1 := float64(r1)/2 - float64(n1*(n1+1))/2
	res := UTest{N1: n1, N2: n2, U1: u1, U: math.Min(u1, float64(n1*n2)-u1)}
	if n <= ExactLimit {
		res.P, res.Exact = exactP(rank2, n1, r1), true
		return res, nil
	}
	res.P = normalP(u1, n1, n2, ties)
	return res, nil
}

// exactP is the two-sided p-value of a doubled rank sum r1 of n1 values
// drawn from the pooled doubled ranks, counted over every choice of n1 of
// them.
func exactP(rank2 []int, n1, r1 int) float64 {
	maxSum := 0
	for _, r := range rank2 {
		maxSum += r
	}
	// count[k][s]: ways to choose k of the items seen so far with doubled sum s.
	count := make([][]float64, n1+1)
	for k := range count {
		count[k] = make([]float64, maxSum+1)
	}
	count[0][0] = 1
	for _, r := range rank2 {
		for k := n1; k >= 1; k-- {
			prev, cur := count[k-1], count[k]
			for s := maxSum; s >= r; s-- {
				if prev[s-r] != 0 {
					cur[s] += prev[s-r]
				}
			}
		}
	}
	var total, lo, hi float64
	for s, c := range count[n1] {
		total += c
		if s <= r1 {
			lo += c
		}
		if s >= r1 {
			hi += c
		}
	}
	return math.Min(1, 2*math.Min(lo, hi)/total)
}

// normalP is the two-sided p-value of U1 under the normal approximation with
// tie and continuity corrections.
func normalP(u1 float64, n1, n2 int, ties float64) float64 {
	fn1, fn2 := float64(n1), float64(n2)
	n := fn1 + fn2
	mean := fn1 * fn2 / 2
	variance := fn1 * fn2 / 12 * ((n + 1) - ties/(n*(n-1)))
	d := u1 - mean
	switch {
	case d > 0:
		d = math.Max(0, d-0.5)
	case d < 0:
		d = math.Min(0, d+0.5)
	}
	z := d / math.Sqrt(variance)
	return math.Min(1, math.Erfc(math.Abs(z)/math.Sqrt2))
}

// MedianCI returns the median of x and the interval between two order
// statistics that covers the population median with probability at least
// confidence, and that probability. The interval is the narrowest symmetric
// one that does; when even the smallest-to-largest interval covers less
// (too few values), lo and hi are −∞ and +∞ and the coverage is 1.
func MedianCI(x []float64, confidence float64) (median, lo, hi, coverage float64, err error) {
	n := len(x)
	if n == 0 {
		return 0, 0, 0, 0, ErrEmpty
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if n%2 == 1 {
		median = s[n/2]
	} else {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	// Order statistics k and n+1−k (1-based) cover the median unless fewer
	// than k values fall below it or fewer than k above: coverage
	// 1 − 2·P(B ≤ k−1) for B ~ Binomial(n, ½).
	for k := n / 2; k >= 1; k-- {
		if n+1-k < k {
			continue
		}
		cov := 1 - 2*binomCDF(n, k-1)
		if cov >= confidence {
			return median, s[k-1], s[n-k], cov, nil
		}
	}
	return median, math.Inf(-1), math.Inf(1), 1, nil
}

// binomCDF is P(B ≤ k) for B ~ Binomial(n, ½).
func binomCDF(n, k int) float64 {
	sum, c := 0.0, 1.0 // c = C(n, i)
	for i := 0; i <= k; i++ {
		if i > 0 {
			c = c * float64(n-i+1) / float64(i)
		}
		sum += c
	}
	return sum / math.Pow(2, float64(n))
}

// Comparison is the comparison of a baseline sample with another.
type Comparison struct {
	UTest
	Alpha float64
	// Significant: P ≤ Alpha.
	Significant bool
	// TooFew: both samples are smaller than MinDetect, so no data could
	// have shown a difference at Alpha.
	TooFew bool
	// Ratio is median(x2)/median(x1); RatioLo and RatioHi bound it (±Inf
	// without a finite interval of both medians).
	Ratio, RatioLo, RatioHi float64
	Median1, Median2        float64
	Confidence              float64
}

// Compare compares sample x2 with the baseline x1 at Alpha and Confidence.
// It returns the U test's error (ErrSamplesEqual, ErrEmpty) with a
// comparison that is not significant.
func Compare(x1, x2 []float64) (Comparison, error) {
	u, err := MannWhitney(x1, x2)
	c := Comparison{UTest: u, Alpha: Alpha, Confidence: Confidence}
	c.TooFew = u.N1 < MinDetect && u.N2 < MinDetect
	c.Significant = err == nil && u.P <= Alpha
	if u.N1 == 0 || u.N2 == 0 {
		return c, err
	}
	m1, lo1, hi1, _, _ := MedianCI(x1, Confidence)
	m2, lo2, hi2, _, _ := MedianCI(x2, Confidence)
	c.Median1, c.Median2 = m1, m2
	c.Ratio = m2 / m1
	c.RatioLo, c.RatioHi = math.Inf(-1), math.Inf(1)
	if !math.IsInf(lo1, 0) && !math.IsInf(lo2, 0) && lo1 > 0 && lo2 > 0 {
		c.RatioLo, c.RatioHi = lo2/hi1, hi2/lo1
	}
	return c, err
}

// String prints the comparison as "U=… p=… n=N1+N2", with the ratio and
// its interval.
func (c Comparison) String() string {
	s := fmt.Sprintf("Mann-Whitney U=%g, p=%.4g, n=%d+%d", c.U, c.P, c.N1, c.N2)
	if c.N1 > 0 && c.N2 > 0 {
		if math.IsInf(c.RatioLo, 0) {
			s += fmt.Sprintf("; ratio of medians %.4g (no %g%% interval: need ≥ %d samples a side)", c.Ratio, 100*c.Confidence, MinInterval)
		} else {
			s += fmt.Sprintf("; ratio of medians %.4g, %g%% interval [%.4g, %.4g]", c.Ratio, 100*c.Confidence, c.RatioLo, c.RatioHi)
		}
	}
	return s
}
