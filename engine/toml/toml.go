// Package toml reads the subset of TOML (https://toml.io/en/v1.0.0) a
// runner's manifest needs: comments, key = value pairs whose value is a
// string (basic "…" with its escapes, or literal '…'), an integer, a float,
// a boolean or a one-line array of those, [table] and [[array of tables]]
// headers with bare or quoted dotted names. What the subset does not hold
// (inline tables, multi-line strings, dotted keys, dates) is an error
// naming the file, line and column, never a guess; so is what TOML itself
// refuses (a key given twice, a table defined twice).
//
// A document is a tree of Tables; each key and table keeps its line, so a
// reader of the values can name the place of a value it refuses.
package toml

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/finding"
)

// Kind is a value's type.
type Kind int

// Kinds of value.
const (
	String Kind = iota + 1
	Int
	Float
	Bool
	Array
)

func (k Kind) String() string {
	switch k {
	case String:
		return "string"
	case Int:
		return "integer"
	case Float:
		return "float"
	case Bool:
		return "boolean"
	case Array:
		return "array"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Value is one value and the line of its key.
type Value struct {
	Kind  Kind
	Line  int      // its key's line (0 for an element of an array)
	Str   string   // a String's value, escapes decoded
	Int   int64    // an Int's value
	Float float64  // a Float's value
	Bool  bool     // a Bool's value
	Elems []*Value // an array's elements
}

// Table is a table: its keys, its sub-tables and its arrays of tables.
type Table struct {
	Line   int                 // the header's line; 0 for the document's root
	Keys   map[string]*Value   // the key = value pairs, by key
	Tables map[string]*Table   // the [sub.tables], by their last name
	Arrays map[string][]*Table // the [[arrays of tables]], each table in order
	// Order lists the table's keys, sub-tables and arrays in the order
	// the document first gives them.
	Order []string

	explicit bool // defined by its own [header]
}

func newTable(line int) *Table {
	return &Table{Line: line, Keys: map[string]*Value{}, Tables: map[string]*Table{}, Arrays: map[string][]*Table{}}
}

// LineOf returns the line t gives name on: its key's, its [table]'s
// header's or its first [[array]] table's header's; t's own line when t
// holds no name.
func (t *Table) LineOf(name string) int {
	switch {
	case t.Keys[name] != nil:
		return t.Keys[name].Line
	case t.Tables[name] != nil:
		return t.Tables[name].Line
	case len(t.Arrays[name]) > 0:
		return t.Arrays[name][0].Line
	}
	return t.Line
}

func (t *Table) has(name string) bool {
	_, k := t.Keys[name]
	_, s := t.Tables[name]
	_, a := t.Arrays[name]
	return k || s || a
}

// Error is a problem at a place of the document.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return e.Pos().String() + ": " + e.Msg }

// Pos returns the error's place.
func (e *Error) Pos() finding.Pos { return finding.Pos{File: e.File, Line: e.Line, Col: e.Col} }

// MaxArray is the most elements an array may hold.
const MaxArray = 100000

// Parse reads a document. file names it in errors.
func Parse(file string, data []byte) (*Table, error) {
	p := &parser{file: file}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		line := strings.Count(string(data[:off]), "\n") + 1
		return nil, &Error{File: file, Line: line, Msg: "invalid UTF-8"}
	}
	root := newTable(0)
	cur := root
	text := strings.TrimPrefix(string(data), "\ufeff")
	for i, raw := range strings.Split(text, "\n") {
		p.line, p.s, p.i = i+1, strings.TrimSuffix(raw, "\r"), 0
		p.skipSpace()
		if p.done() || p.peek() == '#' {
			continue
		}
		var err error
		if p.peek() == '[' {
			cur, err = p.header(root)
		} else {
			err = p.keyValue(cur)
		}
		if err != nil {
			return nil, err
		}
	}
	return root, nil
}

type parser struct {
	file string
	line int
	s    string
	i    int
}

func (p *parser) errf(format string, args ...any) error {
	return &Error{File: p.file, Line: p.line, Col: p.i + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) done() bool { return p.i >= len(p.s) }
func (p *parser) peek() byte { return p.s[p.i] }

func (p *parser) skipSpace() {
	for !p.done() && (p.peek() == ' ' || p.peek() == '\t') {
		p.i++
	}
}

// end checks that only spaces and a comment are left on the line.
func (p *parser) end() error {
	p.skipSpace()
	if !p.done() && p.peek() != '#' {
		return p.errf("unexpected %q after the value", p.s[p.i:])
	}
	for _, r := range p.s[p.i:] {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return p.errf("control character %U in a comment", r)
		}
	}
	return nil
}

// header reads [a.b] or [[a.b]] and returns the table it opens.
func (p *parser) header(root *Table) (*Table, error) {
	array := strings.HasPrefix(p.s[p.i:], "[[")
	p.i++
	if array {
		p.i++
	}
	names, err := p.dottedKey()
	if err != nil {
		return nil, err
	}
	closing := "]"
	if array {
		closing = "]]"
	}
	if !strings.HasPrefix(p.s[p.i:], closing) {
		return nil, p.errf("want %q to close the table header", closing)
	}
	p.i += len(closing)
	if err := p.end(); err != nil {
		return nil, err
	}
	t := root
	for _, n := range names[:len(names)-1] {
		if t, err = p.descend(t, n); err != nil {
			return nil, err
		}
	}
	last := names[len(names)-1]
	full := strings.Join(names, ".")
	if array {
		if _, ok := t.Arrays[last]; !ok && t.has(last) {
			return nil, p.errf("%s is already defined, not as an array of tables", full)
		}
		if _, ok := t.Arrays[last]; !ok {
			t.Order = append(t.Order, last)
		}
		nt := newTable(p.line)
		nt.explicit = true
		t.Arrays[last] = append(t.Arrays[last], nt)
		return nt, nil
	}
	if st, ok := t.Tables[last]; ok {
		if st.explicit {
			return nil, p.errf("table [%s] is defined twice (first at line %d)", full, st.Line)
		}
		st.explicit, st.Line = true, p.line
		return st, nil
	}
	if t.has(last) {
		return nil, p.errf("%s is already defined, not as a table", full)
	}
	nt := newTable(p.line)
	nt.explicit = true
	t.Tables[last] = nt
	t.Order = append(t.Order, last)
	return nt, nil
}

// descend returns the table name of t for a dotted header, making an
// implicit one; an array of tables yields its last table.
func (p *parser) descend(t *Table, name string) (*Table, error) {
	if st, ok := t.Tables[name]; ok {
		return st, nil
	}
	if at, ok := t.Arrays[name]; ok {
		return at[len(at)-1], nil
	}
	if t.has(name) {
		return nil, p.errf("%s is a value, not a table", name)
	}
	st := newTable(p.line)
	t.Tables[name] = st
	t.Order = append(t.Order, name)
	return st, nil
}

// dottedKey reads a header's name: keys separated by dots.
func (p *parser) dottedKey() ([]string, error) {
	var names []string
	for {
		p.skipSpace()
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		names = append(names, k)
		p.skipSpace()
		if p.done() || p.peek() != '.' {
			return names, nil
		}
		p.i++
	}
}

// key reads a bare or quoted key.
func (p *parser) key() (string, error) {
	if p.done() {
		return "", p.errf("want a key")
	}
	switch p.peek() {
	case '"':
		return p.basicString()
	case '\'':
		return p.literalString()
	}
	start := p.i
	for !p.done() && bare(p.peek()) {
		p.i++
	}
	if p.i == start {
		return "", p.errf("want a key, found %q", p.s[p.i:])
	}
	return p.s[start:p.i], nil
}

func bare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// keyValue reads key = value into t.
func (p *parser) keyValue(t *Table) error {
	col := p.i
	k, err := p.key()
	if err != nil {
		return err
	}
	p.skipSpace()
	if !p.done() && p.peek() == '.' {
		return p.errf("dotted keys are not read (write a [table] header)")
	}
	if p.done() || p.peek() != '=' {
		return p.errf("want \"=\" after the key %q", k)
	}
	p.i++
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return err
	}
	if err := p.end(); err != nil {
		return err
	}
	if t.has(k) {
		p.i = col
		return p.errf("key %q is given twice", k)
	}
	v.Line = p.line
	t.Keys[k] = v
	t.Order = append(t.Order, k)
	return nil
}

