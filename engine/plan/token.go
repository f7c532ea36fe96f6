package plan

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/unit"
)

// Kind is the shape of a numeric token.
type Kind int

// Token kinds.
const (
	Single    Kind = iota // 3,194.19 ms
	Range                 // 6.39–6.44 GB/s, 0.4-0.9 s
	Arrow                 // 4.73 → 4.67 GB
	Sum                   // 82.17 + 9.38 %
	PlusMinus             // 0.064 ± 0.002
)

var kindNames = [...]string{"single", "range", "arrow", "sum", "plusminus"}

// String returns the kind's name: "single", "range", "arrow", "sum" or "plusminus".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(?)"
}

// Token is one quoted number, range, arrow pair, sum or ± pair on a line.
type Token struct {
	Kind   Kind
	Text   string       // exact text on the line, e.g. "6.39–6.44 GB/s"
	Parts  []num.Number // the numbers, in order
	Units  []string     // unit of each part (canonical, see Unit), "" where none
	Unit   string       // the token's unit: the last part's unit, or the only one given
	Approx bool         // prefixed by "~" or "≈" (the prefix is in Text)
	Count  bool         // prefixed by "×" as in "×3", a repeat count (the prefix is in Text)
	Line   int          // 1-based line
	Col    int          // 1-based byte column of Text in the line
}

// Quote returns the token's text, the string a claims row quotes.
func (t Token) Quote() string { return t.Text }

// hyphenUnits may follow a number after a hyphen, as in "43-tok" or
// "1,024-token".
var hyphenUnits = map[string]bool{"tok": true, "token": true, "tokens": true, "run": true, "doc": true, "step": true, "byte": true}

// Scan returns the numeric tokens of one line of plan text. These are the
// rules that separate a claim from an identifier; each is tested in
// token_test.go:
//
//   - Scan reads what a line renders as (Line.Visible: the Markdown reader
//     has left out link destinations, HTML and comments, and decoded
//     character references); code spans (`…`) and URLs are not scanned;
//   - a list marker at the start of a line ("1. ", "2) ") is numbering;
//   - a number glued to a letter, "_", "§", "#", "@", "$" or "\" on its left
//     is part of an identifier: Q2_0, IQ3_S, K256, M5, v2, §7.1, #29, L577
//     (and the range L577–581), ub1024;
//   - a number glued on its right to letters that are not a unit, or to
//     "_", is an identifier: 5G, 2549439506dd…, 1600tok.txt, 3rd;
//   - dates (2026-10-15, with an optional time), clock times (07:54:46),
//     dotted versions (1.2.3) and hex strings are identifiers;
//   - a number glued to a path ("results/2026") is an identifier; "58/64"
//     is two numbers;
//   - a setting written name=value with no spaces (MoCE=0.85, K=512) is an
//     identifier, unless a unit follows its value ("rate=999.9 tok/s" is a
//     claim); "n = 1" is a claim;
//   - a command-line flag's value ("-n 128", "--n-gen=64") is a
//     configuration label, checked by plan.label, not a claim;
//   - a number after "section(s)" or "item(s)" is a reference to the plan
//     ("sections 1–6", "item 5"), unless a unit follows it ("item 888
//     tok/s");
//   - everything else that starts with a digit is a claim: a number with
//     optional sign, thousands separators, fraction and exponent, then an
//     optional unit (engine/unit), joined to further numbers by "–"/"-" (range),
//     "→"/"->" (arrow), " + " (sum) or " ± ", and optionally prefixed by
//     "~"/"≈" (approximate) or "×" (a repeat count, "×3").
func Scan(s string) []Token {
	var out []Token
	scanEach(s, func(t Token) bool { out = append(out, t); return true })
	return out
}

// scanEach calls f with each token Scan would return, in order, until f
// returns false.
func scanEach(s string, f func(Token) bool) { scanAll(s, f, nil) }

