package plan

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/text/unicode/norm"
)

// md is the CommonMark parser the plan is read with: GFM tables and
// footnotes, nothing that changes what a number renders as (no
// typographer, no linkify).
var md = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Footnote))

// reader walks one plan's syntax tree and fills its Doc.
type reader struct {
	d      *Doc
	src    []byte
	starts []int     // byte offset of each line's start in src
	vis    []visLine // per line, what renders
	last   int       // 0-based index of the last line a block claimed
	heads  []head    // headings, in order
	items  []item    // ordered-list items, in order
	labels []item    // bold item labels, in order
	depth  int       // lists open around the block being walked
	prose  [][2]int  // 0-based first and last line of each paragraph and list item text
}

// visLine collects what one line renders as.
type visLine struct {
	b     []byte
	segs  []seg
	spans []Span
}

// seg maps a stretch of the visible text back to the source line: visible
// byte off starts at source byte column col (1-based).
type seg struct{ off, col int }

// lineOf returns the 0-based line of source offset off.
func (r *reader) lineOf(off int) int {
	i := sort.SearchInts(r.starts, off+1) - 1
	return max(i, 0)
}

// colOf returns the 1-based byte column of source offset off on its line.
func (r *reader) colOf(off int) int { return off - r.starts[r.lineOf(off)] + 1 }

// add appends rendered text to line ln, from source offset off.
func (r *reader) add(ln, off int, s []byte) {
	if ln < 0 || ln >= len(r.vis) || len(s) == 0 {
		return
	}
	v := &r.vis[ln]
	v.segs = append(v.segs, seg{len(v.b), r.colOf(off)})
	v.b = append(v.b, s...)
}

// invisible reports whether r renders as nothing, or only changes the rune
// before it: format characters (zero-width spaces and joiners, bidi
// controls), combining marks, and the Hangul and Mongolian fillers, which
// are letters that show as blanks.
func invisible(r rune) bool {
	switch r {
	case '\u115F', '\u1160', '\u3164', '\uFFA0', '\u180E', '\u2800':
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me)
}

// digitLike reports whether r renders as a digit: an ASCII digit, any
// decimal digit of another script, or a rune NFKC maps to one (fullwidth,
// mathematical, superscript digits).
func digitLike(r rune) bool {
	if '0' <= r && r <= '9' || unicode.IsDigit(r) {
		return true
	}
	if r < utf8.RuneSelf {
		return false
	}
	n := norm.NFKC.String(string(r))
	return n != "" && n[0] >= '0' && n[0] <= '9'
}

// normalize returns s as the gate reads it: NFKC, every decimal digit of
// any script as its ASCII digit, the Arabic decimal and thousands
// separators as "." and ",", and invisible runes (see invisible) dropped.
// It reports the invisible runes that were beside or inside a number.
func normalize(s []byte) ([]byte, []rune) {
	ascii := true
	for _, c := range s {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s, nil
	}
	var hidden []rune
	rs := []rune(string(s))
	for i, r := range rs {
		if !invisible(r) {
			continue
		}
		if near := func(j int) bool { return j >= 0 && j < len(rs) && digitLike(rs[j]) }; near(i-1) || near(i+1) ||
			i+2 < len(rs) && rs[i+1] == ' ' && near(i+2) || i >= 2 && rs[i-1] == ' ' && near(i-2) {
			hidden = append(hidden, r)
		}
	}
	var b strings.Builder
	for _, r := range norm.NFKC.String(string(s)) {
		switch {
		case invisible(r):
		case r == '\u066B':
			b.WriteByte('.')
		case r == '\u066C':
			b.WriteByte(',')
		case r > '9' && unicode.IsDigit(r):
			b.WriteByte(byte('0' + digitValue(r)))
		default:
			b.WriteRune(r)
		}
	}
	return []byte(b.String()), hidden
}

// digitValue returns the value of a decimal digit rune of any script:
// Unicode lays every script's digits out as ten consecutive code points
// from zero.
func digitValue(r rune) int {
	for z := r; z >= r-10; z-- {
		if !unicode.IsDigit(z) {
			return int(r - z - 1)
		}
	}
	return int(r-'0') % 10
}

