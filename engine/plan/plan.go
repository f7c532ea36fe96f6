// Package plan reads a strata PLAN.md: its sections (from the Markdown
// headings and the plan's own numbering, §7.1 and #29), its lines, the
// numeric tokens each line quotes (value, printed precision, unit; ranges,
// arrow pairs, sums), and its caveats.
//
// What is a claim and what is an identifier is decided by the visible rules
// of the scanner in token.go; see Scan.
package plan

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Doc is a parsed plan.
type Doc struct {
	File     string     // path as given to Load or Parse, used in errors
	Lines    []Line     // Lines[i] is line i+1
	Sections []*Section // every heading, in order
	Caveats  []Caveat   // every caveat, in order
	Errors   []*Error   // problems found while reading; reading goes on
	Notes    []string   // what reading set aside ("file:1: a UTF-8 byte order mark … is ignored")
}

// bom is the UTF-8 byte order mark some editors write at the start of a
// file; it is not part of the first line.
const bom = "\uFEFF"

// Line is one line of the plan. Its numeric tokens are scanned when asked
// for (Tokens), not kept: a plan's memory is its text, whatever the count
// of numbers on a line.
type Line struct {
	N       int      // 1-based line number
	Text    string   // the line without its line ending; invalid UTF-8 replaced by U+FFFD
	Section *Section // innermost section the line is in; nil before the first heading
	kind    lineKind
}

type lineKind uint8

const (
	proseLine   lineKind = iota // scanned whole
	headingLine                 // scanned without the heading's own number
	fenceLine                   // a fence or a line inside one: not scanned
)

// Tokens returns the numeric tokens quoted on the line (claims, not
// identifiers; see Scan), in order. A line in a fenced code block (opened
// and closed as CommonMark does; an unclosed block runs to the end) has
// none (see FencedTokens);
// a heading's own number ("7.1") is not one of them.
func (l Line) Tokens() []Token {
	var toks []Token
	l.EachToken(func(t Token) bool { toks = append(toks, t); return true })
	return toks
}

// EachToken calls f with each numeric token of the line, in order, until f
// returns false. It holds one token at a time.
func (l Line) EachToken(f func(Token) bool) {
	switch l.kind {
	case fenceLine:
		return
	case headingLine:
		_, title, _ := heading(l.Text)
		scanEach(headingBody(title), func(t Token) bool {
			t.Line, t.Col = l.N, t.Col+strings.Index(l.Text, title)
			return f(t)
		})
	default:
		scanEach(l.Text, func(t Token) bool {
			t.Line = l.N
			return f(t)
		})
	}
}

// CodeSpans returns the code spans (`…`) of the line outside fenced blocks,
// in order.
func (l Line) CodeSpans() []Span {
	if l.kind == fenceLine {
		return nil
	}
	return codeSpans(l.Text)
}

// Section is a Markdown heading and the lines under it, up to the next
// heading of the same or a higher level.
type Section struct {
	Title  string   // heading text without the leading #s
	Level  int      // 1 for "#", 2 for "##", ...
	Line   int      // line of the heading
	End    int      // last line of the section, subsections included
	Num    string   // the plan's own number from the heading: "§7.1", "#29", or ""
	Parent *Section // enclosing section, nil at the top
}

// Place returns the section's place as the plan numbers it: the innermost
// § number and the innermost # number of the section and its parents,
// e.g. "§7.1 #5" or "§2.7.A". It is "" for an unnumbered section.
func (s *Section) Place() string {
	var sec, item string
	for p := s; p != nil; p = p.Parent {
		switch {
		case strings.HasPrefix(p.Num, "§") && sec == "":
			sec = p.Num
		case strings.HasPrefix(p.Num, "#") && item == "" && sec == "":
			item = p.Num
		}
	}
	return strings.TrimSpace(sec + " " + item)
}

// Error is a problem in the plan at a line. Reading goes on after one.
type Error struct {
	File string
	Line int
	Msg  string
}

