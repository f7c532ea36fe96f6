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
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/finding"
)

// Doc is a parsed plan.
type Doc struct {
	File     string     // path as given to Load or Parse, used in errors
	Lines    []Line     // Lines[i] is line i+1
	Sections []*Section // every heading, in order
	Caveats  []Caveat   // every caveat, in order
	Errors   []*Error   // problems found while reading; reading goes on
	// Hidden lists what the plan holds that its reader does not see or
	// that reads otherwise than it renders: HTML comments and HTML holding
	// a digit or a heading, an unclosed comment, invisible characters
	// beside a number. The gate fails each one in a claim section.
	Hidden []*Error
	Notes  []string // what reading set aside ("file:1: a UTF-8 byte order mark … is ignored")

	sentences []Sentence // the prose's sentences, in order (SentenceAt)
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
	vis     string // what the line renders as (see Visible)
	segs    []seg  // where the stretches of vis start in Text
	spans   []Span // the code spans that start on the line
}

// Visible returns what the line renders as, the text the gate reads
// numbers from: Markdown markup, link destinations and HTML left out,
// character references and backslash escapes decoded, NFKC applied, every
// decimal digit of any script as its ASCII digit, invisible characters
// dropped. A code span stays with its backticks. A line in a code block
// or an HTML block renders nothing the gate reads ("").
func (l Line) Visible() string { return l.vis }

// col returns the 1-based byte column in Text of byte i of the visible text.
func (l Line) col(i int) int {
	k := sort.Search(len(l.segs), func(k int) bool { return l.segs[k].off > i }) - 1
	if k < 0 {
		return i + 1
	}
	return min(l.segs[k].col+i-l.segs[k].off, max(len(l.Text), 1))
}

type lineKind uint8