// scanAll calls f with each token Scan would return, in order, until f
// returns false, and u (if not nil) with the bounds of each word holding a
// digit that is neither part of a token nor an identifier (see Identifier).
func scanAll(s string, f func(Token) bool, u func(a, b int)) {
	reported := -1 // end of the last word reported to u
	check := func(at int) {
		if u == nil || at < reported {
			return
		}
		a, b := wordAt(s, at)
		if a < reported {
			return
		}
		reported = b
		if _, ok := Identifier(s[a:b]); !ok {
			u(a, b)
		}
	}
	i := 0
	// list marker
	if j := skipSpaces(s, 0); j < len(s) && isDigit(s[j]) {
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k+1 < len(s) && (s[k] == '.' || s[k] == ')') && s[k+1] == ' ' {
			i = k + 1
		}
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '`':
			i = skipCode(s, i)
			continue
		case strings.HasPrefix(s[i:], "http://") || strings.HasPrefix(s[i:], "https://"):
			i = skipWord(s, i)
			continue
		case c == '-' && flagStart(s, i):
			// a command-line flag and its value ("-n 128", "--n-gen=64")
			// is a configuration label (see Labels), not a claim
			i = skipFlag(s, i)
			continue
		case isDigit(c):
			if t, end, ok := scanToken(s, i); ok {
				if !f(t) {
					return
				}
				i = end
			} else {
				check(i)
				i = end
			}
			continue
		}
		if c < utf8.RuneSelf && isWordByte(c) {
			// a letter-led word: skip it whole; digits inside it are an
			// identifier (see Identifier) or an unreadable number
			w := i
			i = skipWord(s, i)
			if refWords[strings.ToLower(s[w:i])] {
				// "sections 1–6", "item 5": a reference, not a quantity
				if j := skipSpaces(s, i); j > i && j < len(s) && isDigit(s[j]) && !unitFollows(s, j) {
					i = skipWord(s, j)
				}
				continue
			}
			if strings.IndexFunc(s[w:i], unicode.IsDigit) >= 0 {
				check(w)
			}
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); unicode.IsLetter(r) || r == '§' {
			w := i
			i = skipWord(s, i+size)
			if strings.IndexFunc(s[w:i], unicode.IsDigit) >= 0 {
				check(w)
			}
		} else {
			i += size
		}
	}
}

// Span is a code span (`…`) on a line.
type Span struct {
	Text string // the span's content, without the backticks
	Col  int    // 1-based byte column of the opening backtick
}

// refWords are the words after which a number is a reference to a part of
// the plan, not a quantity: "sections 1–6", "item 5".
var refWords = map[string]bool{"section": true, "sections": true, "item": true, "items": true}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipCode skips a code span starting at s[i] == '`'. An unclosed run of
// backticks is skipped alone, as CommonMark does.
func skipCode(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	fence := s[i : i+n]
	for j := i + n; j < len(s); {
		k := strings.Index(s[j:], fence)
		if k < 0 {
			break
		}
		k += j
		m := 0
		for k+m < len(s) && s[k+m] == '`' {
			m++
		}
		if m == n {
			return k + n
		}
		j = k + m
	}
	return i + n
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '#' || c == '@' || c == '$' || c == '\\'
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// skipWord skips an identifier-like word: letters, digits, "_", the joiners
// ".", "/", ":", "-", "–", "+" when an alphanumeric follows them, and ","
// when a digit follows it.
func skipWord(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isAlnum(r) || r == '_' || r == '#' || r == '§' || r == '@' || r == '$' || r == '\\' || r == '…':
			i += size
		case r == '.' || r == '/' || r == ':' || r == '-' || r == '–' || r == '+' || r == ',':
			nr, _ := utf8.DecodeRuneInString(s[i+size:])
			if i+size < len(s) && (isAlnum(nr) && r != ',' || unicode.IsDigit(nr)) {
				i += size
			} else {
				return i
			}
		default:
			return i
		}
	}
	return i
}

// prevRune returns the rune before s[i] and the one before that.
func prevRunes(s string, i int) (rune, rune) {
	if i == 0 {
		return 0, 0
	}
	r1, n1 := utf8.DecodeLastRuneInString(s[:i])
	if i-n1 == 0 {
		return r1, 0
	}
	r2, _ := utf8.DecodeLastRuneInString(s[:i-n1])
	return r1, r2
}