// value reads one value; depth counts the arrays around it.
func (p *parser) value(depth int) (*Value, error) {
	if p.done() {
		return nil, p.errf("want a value")
	}
	switch c := p.peek(); {
	case c == '"':
		if strings.HasPrefix(p.s[p.i:], `"""`) {
			return nil, p.errf("multi-line strings are not read")
		}
		s, err := p.basicString()
		return &Value{Kind: String, Str: s}, err
	case c == '\'':
		if strings.HasPrefix(p.s[p.i:], `'''`) {
			return nil, p.errf("multi-line strings are not read")
		}
		s, err := p.literalString()
		return &Value{Kind: String, Str: s}, err
	case c == '[':
		return p.array(depth)
	case c == '{':
		return nil, p.errf("inline tables are not read (write a [table] header)")
	case strings.HasPrefix(p.s[p.i:], "true") && p.wordEnds(4):
		p.i += 4
		return &Value{Kind: Bool, Bool: true}, nil
	case strings.HasPrefix(p.s[p.i:], "false") && p.wordEnds(5):
		p.i += 5
		return &Value{Kind: Bool}, nil
	}
	return p.number()
}

func (p *parser) wordEnds(n int) bool {
	return p.i+n >= len(p.s) || !bare(p.s[p.i+n])
}