const (
	proseLine   lineKind = iota // scanned whole
	headingLine                 // scanned without the heading's own number
	fenceLine                   // a fence or a line inside one, or an indented code block: not scanned
	htmlLine                    // an HTML block (a comment) or a setext underline: renders no number
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
// returns false. It holds one token at a time. Tokens are read from what
// the line renders as (Visible); a token's Col is its column in Text.
func (l Line) EachToken(f func(Token) bool) {
	switch l.kind {
	case fenceLine, htmlLine:
		return
	case headingLine:
		scanEach(headingBody(l.vis), func(t Token) bool {
			t.Line, t.Col = l.N, l.col(t.Col-1)
			return f(t)
		})
	default:
		scanEach(l.vis, func(t Token) bool {
			t.Line, t.Col = l.N, l.col(t.Col-1)
			return f(t)
		})
	}
}

// Unreadable returns the words of the line that hold a digit and are
// neither a number the gate reads nor an identifier (see Identifier), in
// order. A line in a code block has none (its numbers are FencedTokens).
func (l Line) Unreadable() []Word {
	var out []Word
	text := l.vis
	switch l.kind {
	case fenceLine, htmlLine:
		return nil
	case headingLine:
		text = headingBody(l.vis)
	}
	scanAll(text, func(Token) bool { return true }, func(a, b int) {
		out = append(out, Word{Text: text[a:b], Line: l.N, Col: l.col(a)})
	})
	return out
}

// CodeSpans returns the code spans (`…`) that start on the line, in order;
// a line in a code block has none.
func (l Line) CodeSpans() []Span {
	if l.kind == fenceLine || l.kind == htmlLine {
		return nil
	}
	return l.spans
}

// InCodeSpan reports whether the 1-based column col of Text is inside one
// of the line's code spans (after its opening backtick, up to its last
// byte of content).
func (l Line) InCodeSpan(col int) bool {
	for _, sp := range l.spans {
		end := strings.Index(l.Text[sp.Col-1:], sp.Text)
		if end >= 0 && col > sp.Col && col <= sp.Col+end+len(sp.Text) {
			return true
		}
	}
	return false
}

// Section is a Markdown heading and the lines under it, up to the next
// heading of the same or a higher level; or a numbered item of a section
// (an ordered-list item "29." or a bold label "**#29 — …**", Level
// itemLevel), which is a place #29 when no item number encloses it.
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

// Pos returns the error's place: the plan's file and line.
func (e *Error) Pos() finding.Pos { return finding.Pos{File: e.File, Line: e.Line} }

// Parse parses plan text as CommonMark (GFM tables and footnotes; see
// parseMarkdown). It never fails: CRLF and lone CR line endings are
// accepted, a leading UTF-8 byte order mark is dropped (with a note), and a
// line that is not valid UTF-8 is kept (invalid bytes replaced by U+FFFD)
// with an Error naming file and line, so that a caller can refuse to vouch
// for the numbers on it.
func Parse(file string, b []byte) *Doc {
	d := &Doc{File: file}
	if rest, ok := bytes.CutPrefix(b, []byte(bom)); ok {
		b = rest
		d.Notes = append(d.Notes, fmt.Sprintf("%s:1: a UTF-8 byte order mark at the start of the file is ignored", file))
	}
	n := bytes.Count(b, []byte{'\n'}) + 1
	d.Lines = make([]Line, 0, n)
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
		d.Lines = append(d.Lines, Line{N: ln, Text: text})
	}
	parseMarkdown(d)
	var cav *Caveat
	for i := range d.Lines {
		l := &d.Lines[i]
		trim := strings.TrimSpace(l.Text)
		switch {
		case l.kind != proseLine:
			cav = nil
		case cav != nil && strings.HasPrefix(trim, ">") && strings.TrimSpace(strings.TrimPrefix(trim, ">")) != "":
			if _, _, ok := caveatLine(l.Text); !ok {
				cav.Text += " " + strings.TrimSpace(strings.TrimPrefix(trim, ">"))
				cav.End = l.N
				continue
			}
			fallthrough
		default:
			cav = nil
			if id, body, ok := caveatLine(l.Text); ok {
				d.Caveats = append(d.Caveats, Caveat{ID: id, Text: body, Line: l.N, End: l.N, Section: l.Section})
				cav = &d.Caveats[len(d.Caveats)-1]
			}
		}
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
// numbering (InPlace). A want that is not a numbered place is a heading
// path (see IsNumbered, PathIn).
func (s *Section) In(want string) bool {
	if !IsNumbered(want) {
		return s.PathIn(want)
	}
	for p := s; p != nil; p = p.Parent {
		if InPlace(p.Place(), want) {
			return true
		}
	}
	return false
}

// IsNumbered reports whether a place is written with the plan's numbers
// (§7.1, §7.1 #5, #29) rather than as a heading path.
func IsNumbered(place string) bool {
	return place == "" || strings.HasPrefix(place, "§") || strings.HasPrefix(place, "#")
}

// PathSep separates the headings of a heading path: "Inference plan >
// Design targets", "§7.1 > Warm runs".
const PathSep = " > "

// PathIn reports whether the section is at or inside the heading path
// want: its last element names the section or one enclosing it, and each
// element before it names a section enclosing that one, in order. An
// element names a section by its title (runs of white space as one space,
// case aside) or by its numbered place (§7.1 #5).
func (s *Section) PathIn(want string) bool {
	elems := strings.Split(want, strings.TrimSpace(PathSep))
	for i := range elems {
		elems[i] = strings.Join(strings.Fields(elems[i]), " ")
	}
	k := len(elems) - 1
	for p := s; p != nil && k >= 0; p = p.Parent {
		if p.names(elems[k]) {
			k--
		}
	}
	return k < 0
}

// names reports whether a path element names the section.
func (s *Section) names(elem string) bool {
	if IsNumbered(elem) && s.Num != "" && InPlace(s.Place(), elem) && InPlace(elem, s.Place()) {
		return true
	}
	return strings.EqualFold(strings.Join(strings.Fields(s.Title), " "), elem)
}

// Name returns the section's place, or, for a section with no number of
// its own place, its heading path from the nearest numbered section
// ("§7.1 #5 > Warm runs", "Inference plan"): what names it in PLAN.claims.
func (s *Section) Name() string {
	var path []string
	for p := s; p != nil; p = p.Parent {
		if p.Num != "" {
			if len(path) == 0 {
				return p.Place()
			}
			path = append(path, p.Place())
			break
		}
		path = append(path, strings.Join(strings.Fields(p.Title), " "))
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return strings.Join(path, PathSep)
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
