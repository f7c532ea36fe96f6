// Package names finds the known name a misspelt one most likely meant, for
// the "did you mean" of an error: a rule, run, metric, set or spec key that
// names nothing.
package names

import (
	"sort"
	"strings"
)

// Closest returns the known name nearest to name by edit distance
// (insertions, deletions, substitutions and swaps of two neighbouring
// letters, case folded), and whether it is near enough to suggest: at most
// one edit for a name of up to four letters, two up to eight, three beyond,
// and never more than half the name. Ties go to the name first in sorted
// order, so the answer does not depend on the order of known.
func Closest(name string, known []string) (string, bool) {
	if name == "" || len(known) == 0 {
		return "", false
	}
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	best, bestD := "", -1
	for _, k := range sorted {
		if k == name {
			continue
		}
		d := distance(strings.ToLower(name), strings.ToLower(k))
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > limit(name) {
		return "", false
	}
	return best, true
}

// DidYouMean is `; did you mean "x"?` for the closest known name, or ""
// when none is near enough.
func DidYouMean(name string, known []string) string {
	if k, ok := Closest(name, known); ok {
		return `; did you mean "` + k + `"?`
	}
	return ""
}

// limit is the largest edit distance suggested for a name.
func limit(name string) int {
	n := len([]rune(name))
	l := 3
	switch {
	case n <= 4:
		l = 1
	case n <= 8:
		l = 2
	}
	return min(l, max(n/2, 1))
}

// distance is the optimal string alignment distance between a and b (the
// Damerau–Levenshtein distance without repeated edits of one substring),
// over runes.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
