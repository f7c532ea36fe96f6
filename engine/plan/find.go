package plan

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Found is a phrase found on a line of the plan, in what the line renders
// as (Line.Visible).
type Found struct {
	Line Line
	At   int // byte index of the phrase in Line.Visible()
}

// Clause returns the clause the phrase starts: the rendered text from the
// phrase to the end of its clause (";" or ")") or sentence (a "." before
// white space or the end of the line; the "." of ~0.06 or p.R does not end
// it), at most max runes ("…" marks a cut).
func (f Found) Clause(max int) string {
	s := f.Line.Visible()[f.At:]
	for i, r := range s {
		if r == ';' || r == ')' || r == '.' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
			s = s[:i]
			break
		}
	}
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return strings.TrimSpace(s)
}

// Find returns the first occurrence of phrase on each line that renders
// it, in line order. Case is ignored (Unicode simple folding) and the
// phrase is read as the plan is (NFKC): Markdown markup, HTML comments and
// link destinations are not searched, and "**XNU** bills" holds "xnu
// bills". Lines of code blocks render nothing and hold no phrase.
func (d *Doc) Find(phrase string) []Found {
	phrase = norm.NFKC.String(phrase)
	if phrase == "" {
		return nil
	}
	var out []Found
	for _, l := range d.Lines {
		if i := indexFold(l.Visible(), phrase); i >= 0 {
			out = append(out, Found{Line: l, At: i})
		}
	}
	return out
}

// indexFold returns the byte index in s of the first text that equals sub
// under Unicode simple case folding, or -1. The index is s's own (lowering
// s first could change its byte length before the match).
func indexFold(s, sub string) int {
	n := utf8.RuneCountInString(sub)
	first, _ := utf8.DecodeRuneInString(sub)
	for i, r := range s {
		if !foldEq(r, first) {
			continue
		}
		j, k := i, 0
		for k < n && j < len(s) {
			_, size := utf8.DecodeRuneInString(s[j:])
			j += size
			k++
		}
		if k == n && strings.EqualFold(s[i:j], sub) {
			return i
		}
	}
	return -1
}

// foldEq reports whether a and b are one rune under simple case folding.
func foldEq(a, b rune) bool {
	for f := a; ; {
		if f == b {
			return true
		}
		if f = unicode.SimpleFold(f); f == a {
			return false
		}
	}
}