// scanToken scans the token starting at the digit s[i]. It returns ok=false
// and the index to resume at when the digits belong to an identifier.
func scanToken(s string, i int) (Token, int, bool) {
	p1, p2 := prevRunes(s, i)
	start := i
	switch {
	case unicode.IsLetter(p1) || p1 == '_' || p1 == '§' || p1 == '#' || p1 == '@' || p1 == '$' || p1 == '\\' || p1 == '.' || p1 == ':':
		return Token{}, skipWord(s, i), false
	case p1 == '/' && (unicode.IsLetter(p2) || p2 == '_' || p2 == '.'):
		return Token{}, skipWord(s, i), false
	case p1 == '=' && (isAlnum(p2) || p2 == '_') && !unitFollows(s, i):
		// a setting written name=value: MoCE=0.85, K=512 ("rate=999.9
		// tok/s", a value with a unit, is a measurement)
		return Token{}, skipWord(s, i), false
	case (p1 == '-' || p1 == '–') && (isAlnum(p2) || p2 == '_'):
		// the tail of a hyphenated identifier ("K256-q2", "L577–581" is
		// handled by skipWord of its head)
		return Token{}, skipWord(s, i), false
	}
	if end, ok := identAt(s, i); ok {
		return Token{}, end, false
	}
	t := Token{}
	// prefix: a sign glued to the digit, then "~", "≈" or "×"
	if (p1 == '-' || p1 == '−' || p1 == '+') && (p2 == 0 || p2 == ' ' || p2 == '(' || p2 == '[' || p2 == '\t' || p2 == '~' || p2 == '≈') {
		start -= utf8.RuneLen(p1)
		p1, p2 = prevRunes(s, start)
	}
	switch {
	case p1 == '~' || p1 == '≈':
		t.Approx = true
		start -= utf8.RuneLen(p1)
	case p1 == '×' && (p2 == 0 || p2 == ' ' || p2 == '(' || p2 == '[' || p2 == '\t'):
		t.Count = true
		start -= utf8.RuneLen(p1)
	}
	numStart := start
	if t.Approx || t.Count {
		numStart += utf8.RuneLen(p1)
	}
	n, end, ok := scanNumber(s, numStart, i)
	if !ok {
		return Token{}, end, false
	}
	unit, j, ok := scanUnit(s, end)
	if !ok {
		return Token{}, skipWord(s, i), false
	}
	t.Parts = append(t.Parts, n)
	t.Units = append(t.Units, unit)
	t.Kind = Single
	// connectors
	for {
		kind, k := connector(s, j, t.Kind, len(t.Parts))
		if k < 0 {
			break
		}
		ds := k // first digit of the next part
		if kind == Arrow || kind == PlusMinus {
			for _, sign := range signs {
				if strings.HasPrefix(s[k:], sign) {
					ds = k + len(sign)
				}
			}
		}
		if ds >= len(s) || !isDigit(s[ds]) || identLeft(s, k) {
			break
		}
		if _, ok := identAt(s, ds); ok {
			break
		}
		n2, e2, ok := scanNumber(s, k, ds)
		if !ok {
			break
		}
		u2, e3, ok := scanUnit(s, e2)
		if !ok {
			break
		}
		t.Kind = kind
		t.Parts = append(t.Parts, n2)
		t.Units = append(t.Units, u2)
		j = e3
	}
	t.Text = strings.TrimRight(s[start:j], " ")
	t.Col = start + 1
	for _, u := range t.Units {
		if u != "" {
			t.Unit = u
		}
	}
	// a unit given once at the end applies to every part: "6.39–6.44 GB/s"
	if t.Unit != "" && t.Units[len(t.Units)-1] == t.Unit {
		for k := range t.Units {
			if t.Units[k] == "" {
				t.Units[k] = t.Unit
			}
		}
	}
	return t, j, true
}

// flagStart reports whether a command-line flag ("-n", "--n-gen") starts
// at s[i] == '-': at the start of the line or after a space or "(", one or
// two dashes, then a lower-case letter.
func flagStart(s string, i int) bool {
	if i > 0 && s[i-1] != ' ' && s[i-1] != '\t' && s[i-1] != '(' {
		return false
	}
	j := i + 1
	if j < len(s) && s[j] == '-' {
		j++
	}
	return j < len(s) && 'a' <= s[j] && s[j] <= 'z'
}

// skipFlag skips the flag starting at s[i] and, when a number follows it
// after a space or "=", that number: the flag's value.
func skipFlag(s string, i int) int {
	j := i
	for j < len(s) && s[j] == '-' {
		j++
	}
	for j < len(s) && ('a' <= s[j] && s[j] <= 'z' || isDigit(s[j]) || s[j] == '-') {
		j++
	}
	if j+1 < len(s) && (s[j] == ' ' || s[j] == '=') && isDigit(s[j+1]) {
		return skipWord(s, j+1)
	}
	return j
}