// Error returns "file:line: message".
func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Parse parses plan text. It never fails: CRLF and lone CR line endings are
// accepted, a leading UTF-8 byte order mark is dropped (with a note), and a line that is not valid UTF-8 is kept (invalid bytes
// replaced by U+FFFD) with an Error naming file and line, so that a caller
// can refuse to vouch for the numbers on it.
func Parse(file string, b []byte) *Doc {
	d := &Doc{File: file}
	if rest, ok := bytes.CutPrefix(b, []byte(bom)); ok {
		b = rest
		d.Notes = append(d.Notes, fmt.Sprintf("%s:1: a UTF-8 byte order mark at the start of the file is ignored", file))
	}
	n := bytes.Count(b, []byte{'\n'}) + 1
	d.Lines = make([]Line, 0, n)
	var stack []*Section
	var cav *Caveat
	fence := "" // the open fence's delimiter ("```", "~~~~"), "" outside a fenced block
	for ln := 1; len(b) > 0 || ln == 1; ln++ {
		var raw []byte
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			raw, b = b[:i], b[i+1:]
		} else {
			raw, b = b, nil
		}
		raw = bytes.TrimSuffix(raw, []byte{'\r'})
		text := string(raw)
		if !utf8.Valid(raw) {
			col := firstInvalid(raw)
			d.Errors = append(d.Errors, &Error{file, ln, fmt.Sprintf("invalid UTF-8 at column %d; the line's numbers cannot be checked", col)})
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		if strings.ContainsRune(text, '\r') {
			text = strings.ReplaceAll(text, "\r", " ")
		}
		trim := strings.TrimSpace(text)
		if fence == "" {
			fence = openFence(text)
		} else if closesFence(text, fence) {
			fence = ""
			d.Lines = append(d.Lines, Line{N: ln, Text: text, Section: top(stack), kind: fenceLine})
			continue
		}
		if fence != "" {
			// the opening fence line, or a line inside the block
			d.Lines = append(d.Lines, Line{N: ln, Text: text, Section: top(stack), kind: fenceLine})
			cav = nil
			continue
		}
		if lvl, title, ok := heading(text); ok {
			for len(stack) > 0 && stack[len(stack)-1].Level >= lvl {
				stack[len(stack)-1].End = ln - 1
				stack = stack[:len(stack)-1]
			}
			s := &Section{Title: title, Level: lvl, Line: ln, Num: sectionNum(title), Parent: top(stack)}
			stack = append(stack, s)
			d.Sections = append(d.Sections, s)
			d.Lines = append(d.Lines, Line{N: ln, Text: text, Section: s, kind: headingLine})
			cav = nil
			continue
		}
		l := Line{N: ln, Text: text, Section: top(stack)}
		if id, body, ok := caveatLine(text); ok {
			d.Caveats = append(d.Caveats, Caveat{ID: id, Text: body, Line: ln, End: ln, Section: l.Section})
			cav = &d.Caveats[len(d.Caveats)-1]
		} else if cav != nil && strings.HasPrefix(trim, ">") && strings.TrimSpace(strings.TrimPrefix(trim, ">")) != "" {
			cav.Text += " " + strings.TrimSpace(strings.TrimPrefix(trim, ">"))
			cav.End = ln
		} else {
			cav = nil
		}
		d.Lines = append(d.Lines, l)
	}
	last := len(d.Lines)
	for _, s := range stack {
		s.End = last
	}
	return d
}

// openFence returns the delimiter of the fenced code block text opens
// (CommonMark: at most 3 spaces of indent, then at least 3 backticks or
// tildes; a backtick fence's info string holds no backtick), or "".
func openFence(text string) string {
	t := strings.TrimLeft(text, " ")
	if len(text)-len(t) > 3 || len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return ""
	}
	return t[:n]
}

// closesFence reports whether text closes the fenced block opened by fence
// (CommonMark: at most 3 spaces of indent, the same character at least as
// many times, then only spaces).
func closesFence(text, fence string) bool {
	t := strings.TrimLeft(text, " ")
	if len(text)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimRight(t[n:], " \t") == ""
}

// Fenced reports whether the line is a fence of a fenced code block or a
// line inside one: its numbers are not claims the gate binds (Tokens is
// empty), and FencedTokens scans them for counting.
func (l Line) Fenced() bool { return l.kind == fenceLine }

// FencedTokens returns the numeric tokens of a line in a fenced code block,
// scanned as prose would be, so that the gate can count what it does not
// check. It is nil for a line outside fenced blocks.
func (l Line) FencedTokens() []Token {
	if l.kind != fenceLine {
		return nil
	}
	var toks []Token
	scanEach(l.Text, func(t Token) bool {
		t.Line = l.N
		toks = append(toks, t)
		return true
	})
	return toks
}

func top(stack []*Section) *Section {
	if len(stack) == 0 {
		return nil
	}
	return stack[len(stack)-1]
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i + 1
		}
		i += size
	}
	return 0
}