// parseMarkdown reads the syntax tree of the plan's text (its lines joined
// by "\n") into d: the line kinds, what each line renders as, its code
// spans, the sections (headings, numbered list items, bold item labels),
// and what the plan holds that does not render (comments, HTML, invisible
// characters) as Hidden.
func parseMarkdown(d *Doc) {
	r := &reader{d: d, vis: make([]visLine, len(d.Lines))}
	var buf bytes.Buffer
	for i, l := range d.Lines {
		r.starts = append(r.starts, buf.Len())
		buf.WriteString(l.Text)
		if i < len(d.Lines)-1 {
			buf.WriteByte('\n')
		}
	}
	r.src = buf.Bytes()
	doc := md.Parser().Parse(text.NewReader(r.src))
	r.blocks(doc)
	for i := range d.Lines {
		v := r.vis[i]
		// a math span ($9.99$ GB/s) is read like prose: its dollar signs go
		if ms := mathRE.FindAllIndex(v.b, -1); ms != nil {
			v = dropBytes(d.Lines[i], v, ms)
		}
		d.Lines[i].vis = string(v.b)
		d.Lines[i].segs = v.segs
		d.Lines[i].spans = v.spans
	}
	r.d.splitSentences(r.prose)
	r.sections()
}

// blocks walks the block structure under n.
func (r *reader) blocks(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch b := c.(type) {
		case *ast.FencedCodeBlock:
			r.code(b, true)
		case *ast.CodeBlock:
			r.code(b, false)
		case *ast.HTMLBlock:
			r.html(b)
		case *ast.Heading:
			r.heading(b)
		case *ast.ThematicBreak, *ast.LinkReferenceDefinition:
			r.claim(c)
		case *ast.List:
			r.list(b)
		default:
			if c.Type() == ast.TypeBlock && c.FirstChild() != nil && c.FirstChild().Type() == ast.TypeInline {
				r.claim(c)
				r.inlines(c)
			} else if c.Type() == ast.TypeInline {
				r.inlines(n)
				return
			} else {
				r.claim(c)
				r.blocks(c)
			}
		}
	}
}

// claim notes the first line of a block as reached.
func (r *reader) claim(n ast.Node) {
	if p := n.Pos(); p >= 0 {
		r.last = max(r.last, r.lineOf(p))
	}
	if ls := n.Lines(); ls != nil && ls.Len() > 0 {
		r.last = max(r.last, r.lineOf(ls.At(ls.Len()-1).Start))
	}
}

// code marks the lines of a code block: fence lines and content.
func (r *reader) code(n ast.Node, fenced bool) {
	first, lastLn := -1, -1
	if p := n.Pos(); p >= 0 {
		first = r.lineOf(p)
	}
	if ls := n.Lines(); ls.Len() > 0 {
		if first < 0 {
			first = r.lineOf(ls.At(0).Start)
		}
		lastLn = r.lineOf(ls.At(ls.Len() - 1).Start)
	}
	if first < 0 {
		first = r.last + 1
	}
	lastLn = max(lastLn, first)
	if fenced && lastLn+1 < len(r.d.Lines) {
		// the closing fence, if this block has one
		t := strings.TrimLeft(r.d.Lines[lastLn+1].Text, " >\t")
		open := strings.TrimLeft(r.d.Lines[first].Text, " >\t-*+0123456789.)")
		if f := openFence(open); f != "" && closesFence(t, f) && (lastLn > first || n.Lines().Len() > 0 || lastLn+1 > first) {
			lastLn++
		}
	}
	for i := first; i <= lastLn && i < len(r.d.Lines); i++ {
		r.d.Lines[i].kind = fenceLine
	}
	r.last = max(r.last, lastLn)
}

