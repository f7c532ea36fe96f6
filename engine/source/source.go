// Package source reads a checkout's source files the way the audit needs
// them: each line beside the same line with its string literals and
// comments blanked out (so a search for numbers in code does not match
// text), the string literals' texts, the functions with their line spans,
// the assignments and the numeric literals, all with 1-based lines.
//
// Two lexical families are known: Python ("#" comments, '…', "…" and
// triple-quoted strings; functions by indentation) and the C family (C,
// C++, Objective-C, Metal: //, /* */, "…", '…'; functions by braces). A file
// of another language is kept as text: no blanking, no functions. The
// reader is a lexer, not a parser: it recognises the forms real sources
// use for definitions and assignments and skips what it does not
// understand, never failing on any input.
package source

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/unit"
)

// Lang is a source language family.
type Lang string

// Languages the lexer knows.
const (
	Python Lang = "python"
	C      Lang = "c" // C, C++, Objective-C, Metal
	Text   Lang = ""  // unknown: kept as text
)

// Langs returns the language names a checkout may declare.
func Langs() []Lang { return []Lang{Python, C} }

// LangOf returns the language of a file by its extension, Text when
// unknown.
func LangOf(rel string) Lang {
	switch path.Ext(rel) {
	case ".py":
		return Python
	case ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".m", ".mm", ".metal":
		return C
	}
	return Text
}

// File is one source file, read.
type File struct {
	Path string // relative to the snapshot root
	Lang Lang
	// Lines are the file's lines (CRLF read as LF).
	Lines []string
	// Code holds each line with strings and comments replaced by spaces:
	// the same length as the line.
	Code []string
	// Strings holds, per line, the texts of the string literals that start
	// on it.
	Strings [][]string
	// Funcs are the functions defined in the file, in order.
	Funcs []Func
	// Assigns are the assignments to a plain name, in order.
	Assigns []Assign
}

// Func is a function definition and its line span.
type Func struct {
	Name string // the last identifier of the defined name: "make"
	// Qualified is the name as written, with its class: "PromptGemm::make";
	// the same as Name when unqualified.
	Qualified  string
	Start, End int // 1-based, inclusive: the header line and the closing line
}

// Assign is an assignment statement to a name: NAME = expression.
type Assign struct {
	Name       string
	Start, End int // 1-based, inclusive: the statement's lines
}

// Literal is a numeric literal and where it is.
type Literal struct {
	Text string
	Line int
	// InString is true for a number inside a string literal (a sample
	// log line), false for one in code.
	InString bool
}

// Parse reads src as a file of language lang; rel names it.
func Parse(rel string, src []byte, lang Lang) *File {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	f := &File{Path: rel, Lang: lang, Lines: strings.Split(text, "\n")}
	var blank string
	var strs map[int][]string
	switch lang {
	case Python, C:
		blank, strs = lex(text, lang == Python)
	default:
		blank = text
	}
	f.Code = strings.Split(blank, "\n")
	f.Strings = make([][]string, len(f.Lines))
	for l, ss := range strs {
		if l < len(f.Strings) {
			f.Strings[l] = ss
		}
	}
	switch lang {
	case Python:
		f.Funcs = pyFuncs(f.Code)
		f.Assigns = pyAssigns(f.Code)
	case C:
		f.Funcs = cFuncs(f.Code)
		f.Assigns = cAssigns(f.Code)
	}
	return f
}