// unitFollows reports whether the number starting at the digit s[i] is
// followed by a unit: then it is a measurement, whatever precedes it
// ("rate=999.9 tok/s", "item 888 tok/s").
func unitFollows(s string, i int) bool {
	_, end, ok := scanNumber(s, i, i)
	if !ok {
		return false
	}
	u, _, ok := scanUnit(s, end)
	return ok && u != ""
}

// identLeft reports whether the digit at s[k] is glued to an identifier on
// its left (used for the second part of a connector).
func identLeft(s string, k int) bool {
	p1, _ := prevRunes(s, k)
	return unicode.IsLetter(p1) || p1 == '_'
}

// identAt reports whether an identifier that starts with a digit begins at
// s[i]: a date, a clock time, a dotted version, or a hex string. It returns
// the end of the identifier.
func identAt(s string, i int) (int, bool) {
	d := func(k, n int) bool {
		if k+n > len(s) {
			return false
		}
		for m := k; m < k+n; m++ {
			if !isDigit(s[m]) {
				return false
			}
		}
		return true
	}
	// date 2026-10-15
	if d(i, 4) && i+10 <= len(s) && s[i+4] == '-' && d(i+5, 2) && s[i+7] == '-' && d(i+8, 2) {
		return skipWord(s, i), true
	}
	// clock time 07:54:46
	k := i
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	if k-i <= 2 && k < len(s) && s[k] == ':' && d(k+1, 2) {
		return skipWord(s, i), true
	}
	// the rest of the word: versions and hex
	w := skipWord(s, i)
	word := s[i:w]
	if strings.Count(word, ".") >= 2 && !strings.ContainsAny(word, "/") && allDigitsDots(word) {
		return w, true
	}
	if isHexIdent(word) {
		return w, true
	}
	return 0, false
}

func allDigitsDots(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) && w[i] != '.' {
			return false
		}
	}
	return true
}

// isHexIdent reports whether w looks like a hash: at least 7 hex digits
// with at least one of a–f, optionally followed by "…".
func isHexIdent(w string) bool {
	w = strings.TrimSuffix(w, "…")
	if len(w) < 7 || sciRE.MatchString(w) {
		return false
	}
	letter := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case isDigit(c):
		case 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			letter = true
		default:
			return false
		}
	}
	return letter
}

// scanNumber scans a number whose text starts at start (a sign, or the first
// digit at i).
func scanNumber(s string, start, i int) (num.Number, int, bool) {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	// thousands groups: ",ddd" not followed by a digit
	for j+4 <= len(s) && s[j] == ',' && d3(s, j+1) && (j+4 == len(s) || !isDigit(s[j+4])) {
		j += 4
	}
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j+1 < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '-' || s[k] == '+') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	// a further ".digit" makes it a version-like identifier, a "," glued to
	// more digits a malformed group: both are identifiers
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		return num.Number{}, skipWord(s, i), false
	}
	n, err := num.Parse(s[start:j])
	if errors.Is(err, strconv.ErrRange) {
		// Too large for a float64 (1e400, 309 digits): still a number the
		// plan quotes, and one no run prints, so the gate must see it.
		return num.Number{Value: math.Inf(1), Text: s[start:j]}, j, true
	}
	if err != nil {
		return num.Number{}, skipWord(s, i), false
	}
	return n, j, true
}

func d3(s string, k int) bool {
	return k+3 <= len(s) && isDigit(s[k]) && isDigit(s[k+1]) && isDigit(s[k+2])
}

// scanUnit scans an optional unit after a number at s[j]: a symbol
// (scanSymbol), which llama.cpp's words for a rate may follow ("61.44 ms
// per token" is ms/tok, "16.28 tokens per second" tok/s; perWords).
func scanUnit(s string, j int) (string, int, bool) {
	u, end, ok := scanSymbol(s, j)
	if ok && u != "" {
		if w, e := perWords(s, end, u); w != "" {
			return w, e, true
		}
	}
	return u, end, ok
}