// dropBytes returns v without the first and last byte of each match m,
// its stretches remapped so that every byte keeps its source column.
func dropBytes(l Line, v visLine, ms [][]int) visLine {
	l.vis, l.segs = string(v.b), v.segs
	drop := map[int]bool{}
	for _, m := range ms {
		drop[m[0]], drop[m[1]-1] = true, true
	}
	out := visLine{spans: v.spans}
	for i, c := range v.b {
		if drop[i] {
			continue
		}
		if col := l.col(i); len(out.segs) == 0 || drop[i-1] || col != out.segs[len(out.segs)-1].col+len(out.b)-out.segs[len(out.segs)-1].off {
			out.segs = append(out.segs, seg{len(out.b), col})
		}
		out.b = append(out.b, c)
	}
	return out
}

// mathRE is a math span holding a digit: $…$ on one line, no code inside.
var mathRE = regexp.MustCompile("\\$[^$`\n]*[0-9][^$`\n]*\\$")

var headingLike = regexp.MustCompile(`(?m)^\s{0,3}#{1,6}(\s|$)`)

// html marks the lines of an HTML block as not rendered, and records
// what it hides: a comment or any HTML that holds a digit or a heading.
func (r *reader) html(b *ast.HTMLBlock) {
	ls := b.Lines()
	if ls.Len() == 0 {
		return
	}
	first := r.lineOf(ls.At(0).Start)
	lastLn := r.lineOf(ls.At(ls.Len() - 1).Start)
	var body []byte
	for i := 0; i < ls.Len(); i++ {
		sg := ls.At(i)
		body = append(body, sg.Value(r.src)...)
	}
	if b.HasClosure() {
		lastLn = r.lineOf(b.ClosureLine.Start)
		cl := b.ClosureLine
		body = append(body, cl.Value(r.src)...)
	}
	for i := first; i <= lastLn && i < len(r.d.Lines); i++ {
		r.d.Lines[i].kind = htmlLine
	}
	r.last = max(r.last, lastLn)
	comment := b.HTMLBlockType == ast.HTMLBlockType2
	switch {
	case comment && !b.HasClosure():
		r.hide(first, "an unclosed HTML comment (<!-- with no -->) hides the rest of the plan from its reader")
	case hasDigit(body) || headingLike.Match(body):
		what := "HTML"
		if comment {
			what = "an HTML comment"
		}
		r.hide(first, fmt.Sprintf("%s holds %s the rendered plan does not show: %s", what, hiddenWhat(body), clipQuote(body)))
	}
}

func hiddenWhat(b []byte) string {
	if headingLike.Match(b) {
		return "a heading"
	}
	return "a number"
}

// hide records something the plan holds that its reader does not see.
func (r *reader) hide(ln int, msg string) {
	r.d.Hidden = append(r.d.Hidden, &Error{File: r.d.File, Line: ln + 1, Msg: msg})
}

func hasDigit(b []byte) bool {
	for len(b) > 0 {
		c, size := utf8.DecodeRune(b)
		if digitLike(c) {
			return true
		}
		b = b[size:]
	}
	return false
}