// heading reports whether text is an ATX heading ("## Title") and returns its
// level and title.
func heading(text string) (int, string, bool) {
	t := strings.TrimLeft(text, " ")
	if len(text)-len(t) > 3 {
		return 0, "", false
	}
	lvl := 0
	for lvl < len(t) && t[lvl] == '#' {
		lvl++
	}
	if lvl == 0 || lvl > 6 {
		return 0, "", false
	}
	rest := t[lvl:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	title := strings.TrimSpace(rest)
	title = strings.TrimSpace(strings.TrimRight(title, "#"))
	return lvl, title, true
}

// sectionNum returns the plan's own number at the start of a heading title:
// "7.1 Results" and "§7.1 Results" give "§7.1", "2.7.A Streaming" gives
// "§2.7.A", "#29 — llama.cpp" and "Item #29" give "#29".
func sectionNum(title string) string {
	t := title
	if strings.HasPrefix(t, "§") {
		t = strings.TrimPrefix(t, "§")
	} else if i := strings.Index(t, "#"); i >= 0 && strings.TrimSpace(t[:i]) == "" || strings.HasPrefix(t, "Item #") {
		t = t[strings.Index(t, "#")+1:]
		j := 0
		for j < len(t) && isDigit(t[j]) {
			j++
		}
		if j > 0 {
			return "#" + t[:j]
		}
		return ""
	}
	// dotted number: digits, then (.digits|.letter)*
	j := 0
	for j < len(t) && isDigit(t[j]) {
		j++
	}
	if j == 0 {
		return ""
	}
	for j+1 < len(t) && t[j] == '.' && (isDigit(t[j+1]) || isUpper(t[j+1])) {
		k := j + 1
		if isUpper(t[k]) {
			k++
		} else {
			for k < len(t) && isDigit(t[k]) {
				k++
			}
		}
		j = k
	}
	if j < len(t) && t[j] != ' ' && t[j] != '.' && t[j] != '\t' {
		return "" // e.g. "2026-10-15 notes", "5G"
	}
	return "§" + t[:j]
}

// headingBody is the heading title without its leading number, the part
// whose numbers are claims.
func headingBody(title string) string {
	num := sectionNum(title)
	if num == "" {
		return title
	}
	t := title
	if strings.HasPrefix(num, "#") {
		i := strings.Index(t, num)
		return strings.Repeat(" ", i+len(num)) + t[i+len(num):]
	}
	i := strings.Index(t, strings.TrimPrefix(num, "§")) + len(num) - len("§")
	return strings.Repeat(" ", i) + t[i:]
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// InPlace reports whether place p is at or inside place want, by the plan's
// numbering: "§7.1 #5" is in "§7.1 #5", in "§7.1" and in "§7"; "§2.7.A" is
// in "§2.7"; "§7.10" is not in "§7.1". An item number (#5) must be equal
// when want names one. An empty want contains every place.
func InPlace(p, want string) bool {
	psec, pitem := splitPlace(p)
	wsec, witem := splitPlace(want)
	if wsec != "" && psec != wsec && !strings.HasPrefix(psec, wsec+".") {
		return false
	}
	return witem == "" || pitem == witem
}

// splitPlace splits a place into its § number and its # number.
func splitPlace(p string) (sec, item string) {
	for _, f := range strings.Fields(p) {
		switch {
		case strings.HasPrefix(f, "§") && sec == "":
			sec = f
		case strings.HasPrefix(f, "#") && item == "":
			item = f
		}
	}
	return sec, item
}

// In reports whether the section is at or inside place want, by the plan's
// structure (a heading under the heading of want, at any depth) or by its
// numbering (InPlace).
func (s *Section) In(want string) bool {
	for p := s; p != nil; p = p.Parent {
		if InPlace(p.Place(), want) {
			return true
		}
	}
	return false
}

// Place returns the place of line n ("" outside numbered sections).
func (d *Doc) Place(n int) string {
	if n < 1 || n > len(d.Lines) || d.Lines[n-1].Section == nil {
		return ""
	}
	return d.Lines[n-1].Section.Place()
}

// TokensIn returns the tokens of every line at or inside place, in order.
func (d *Doc) TokensIn(place string) []Token {
	var out []Token
	for _, l := range d.Lines {
		if l.Section != nil && l.Section.In(place) {
			out = append(out, l.Tokens()...)
		}
	}
	return out
}