// array reads a one-line array of values.
func (p *parser) array(depth int) (*Value, error) {
	if depth >= 32 {
		return nil, p.errf("arrays nested deeper than 32")
	}
	p.i++ // [
	v := &Value{Kind: Array}
	for {
		p.skipSpace()
		if p.done() {
			return nil, p.errf("want \"]\": an array must close on its line")
		}
		if p.peek() == ']' {
			p.i++
			return v, nil
		}
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if len(v.Elems) >= MaxArray {
			return nil, p.errf("more than %d elements in an array", MaxArray)
		}
		v.Elems = append(v.Elems, e)
		p.skipSpace()
		if !p.done() && p.peek() == ',' {
			p.i++
			continue
		}
		if p.done() || p.peek() != ']' {
			return nil, p.errf("want \",\" or \"]\" in the array")
		}
	}
}

// number reads an integer or a float (decimal; "_" between digits).
func (p *parser) number() (*Value, error) {
	start := p.i
	for !p.done() && strings.IndexByte("+-0123456789_.eE", p.peek()) >= 0 {
		p.i++
	}
	lit := p.s[start:p.i]
	if lit == "" {
		p.i = start
		return nil, p.errf("want a value (a string, number or boolean), found %q", p.s[p.i:])
	}
	if strings.HasPrefix(lit, "_") || strings.HasSuffix(lit, "_") || strings.Contains(lit, "__") {
		p.i = start
		return nil, p.errf("bad number %q", lit)
	}
	digits := strings.ReplaceAll(lit, "_", "")
	if !strings.ContainsAny(digits, ".eE") {
		body := strings.TrimLeft(digits, "+-")
		if len(body) > 1 && body[0] == '0' {
			p.i = start
			return nil, p.errf("bad number %q: leading zero", lit)
		}
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			p.i = start
			return nil, p.errf("bad integer %q", lit)
		}
		return &Value{Kind: Int, Int: n}, nil
	}
	f, err := strconv.ParseFloat(digits, 64)
	if err != nil || math.IsInf(f, 0) || strings.HasSuffix(digits, ".") || strings.HasPrefix(strings.TrimLeft(digits, "+-"), ".") {
		p.i = start
		return nil, p.errf("bad float %q", lit)
	}
	return &Value{Kind: Float, Float: f}, nil
}

// basicString reads "…" with TOML's escapes.
func (p *parser) basicString() (string, error) {
	p.i++ // "
	var b strings.Builder
	for {
		if p.done() {
			return "", p.errf("unterminated string")
		}
		c := p.peek()
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errf("unterminated string")
			}
			e := p.s[p.i+1]
			if r, ok := map[byte]rune{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', '"': '"', '\\': '\\'}[e]; ok {
				b.WriteRune(r)
				p.i += 2
				continue
			}
			n := map[byte]int{'u': 4, 'U': 8}[e]
			if n == 0 || p.i+2+n > len(p.s) {
				return "", p.errf("bad escape \\%c", e)
			}
			code, err := strconv.ParseUint(p.s[p.i+2:p.i+2+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(code)) {
				return "", p.errf("bad escape \\%c%s", e, p.s[p.i+2:p.i+2+n])
			}
			b.WriteRune(rune(code))
			p.i += 2 + n
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", p.errf("control character %U in a string", rune(c))
		default:
			_, n := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteString(p.s[p.i : p.i+n])
			p.i += n
		}
	}
}

// literalString reads '…', no escapes.
func (p *parser) literalString() (string, error) {
	p.i++ // '
	j := strings.IndexByte(p.s[p.i:], '\'')
	if j < 0 {
		return "", p.errf("unterminated string")
	}
	s := p.s[p.i : p.i+j]
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return "", p.errf("control character %U in a string", r)
		}
	}
	p.i += j + 1
	return s, nil
}
