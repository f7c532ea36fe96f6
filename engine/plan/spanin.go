package plan

import "strings"

// SpanIn reports whether text (a run's output tail) holds the words of a
// code span s in order, separated by white space within a line (any
// amount), as a sequence of whole tokens: the match neither starts nor
// ends inside a word or a number of the text ("94.19 ms" is not in
// "3194.19 ms"). It is how the gate reads "the span occurs verbatim in the
// tail": the span's words are split here, by the plan's reader.
func SpanIn(s, text string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return false
	}
	for off := 0; ; {
		i := strings.Index(text[off:], f[0])
		if i < 0 {
			return false
		}
		start := off + i
		j := start + len(f[0])
		ok := !glued(text, start-1)
		for _, w := range f[1:] {
			if !ok {
				break
			}
			k := j
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			if k == j || !strings.HasPrefix(text[k:], w) {
				ok = false
				break
			}
			j = k + len(w)
		}
		if ok && !glued(text, j) {
			return true
		}
		off = start + 1
	}
}

// glued reports whether text[i] would join a token to its neighbour: a
// letter, a digit, "_", or a "." or "," between digits.
func glued(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	if c == '.' || c == ',' {
		return i > 0 && i+1 < len(text) && isDigit(text[i-1]) && isDigit(text[i+1])
	}
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_'
}