// perWords reads " per token" or " per second" after the unit u ending at
// s[j] and returns the ratio they make with u in its canonical spelling
// ("ms" → "ms/tok", "tokens" → "tok/s") and the end of the words, or ""
// when none follows or the ratio is no unit.
func perWords(s string, j int, u string) (string, int) {
	for _, w := range []struct{ words, per string }{{" per token", "tok"}, {" per second", "s"}} {
		if !strings.HasPrefix(s[j:], w.words) || !boundary(s, j+len(w.words)) {
			continue
		}
		sym := u
		if u == "tokens" {
			sym = "tok"
		}
		if r := CanonUnit(sym + "/" + w.per); r != "" {
			return r, j + len(w.words)
		}
	}
	return "", j
}

// scanSymbol scans an optional unit symbol after a number at s[j]: glued
// ("0.9s", "69.43%", "2.67×"), after one space ("3.66 GB/s"), or after a
// hyphen ("43-tok"). ok is false when letters glued to the number are not a
// unit: the number is then part of an identifier.
func scanSymbol(s string, j int) (string, int, bool) {
	if j >= len(s) {
		return "", j, true
	}
	r, size := utf8.DecodeRuneInString(s[j:])
	glued := unicode.IsLetter(r) || r == '_' || r == '%' || r == '×' || r == 'µ'
	if r == '_' || unicode.IsDigit(r) {
		return "", j, false
	}
	if glued {
		if u, end := matchUnit(s, j); u != "" {
			return u, end, true
		}
		return "", j, false
	}
	if r == '-' {
		k := j + 1
		w := k
		for w < len(s) && ('a' <= s[w] && s[w] <= 'z') {
			w++
		}
		if w > k && hyphenUnits[s[k:w]] && boundary(s, w) {
			return unit.Canon(s[k:w]), w, true
		}
		if w > k && !boundary(s, w) {
			return "", j, true
		}
		if w > k {
			// "2-dp", "3-way": a number glued to a word it is not the unit of
			return "", j, false
		}
		return "", j, true
	}
	if r == ' ' || r == '\u00a0' {
		// after a space, "×" is the multiplication sign, not a unit
		if u, end := matchUnit(s, j+size); u != "" && u != "×" {
			return u, end, true
		}
	}
	return "", j, true
}

// matchUnit returns the longest unit at s[j] followed by a word boundary
// (engine/unit's symbols: "ms/tok" before "ms"), in its canonical spelling.
func matchUnit(s string, j int) (string, int) {
	for _, ratios := range []bool{true, false} {
		if u, n, ok := unit.Prefix(s[j:], ratios); ok && boundary(s, j+n) {
			return u.String(), j + n
		}
	}
	return "", j
}

// boundary reports whether a word ends before s[k]: end of text, or a rune
// that is not alphanumeric or "_", and not a joiner (".", "/", "-") followed
// by an alphanumeric.
func boundary(s string, k int) bool {
	if k >= len(s) {
		return true
	}
	r, size := utf8.DecodeRuneInString(s[k:])
	if isAlnum(r) || r == '_' {
		return false
	}
	if r == '.' || r == '/' || r == '-' {
		nr, _ := utf8.DecodeRuneInString(s[k+size:])
		if k+size < len(s) && isAlnum(nr) {
			return false
		}
	}
	return true
}

// conns are the joiners between the parts of a token, longest first.
var conns = []struct {
	text string
	kind Kind
}{
	{" → ", Arrow}, {"→", Arrow}, {" -> ", Arrow}, {"->", Arrow},
	{" – ", Range}, {"–", Range}, {"—", Range}, {"-", Range},
	{" + ", Sum}, {" ± ", PlusMinus}, {"±", PlusMinus},
}

var signs = []string{"-", "−"}

// connector reads a joiner after a token part at s[j] and returns the kind it
// makes and the index of the next part, or -1. A token keeps one kind:
// "a + b + c" is a sum of three, "a–b → c–d" is not joined.
func connector(s string, j int, cur Kind, parts int) (Kind, int) {
	for _, c := range conns {
		if !strings.HasPrefix(s[j:], c.text) {
			continue
		}
		if parts > 1 && c.kind != cur {
			return 0, -1
		}
		if c.kind != Sum && parts > 1 {
			return 0, -1 // ranges, arrows and ± pairs have two parts
		}
		return c.kind, j + len(c.text)
	}
	return 0, -1
}

// CanonUnit returns the canonical spelling of a unit ("tok" → "tokens",
// "t/s" → "tok/s"; engine/unit's table), or "" for an unknown or empty unit.
func CanonUnit(u string) string { return unit.Canon(u) }
