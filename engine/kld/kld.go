// Package kld holds the statistics of teacher-forcing KLD evaluations: the
// macro over domains, a bootstrap confidence interval over documents, the
// sample-size check, the figures with the first scored token excluded, and a
// parser for llama-perplexity's --kl-divergence statistics block.
package kld

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// MinDocs is the fewest documents per domain for which a confidence interval
// over documents is computed; below it a figure needs a stated caveat.
const MinDocs = 3

// ErrTooFewDocs is returned by Bootstrap for fewer than MinDocs documents.
var ErrTooFewDocs = errors.New("kld: fewer than 3 documents: no confidence interval")

// Macro returns the unweighted mean over domains of per-domain values. When
// decimals >= 0 each value is first rounded half away from zero to that many
// decimals, as a runner does that prints per-domain figures before averaging
// them (top-1 agreement: 90.625 → 90.63). Domains are summed in sorted order
// so the result does not depend on map order.
func Macro(perDomain map[string]float64, decimals int) (float64, error) {
	if len(perDomain) == 0 {
		return 0, errors.New("kld: macro over no domains")
	}
	names := make([]string, 0, len(perDomain))
	for d := range perDomain {
		names = append(names, d)
	}
	sort.Strings(names)
	var sum float64
	for _, d := range names {
		v := perDomain[d]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("kld: domain %s: value %v", d, v)
		}
		if decimals >= 0 {
			p := math.Pow(10, float64(decimals))
			v = math.Round(v*p) / p
		}
		sum += v
	}
	return sum / float64(len(names)), nil
}

// Interval is a confidence interval.
type Interval struct {
	Lo, Hi float64
	Level  float64 // e.g. 0.95
	N      int     // documents resampled
	Reps   int     // bootstrap replicates
}

// String returns the interval with its level, documents and resamples.
func (iv Interval) String() string {
	return fmt.Sprintf("[%.6g, %.6g] (%.0f%%, n=%d, %d resamples)", iv.Lo, iv.Hi, 100*iv.Level, iv.N, iv.Reps)
}

// Bootstrap returns the percentile bootstrap interval of the mean of
// per-document values: reps resamples with replacement, drawn from a PCG
// generator seeded with seed, so the same inputs give the same interval. It
// returns ErrTooFewDocs for fewer than MinDocs documents.
func Bootstrap(docs []float64, level float64, reps int, seed uint64) (Interval, error) {
	if len(docs) < MinDocs {
		return Interval{}, ErrTooFewDocs
	}
	if level <= 0 || level >= 1 || reps < 1 {
		return Interval{}, fmt.Errorf("kld: bootstrap level %v, %d resamples", level, reps)
	}
	for i, v := range docs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Interval{}, fmt.Errorf("kld: document %d: value %v", i, v)
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	means := make([]float64, reps)
	n := len(docs)
	for r := range means {
		var sum float64
		for range n {
			sum += docs[rng.IntN(n)]
		}
		means[r] = sum / float64(n)
	}
	slices.Sort(means)
	alpha := (1 - level) / 2
	return Interval{Lo: quantile(means, alpha), Hi: quantile(means, 1-alpha), Level: level, N: n, Reps: reps}, nil
}

// quantile interpolates linearly between order statistics of sorted values.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	frac := pos - float64(i)
	return sorted[i]*(1-frac) + sorted[i+1]*frac
}

// Sample is the sample size behind one domain's figure.
type Sample struct {
	Domain string
	Docs   int // documents
	Tokens int // scored tokens over all documents
}

// Small returns the samples with fewer than MinDocs documents, in input order.
func Small(samples []Sample) []Sample {
	var out []Sample
	for _, s := range samples {
		if s.Docs < MinDocs {
			out = append(out, s)
		}
	}
	return out
}

// ExcludeFirst returns the mean of n per-token values with the first, of
// value first, left out: (n·mean − first)/(n − 1).
func ExcludeFirst(mean float64, n int, first float64) (float64, error) {
	if n < 2 {
		return 0, fmt.Errorf("kld: cannot exclude one of %d tokens", n)
	}
	return (mean*float64(n) - first) / float64(n-1), nil
}