// lex blanks strings and comments with Python's or the C family's lexical
// rules and collects the string literals by their first line (0-based).
func lex(src string, py bool) (string, map[int][]string) {
	blank := []byte(src)
	strs := map[int][]string{}
	line := 0
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case py && c == '#', !py && strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				blank[i] = ' '
				i++
			}
		case !py && strings.HasPrefix(src[i:], "/*"):
			for i < len(src) && !strings.HasPrefix(src[i:], "*/") {
				if src[i] == '\n' {
					line++
				} else {
					blank[i] = ' '
				}
				i++
			}
			for j := 0; j < 2 && i < len(src); j++ {
				blank[i] = ' '
				i++
			}
		case c == '"' || c == '\'':
			q := string(c)
			if py && (strings.HasPrefix(src[i:], `"""`) || strings.HasPrefix(src[i:], `'''`)) {
				q = src[i : i+3]
			}
			start := line
			var lit strings.Builder
			for k := 0; k < len(q); k++ {
				blank[i] = ' '
				i++
			}
			for i < len(src) && !strings.HasPrefix(src[i:], q) {
				if src[i] == '\\' && i+1 < len(src) {
					lit.WriteByte(src[i])
					blank[i] = ' '
					i++
				}
				if src[i] == '\n' {
					if len(q) == 1 {
						break // unterminated single-line string
					}
					line++
				} else {
					blank[i] = ' '
				}
				lit.WriteByte(src[i])
				i++
			}
			for k := 0; k < len(q) && i < len(src) && src[i] != '\n'; k++ {
				blank[i] = ' '
				i++
			}
			strs[start] = append(strs[start], lit.String())
		default:
			i++
		}
	}
	return string(blank), strs
}

var pyDefRE = regexp.MustCompile(`^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(`)

