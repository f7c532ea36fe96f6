package tail

import (
	"fmt"
	"strings"
)

// A template is a line pattern compiled to a matcher that needs no regular
// expression engine: the strata log parser runs one on every metric line,
// and a regexp there cost most of the parser's time (40–50 MB/s). It
// accepts the subset of regexp syntax the line rules use and matches
// exactly as regexp.MustCompile("^" + pattern + "$") with %n replaced by
// numRE would, captures included (leftmost-first: every greedy choice is
// tried longest first, and the first full match wins). TestTemplateRegexp
// holds the two to agreement on every rule and every fixture line.
//
// Syntax: %n a number (captured); %u a printed unit, a run of non-space
// (captured); \S+ a run of non-space; .* anything;
// [^)]* anything but ')'; (?:xy)? an optional literal; \b a word boundary;
// \X the literal byte X, and \X? an optional one; any other byte itself.
type template struct {
	src  string
	toks []ttok
	ncap int
}

type ttokKind uint8

const (
	tLit      ttokKind = iota // literal text
	tOpt                      // optional literal text
	tNum                      // a number, captured
	tWord                     // \S+
	tUnit                     // \S+, captured (%u)
	tAny                      // .*
	tNotClose                 // [^)]*
	tBoundary                 // \b
)

type ttok struct {
	kind ttokKind
	lit  string
}