// clipQuote quotes b on one line, shortened to clipLen bytes.
func clipQuote(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 60 {
		i := 60
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// heading records a heading; its section is made by sections.
func (r *reader) heading(h *ast.Heading) {
	ln := -1
	if ls := h.Lines(); ls.Len() > 0 {
		ln = r.lineOf(ls.At(0).Start)
	} else if p := h.Pos(); p >= 0 {
		ln = r.lineOf(p)
	} else {
		ln = r.last + 1
	}
	ln = min(ln, len(r.d.Lines)-1)
	r.claim(h)
	r.last = max(r.last, ln)
	r.inlines(h)
	// a setext heading's underline renders as nothing
	if ls := h.Lines(); ls.Len() > 0 {
		end := r.lineOf(ls.At(ls.Len() - 1).Start)
		if end+1 < len(r.d.Lines) && setextUnderline(r.d.Lines[end+1].Text) {
			r.d.Lines[end+1].kind = htmlLine
			r.last = max(r.last, end+1)
		}
	}
	r.heads = append(r.heads, head{level: h.Level, line: ln})
}

func setextUnderline(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "")
}

// list records the items of a list; an ordered list's items are numbered
// places when sections says so.
func (r *reader) list(l *ast.List) {
	num := l.Start
	for c := l.FirstChild(); c != nil; c = c.NextSibling() {
		first, lastLn := r.span(c)
		if l.IsOrdered() && first >= 0 {
			r.items = append(r.items, item{num: num, first: first, last: lastLn, nested: r.depth > 0})
		}
		num++
		r.depth++
		r.blocks(c)
		r.depth--
	}
}

// span returns the first and last line of a node's text, -1 when it has none.
func (r *reader) span(n ast.Node) (int, int) {
	first, lastLn := -1, -1
	note := func(off int) {
		l := r.lineOf(off)
		if first < 0 || l < first {
			first = l
		}
		lastLn = max(lastLn, l)
	}
	if p := n.Pos(); p >= 0 {
		note(p)
	}
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := c.(type) {
		case *ast.Text:
			note(x.Segment.Start)
		case *ast.HTMLBlock:
			if x.HasClosure() {
				note(x.ClosureLine.Start)
			}
		}
		if c.Type() == ast.TypeBlock {
			if ls := c.Lines(); ls != nil {
				for i := 0; i < ls.Len(); i++ {
					note(ls.At(i).Start)
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return first, lastLn
}

// inlines renders the inline content of block n into the lines' visible
// text, and records the code spans, raw HTML and bold item labels.
func (r *reader) inlines(n ast.Node) {
	if p, ok := n.(*ast.Paragraph); ok {
		r.boldLabel(p)
	}
	switch n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		// prose, split into sentences once its lines are rendered
		if ls := n.Lines(); ls.Len() > 0 {
			r.prose = append(r.prose, [2]int{r.lineOf(ls.At(0).Start), r.lineOf(ls.At(ls.Len() - 1).Start)})
		}
	}
	ln := r.last
	if p := n.Pos(); p >= 0 {
		ln = r.lineOf(p)
	}
	if v := &r.vis[ln]; len(v.b) > 0 {
		// a second block on the line (a table's next cell): a word break
		v.b = append(v.b, ' ')
	}
	var walk func(c ast.Node)
	walk = func(c ast.Node) {
		for ; c != nil; c = c.NextSibling() {
			switch x := c.(type) {
			case *ast.Text:
				ln = r.lineOf(x.Segment.Start)
				v := x.Segment.Value(r.src)
				if !x.IsRaw() {
					v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
				}
				r.addText(ln, x.Segment.Start, v)
				r.last = max(r.last, ln)
			case *ast.String:
				r.addText(ln, r.starts[ln], x.Value)
			case *ast.CodeSpan:
				r.codeSpan(x)
			case *ast.RawHTML:
				r.rawHTML(x)
			case *ast.AutoLink:
				r.addText(ln, r.starts[ln], x.Label(r.src))
			case *extast.FootnoteLink, *extast.FootnoteBacklink:
				// a footnote reference renders as its number: a reference
			case *ast.Link:
				r.linkTitle(ln, x.Title)
				walk(x.FirstChild())
			case *ast.Image:
				r.linkTitle(ln, x.Title)
				walk(x.FirstChild())
			default:
				if c.Type() == ast.TypeBlock {
					r.blocks(c)
					continue
				}
				walk(c.FirstChild())
			}
		}
	}
	walk(n.FirstChild())
}

// linkTitle records a link's or image's title holding a digit as hidden:
// the reader sees it only on hover, and the gate does not read it as a claim.
func (r *reader) linkTitle(ln int, title []byte) {
	if hasDigit(title) {
		r.hide(ln, fmt.Sprintf("a link title holding a digit, shown only on hover: %s", clipQuote(title)))
	}
}

// addText appends decoded text to a line, normalised (see normalize), and
// records invisible characters beside its numbers.
func (r *reader) addText(ln, off int, v []byte) {
	nv, hidden := normalize(v)
	if len(hidden) > 0 {
		var names []string
		for _, h := range hidden {
			names = append(names, fmt.Sprintf("U+%04X", h))
		}
		r.hide(ln, fmt.Sprintf("an invisible character (%s) inside or beside a number: the number reads otherwise than it renders: %s",
			strings.Join(names, ", "), clipQuote(v)))
	}
	r.add(ln, off, nv)
}

// codeSpan keeps a code span in the visible text with its backticks (the
// scanner sets spans aside; see Scan) and records it.
func (r *reader) codeSpan(c *ast.CodeSpan) {
	var body []byte
	start := -1
	for t := c.FirstChild(); t != nil; t = t.NextSibling() {
		switch x := t.(type) {
		case *ast.Text:
			if start < 0 {
				start = x.Segment.Start
			}
			body = append(body, x.Segment.Value(r.src)...)
		case *ast.String:
			body = append(body, x.Value...)
		}
	}
	if start < 0 {
		return
	}
	ln := r.lineOf(start)
	// the span's delimiter: the run of backticks before its text
	open := start
	for open > r.starts[ln] && r.src[open-1] == '`' {
		open--
	}
	if open == start && open > r.starts[ln] && r.src[open-1] == ' ' {
		for open > r.starts[ln] && (r.src[open-1] == ' ' || r.src[open-1] == '`') {
			open--
		}
	}
	fence := strings.Repeat("`", max(1, bytes.Count(r.src[open:start], []byte("`"))))
	body = bytes.ReplaceAll(body, []byte("\n"), []byte(" "))
	txt, _ := normalize(body)
	v := &r.vis[ln]
	v.spans = append(v.spans, Span{Text: strings.TrimSpace(string(txt)), Col: r.colOf(open)})
	pad := ""
	if bytes.Contains(txt, []byte("`")) {
		pad = " "
	}
	r.add(ln, open, []byte(fence+pad+string(txt)+pad+fence))
	r.last = max(r.last, ln)
}

// rawHTML records inline HTML: it renders as nothing, and a comment or tag
// holding a digit is something the plan's reader does not see.
func (r *reader) rawHTML(h *ast.RawHTML) {
	if h.Segments.Len() == 0 {
		return
	}
	var body []byte
	for i := 0; i < h.Segments.Len(); i++ {
		sg := h.Segments.At(i)
		body = append(body, sg.Value(r.src)...)
	}
	ln := r.lineOf(h.Segments.At(0).Start)
	if hasDigit(body) || headingLike.Match(body) {
		what := "inline HTML"
		if bytes.HasPrefix(body, []byte("<!--")) {
			what = "an HTML comment"
		}
		r.hide(ln, fmt.Sprintf("%s holds %s the rendered plan does not show: %s", what, hiddenWhat(body), clipQuote(body)))
	}
	// the text after the HTML on its last line renders on that line
	r.last = max(r.last, r.lineOf(h.Segments.At(h.Segments.Len()-1).Start))
}

// boldLabelRE is a bold item label at the start of a paragraph: "**#29 —
// llama.cpp**", "**Item 29.**", "**29.** …".
var boldLabelRE = regexp.MustCompile(`^(?:#|[Ii]tem #?)?([0-9]+)(?:[.):]|\s|—|–|-|$)`)

// boldLabel records a paragraph that opens with a bold item label.
func (r *reader) boldLabel(p *ast.Paragraph) {
	e, ok := p.FirstChild().(*ast.Emphasis)
	if !ok || e.Level != 2 {
		return
	}
	var t []byte
	first := -1
	_ = ast.Walk(e, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if x, ok := c.(*ast.Text); ok && entering {
			if first < 0 {
				first = x.Segment.Start
			}
			t = append(t, x.Segment.Value(r.src)...)
		}
		return ast.WalkContinue, nil
	})
	if first < 0 {
		return
	}
	nt, _ := normalize(t)
	m := boldLabelRE.FindSubmatch(bytes.TrimSpace(nt))
	if m == nil {
		return
	}
	if strings.HasPrefix(string(bytes.TrimSpace(nt)), "#") || bytes.HasPrefix(bytes.TrimSpace(nt), []byte("Item")) || bytes.HasPrefix(bytes.TrimSpace(nt), []byte("item")) || bytes.Contains(m[0], []byte(".")) {
		var n int
		fmt.Sscan(string(m[1]), &n)
		r.labels = append(r.labels, item{num: n, first: r.lineOf(first), last: -1, title: string(bytes.TrimSpace(nt))})
	}
}

// head is a heading the walk met: its level and 0-based line.
type head struct{ level, line int }

// item is a numbered list item or a bold item label: a place of its own
// (#num) when no item number encloses it.
type item struct {
	num         int
	first, last int // 0-based lines; last is -1 for a label, which runs to the next label or heading
	nested      bool
	title       string
}

// itemLevel is the level of an item's section: below every heading.
const itemLevel = 7

// sections builds the sections from the headings, list items and bold
// labels the walk recorded, and gives every line its innermost section.
func (r *reader) sections() {
	d := r.d
	var stack []*Section
	hi := 0
	itemsAt := map[int][]item{}
	for _, it := range append(r.items, r.labels...) {
		if !it.nested {
			itemsAt[it.first] = append(itemsAt[it.first], it)
		}
	}
	var open *Section // the item section the current line is in
	openLast := -1
	for i := range d.Lines {
		l := &d.Lines[i]
		if hi < len(r.heads) && r.heads[hi].line == i {
			h := r.heads[hi]
			for hi < len(r.heads) && r.heads[hi].line == i {
				hi++ // two headings on a line cannot be; keep the first
			}
			for len(stack) > 0 && stack[len(stack)-1].Level >= h.level {
				stack[len(stack)-1].End = i
				stack = stack[:len(stack)-1]
			}
			if open != nil {
				open.End = min(open.End, i)
				open = nil
			}
			title := strings.TrimSpace(l.vis)
			s := &Section{Title: title, Level: h.level, Line: i + 1, Parent: top(stack)}
			s.Num = s.ownNum(sectionNum(title))
			stack = append(stack, s)
			d.Sections = append(d.Sections, s)
			l.Section = s
			if l.kind == proseLine {
				l.kind = headingLine
			}
			continue
		}
		if open != nil && openLast >= 0 && i > openLast {
			open = nil
		}
		for _, it := range itemsAt[i] {
			parent := top(stack)
			num := "#" + fmt.Sprint(it.num)
			if parent.hasItem() {
				continue // an item inside an item is no place of its own
			}
			title := it.title
			if title == "" {
				title = strings.TrimSpace(l.vis)
			}
			if open != nil {
				open.End = i
			}
			s := &Section{Title: title, Level: itemLevel, Line: i + 1, End: len(d.Lines), Num: num, Parent: parent}
			if it.last >= 0 {
				s.End = it.last + 1
			}
			d.Sections = append(d.Sections, s)
			open, openLast = s, it.last
		}
		if open != nil {
			l.Section = open
		} else {
			l.Section = top(stack)
		}
	}
	for _, s := range stack {
		s.End = len(d.Lines)
	}
	if open != nil && open.End > len(d.Lines) {
		open.End = len(d.Lines)
	}
	// a label's item ends where its heading section ends
	for _, s := range d.Sections {
		if s.Level == itemLevel && s.Parent != nil && s.End > s.Parent.End {
			s.End = s.Parent.End
		}
	}
}

// hasItem reports whether s or a section enclosing it has an item number.
func (s *Section) hasItem() bool {
	for p := s; p != nil; p = p.Parent {
		if strings.HasPrefix(p.Num, "#") {
			return true
		}
	}
	return false
}

// ownNum returns the number a heading's title gives it as its place, given
// the sections enclosing it (s.Parent): an item number (#5) only where no
// item number encloses it, a section number (§7.1) only where it extends
// the enclosing one (§7.1 under §7) or none encloses it. Any other number
// ("##### #1 — Warm runs" inside §7.1 #5, "##### 1.3 …" inside §7.1) is no
// place: the heading is named by its text inside its parent's place.
func (s *Section) ownNum(num string) string {
	switch {
	case num == "":
		return ""
	case strings.HasPrefix(num, "#"):
		if s.Parent.hasItem() {
			return ""
		}
		return num
	}
	for p := s.Parent; p != nil; p = p.Parent {
		if strings.HasPrefix(p.Num, "§") {
			if strings.HasPrefix(num, p.Num+".") {
				return num
			}
			return ""
		}
	}
	return num
}