// pyFuncs finds Python functions: a def line, through the last line
// indented deeper than it.
func pyFuncs(code []string) []Func {
	var out []Func
	for i, l := range code {
		if !strings.Contains(l, "def") {
			continue
		}
		m := pyDefRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		indent := len(m[1])
		end := i
		for j := i + 1; j < len(code); j++ {
			t := strings.TrimSpace(code[j])
			if t == "" {
				continue
			}
			if indentOf(code[j]) <= indent {
				break
			}
			end = j
		}
		out = append(out, Func{Name: m[2], Qualified: m[2], Start: i + 1, End: end + 1})
	}
	return out
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

var pyAssignRE = regexp.MustCompile(`^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=]*)?=[^=]`)

// pyAssigns finds assignments to names (a, b = … gives one per name), each
// spanning its logical line.
func pyAssigns(code []string) []Assign {
	var out []Assign
	for i := 0; i < len(code); i++ {
		var m []string
		if strings.Contains(code[i], "=") {
			m = pyAssignRE.FindStringSubmatch(code[i])
		}
		last := logicalEnd(code, i)
		if m != nil {
			for _, n := range strings.Split(m[1], ",") {
				out = append(out, Assign{Name: strings.TrimSpace(n), Start: i + 1, End: last + 1})
			}
		}
		i = last
	}
	return out
}

// logicalEnd returns the last line of the logical line starting at i:
// brackets open or a trailing backslash continue it.
func logicalEnd(code []string, i int) int {
	depth := 0
	for j := i; j < len(code); j++ {
		depth += bracketDelta(code[j])
		t := strings.TrimRight(code[j], " \t")
		if depth <= 0 && !strings.HasSuffix(t, "\\") {
			return j
		}
	}
	return len(code) - 1
}

func bracketDelta(s string) int {
	return strings.Count(s, "(") + strings.Count(s, "[") + strings.Count(s, "{") -
		strings.Count(s, ")") - strings.Count(s, "]") - strings.Count(s, "}")
}

// cHeaderRE matches the end of a function header before its "{": a name
// (possibly qualified), its parameter list, and qualifiers.
var cHeaderRE = regexp.MustCompile(`([A-Za-z_][\w]*(?:::~?[A-Za-z_]\w*)*)\s*\([^;{}]*\)\s*(?:const\b\s*)?(?:noexcept\b\s*)?(?:override\b\s*)?(?:->\s*[^;{}()]+)?$`)

// cKeywords are words followed by a parenthesis that open a block but are
// not functions.
var cKeywords = []string{"if", "for", "while", "switch", "catch", "return", "sizeof", "defined", "else"}

// cFuncs finds C-family functions: an opening brace after a function
// header, outside any other function, through its matching closing brace.
func cFuncs(code []string) []Func {
	var out []Func
	depth := 0
	var head strings.Builder // code since the last ; { or } at this level
	in := -1                 // index in out of the function we are in, -1 outside
	inDepth := 0
	for i, l := range code {
		for _, c := range l {
			switch c {
			case '{':
				if in < 0 {
					if m := cHeaderRE.FindStringSubmatch(strings.TrimSpace(head.String())); m != nil {
						q := m[1]
						name := q
						if k := strings.LastIndex(q, "::"); k >= 0 {
							name = q[k+2:]
						}
						if !slices.Contains(cKeywords, name) {
							out = append(out, Func{Name: name, Qualified: q, Start: headLine(code, i, head.String()), End: 0})
							in, inDepth = len(out)-1, depth
						}
					}
				}
				depth++
				head.Reset()
			case '}':
				depth--
				head.Reset()
				if in >= 0 && depth == inDepth {
					out[in].End = i + 1
					in = -1
				}
			case ';':
				head.Reset()
			default:
				head.WriteRune(c)
			}
		}
		head.WriteByte(' ')
	}
	if in >= 0 {
		out = out[:in] // unterminated: not a function we can delimit
	}
	return out
}

// headLine returns the 1-based line where the header text before the brace
// on line i starts: the line holding its name.
func headLine(code []string, i int, head string) int {
	t := strings.TrimSpace(head)
	k := strings.Index(t, "(")
	if k <= 0 {
		return i + 1
	}
	name := strings.TrimSpace(t[:k])
	if j := strings.LastIndexAny(name, " \t*&"); j >= 0 {
		name = name[j+1:]
	}
	for j := i; j >= 0 && j > i-10; j-- {
		if strings.Contains(code[j], name) {
			return j + 1
		}
	}
	return i + 1
}

// cAssigns finds assignments and initialisations of names (x = …, not
// x == …, x += … or a[i] = …), each spanning its statement up to the ";".
func cAssigns(code []string) []Assign {
	var out []Assign
	for i, l := range code {
		for _, name := range assignedNames(l) {
			end := i
			for end < len(code)-1 && !strings.Contains(code[end], ";") && !strings.Contains(code[end], "{") {
				end++
			}
			out = append(out, Assign{Name: name, Start: i + 1, End: end + 1})
		}
	}
	return out
}

// assignedNames returns the names a line of blanked C-family code assigns
// with a plain "=".
func assignedNames(l string) []string {
	var out []string
	for k := strings.IndexByte(l, '='); k >= 0; {
		next := k + 1
		plain := (k+1 == len(l) || l[k+1] != '=') && (k == 0 || !strings.ContainsRune("=!<>+-*/%&|^", rune(l[k-1])))
		if plain {
			j := k
			for j > 0 && (l[j-1] == ' ' || l[j-1] == '\t') {
				j--
			}
			e := j
			for j > 0 && isIdent(l[j-1]) {
				j--
			}
			if e > j && !(l[j] >= '0' && l[j] <= '9') {
				out = append(out, l[j:e])
			}
		} else if k+1 < len(l) && l[k+1] == '=' {
			next = k + 2
		}
		if next >= len(l) {
			break
		}
		n := strings.IndexByte(l[next:], '=')
		if n < 0 {
			break
		}
		k = next + n
	}
	return out
}

// FuncsNamed returns the functions named name: by Name or Qualified name,
// and a qualified name ("PromptGemm::make") also finds the method defined
// inside its class body, where it is written unqualified.
func (f *File) FuncsNamed(name string) []Func {
	var out []Func
	for _, fn := range f.Funcs {
		if fn.Name == name || fn.Qualified == name || fn.Qualified == fn.Name && strings.HasSuffix(name, "::"+fn.Name) {
			out = append(out, fn)
		}
	}
	return out
}

// Key returns the span of the first statement that defines key: an
// assignment to the name key, or an entry that names "key" as a string
// (a dict key, a results field) through the end of its expression. When
// scope is not "", the search starts at the first line that names "scope"
// as a string (the block the key belongs to). ok is false when there is
// none.
func (f *File) Key(scope, key string) (start, end int, ok bool) {
	from := 0
	if scope != "" {
		from = -1
		for i := range f.Lines {
			if f.namesString(i, scope) {
				from = i
				break
			}
		}
		if from < 0 {
			return 0, 0, false
		}
	}
	for _, a := range f.Assigns {
		if a.Name == key && a.Start > from {
			return a.Start, a.End, true
		}
	}
	for i := from; i < len(f.Lines); i++ {
		if !f.namesString(i, key) {
			continue
		}
		depth := 0
		for j := i; j < len(f.Code) && j < i+8; j++ {
			b := f.Code[j]
			if j == i {
				if k := strings.IndexAny(b, ":="); k >= 0 {
					b = b[k+1:]
				}
			}
			depth += bracketDelta(b)
			t := strings.TrimSpace(b)
			if depth <= 0 && (strings.HasSuffix(t, ",") || strings.HasSuffix(t, ";") || j > i && t != "") {
				return i + 1, j + 1, true
			}
		}
		return i + 1, min(i+8, len(f.Lines)), true
	}
	return 0, 0, false
}

// namesString reports whether line i (0-based) holds s as a whole string
// literal.
func (f *File) namesString(i int, s string) bool {
	if f.Lang == Text {
		return strings.Contains(f.Lines[i], `"`+s+`"`) || strings.Contains(f.Lines[i], `'`+s+`'`)
	}
	return slices.Contains(f.Strings[i], s)
}

// Literals returns the numeric literals on lines start..end (1-based,
// inclusive): in code, then inside string literals.
func (f *File) Literals(start, end int) []Literal {
	var out []Literal
	for l := max(start, 1); l <= end && l <= len(f.Code); l++ {
		for _, t := range NumberLiterals(f.Code[l-1]) {
			out = append(out, Literal{Text: t, Line: l})
		}
		for _, s := range f.Strings[l-1] {
			for _, t := range NumberLiterals(s) {
				out = append(out, Literal{Text: t, Line: l, InString: true})
			}
		}
	}
	return out
}

// NumberLiterals returns the decimal literals in s that stand alone (not
// part of an identifier or a version such as 1.2.3).
func NumberLiterals(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		if c < '0' || c > '9' || i > 0 && (isIdent(s[i-1]) || s[i-1] == '.') {
			i++
			continue
		}
		j := i
		dots := 0
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && dots == 0 && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
			if s[j] == '.' {
				dots++
			}
			j++
		}
		if j < len(s) && s[j] == '.' && dots == 0 && (j+1 == len(s) || !isIdent(s[j+1]) && s[j+1] != '.') {
			j++ // "3." is a float literal
		}
		if j < len(s) && (isIdent(s[j]) || s[j] == '.') {
			for j < len(s) && (isIdent(s[j]) || s[j] == '.') {
				j++
			}
			i = j
			continue
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// divisionRE finds a division by a numeric literal in blanked code.
var divisionRE = regexp.MustCompile(`/\s*([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\b`)

// Divisors returns the numeric literals that divide in code on lines
// start..end (1-based, inclusive): "x / 7.5" gives 7.5.
func (f *File) Divisors(start, end int) []Literal {
	var out []Literal
	for l := max(start, 1); l <= end && l <= len(f.Code); l++ {
		for _, m := range divisionRE.FindAllStringSubmatch(f.Code[l-1], -1) {
			out = append(out, Literal{Text: m[1], Line: l})
		}
	}
	return out
}

// IsUnitDivisor reports whether dividing by v converts units (between two
// units of one dimension of engine/unit's table: bytes to KB, MB, GB or
// GiB, ms to s, s to minutes or hours), makes a percentage or halves,
// rather than counting something.
func IsUnitDivisor(v float64) bool {
	switch v {
	case 1, 2, 10, 100:
		return true
	}
	return unit.IsConversion(v)
}