// compileTemplate compiles a line pattern; it panics on syntax outside the
// subset, which is a programming error in a rule table.
func compileTemplate(p string) *template {
	t := &template{src: p}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.toks = append(t.toks, ttok{kind: tLit, lit: lit.String()})
			lit.Reset()
		}
	}
	add := func(k ttokKind, s string) {
		flush()
		t.toks = append(t.toks, ttok{kind: k, lit: s})
	}
	for i := 0; i < len(p); {
		switch rest := p[i:]; {
		case strings.HasPrefix(rest, "%n"):
			add(tNum, "")
			t.ncap++
			i += 2
		case strings.HasPrefix(rest, "%u"):
			add(tUnit, "")
			t.ncap++
			i += 2
		case strings.HasPrefix(rest, `\S+`):
			add(tWord, "")
			i += 3
		case strings.HasPrefix(rest, ".*"):
			add(tAny, "")
			i += 2
		case strings.HasPrefix(rest, "[^)]*"):
			add(tNotClose, "")
			i += 5
		case strings.HasPrefix(rest, `\b`):
			add(tBoundary, "")
			i += 2
		case strings.HasPrefix(rest, "(?:"):
			end := strings.Index(rest, ")?")
			if end < 0 || strings.ContainsAny(rest[3:end], `\.*+?()[]|^$`) {
				panic(fmt.Sprintf("tail: template %q: unsupported group at byte %d", p, i))
			}
			add(tOpt, rest[3:end])
			i += end + 2
		case rest[0] == '\\':
			if len(rest) < 2 || !strings.ContainsRune(`()|+[].\`, rune(rest[1])) {
				panic(fmt.Sprintf("tail: template %q: unsupported escape at byte %d", p, i))
			}
			if len(rest) > 2 && rest[2] == '?' {
				add(tOpt, rest[1:2])
				i += 3
				continue
			}
			lit.WriteByte(rest[1])
			i += 2
		case strings.ContainsRune(`.*+?()[]|^$`, rune(rest[0])):
			panic(fmt.Sprintf("tail: template %q: unsupported %q at byte %d", p, rest[0], i))
		default:
			lit.WriteByte(rest[0])
			i++
		}
	}
	flush()
	return t
}

// match matches the whole of s and fills caps (len ≥ t.ncap) with the
// numbers' texts.
func (t *template) match(s string, caps []string) bool {
	return t.m(s, 0, 0, 0, caps)
}

func (t *template) m(s string, i, k, c int, caps []string) bool {
	if k == len(t.toks) {
		return i == len(s)
	}
	tk := &t.toks[k]
	switch tk.kind {
	case tLit:
		if !strings.HasPrefix(s[i:], tk.lit) {
			return false
		}
		return t.m(s, i+len(tk.lit), k+1, c, caps)
	case tOpt:
		if strings.HasPrefix(s[i:], tk.lit) && t.m(s, i+len(tk.lit), k+1, c, caps) {
			return true
		}
		return t.m(s, i, k+1, c, caps)
	case tNum:
		return numEnds(s, i, func(e int) bool {
			if t.m(s, e, k+1, c+1, caps) {
				caps[c] = s[i:e]
				return true
			}
			return false
		})
	case tWord, tUnit:
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		next := c
		if tk.kind == tUnit {
			next++
		}
		for e := j; e > i; e-- {
			if t.m(s, e, k+1, next, caps) {
				if tk.kind == tUnit {
					caps[c] = s[i:e]
				}
				return true
			}
		}
		return false
	case tAny:
		if k+1 == len(t.toks) {
			return true
		}
		if next := &t.toks[k+1]; next.kind == tLit {
			// Only the places where the literal starts can match, the last first.
			end := len(s)
			for {
				at := strings.LastIndex(s[i:end], next.lit)
				if at < 0 {
					return false
				}
				if t.m(s, i+at, k+1, c, caps) {
					return true
				}
				end = i + at + len(next.lit) - 1
			}
		}
		for e := len(s); e >= i; e-- {
			if t.m(s, e, k+1, c, caps) {
				return true
			}
		}
		return false
	case tNotClose:
		j := i
		for j < len(s) && s[j] != ')' {
			j++
		}
		for e := j; e >= i; e-- {
			if t.m(s, e, k+1, c, caps) {
				return true
			}
		}
		return false
	case tBoundary:
		before := i > 0 && isWordByte(s[i-1])
		after := i < len(s) && isWordByte(s[i])
		if before == after {
			return false
		}
		return t.m(s, i, k+1, c, caps)
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// numEnds calls try with every end e such that s[i:e] matches numRE, in the
// order a backtracking regexp would try them, until try returns true.
func numEnds(s string, i int, try func(e int) bool) bool {
	j := i
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		// [-+]? is greedy; without the sign no alternative can start at a sign.
		j++
	}
	// [-+]?(?:inf|nan) is the second alternative; tried after the first.
	if j < len(s) && isDigit(s[j]) {
		// \d[\d,]*(?:\.\d*)? then an optional exponent.
		m := j + 1
		for m < len(s) && (isDigit(s[m]) || s[m] == ',') {
			m++
		}
		for p := m; p >= j+1; p-- {
			if p < len(s) && s[p] == '.' && fracEnds(s, p, 0, try) {
				return true
			}
			if expEnds(s, p, try) {
				return true
			}
		}
	} else if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) && fracEnds(s, j, 1, try) {
		return true
	}
	if strings.HasPrefix(s[j:], "inf") || strings.HasPrefix(s[j:], "nan") {
		return try(j + 3)
	}
	return false
}

// fracEnds tries the digits after the '.' at dot, longest first and at
// least min of them, each followed by an optional exponent.
func fracEnds(s string, dot, min int, try func(e int) bool) bool {
	d := dot + 1
	for d < len(s) && isDigit(s[d]) {
		d++
	}
	for q := d; q >= dot+1+min; q-- {
		if expEnds(s, q, try) {
			return true
		}
	}
	return false
}

// expEnds tries an optional exponent [eE][-+]?\d+ at q (longest first),
// then none.
func expEnds(s string, q int, try func(e int) bool) bool {
	if q < len(s) && (s[q] == 'e' || s[q] == 'E') {
		x := q + 1
		if x < len(s) && (s[x] == '+' || s[x] == '-') {
			x++
		}
		d := x
		for d < len(s) && isDigit(s[d]) {
			d++
		}
		for e := d; e > x; e-- {
			if try(e) {
				return true
			}
		}
	}
	return try(q)
}
