// Package jsontree parses a JSON document into a tree of values that keep
// their place: byte offsets, line:column and the JSON path. Readers decode
// through it rather than encoding/json's struct decoding so that every error
// names the file, line:column and JSON path, duplicate object keys are caught,
// and keys nobody asked for can be listed instead of passing silently.
package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/finding"
)

// MaxDepth bounds the nesting of a results file. The runner writes at most
// five levels; a deeper file is malformed, and the bound keeps a hostile one
// from exhausting the stack.
const MaxDepth = 64

// Node is one JSON value with the place it was read from.
type Node struct {
	Kind byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	Off  int  // byte offset of the value's first byte
	End  int  // byte offset just past the value
	Path string
	Keys []string // object keys, in file order
	Vals []*Node  // object values (parallel to keys) or array elements
	Str  string
	Num  json.Number
	Bool bool
}

// Get returns the member of an object node, or nil.
func (n *Node) Get(key string) *Node {
	for i, k := range n.Keys {
		if k == key {
			return n.Vals[i]
		}
	}
	return nil
}

// parser builds a node tree from a JSON document.
type parser struct {
	file  string
	data  []byte
	dec   *json.Decoder
	lines LineIndex

	// With each set, the array at the member path target (see
	// ParseDocEach) is not kept: each element is passed to each and
	// dropped.
	target  []string
	each    func(i int, elem *Node) error
	invalid int // offset of the first invalid UTF-8 byte, -1 for none
	doc     *Doc
}

// LineIndex maps byte offsets to 1-based line and column (columns count
// bytes, as compilers do).
type LineIndex []int // offsets of line starts

// NewLineIndex indexes the line starts of b.
func NewLineIndex(b []byte) LineIndex {
	idx := LineIndex{0}
	for i, c := range b {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// Pos returns the 1-based line and byte column of offset off.
func (li LineIndex) Pos(off int) (line, col int) {
	lo, hi := 0, len(li)
	for lo+1 < hi {
		m := (lo + hi) / 2
		if li[m] <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo + 1, off - li[lo] + 1
}

// Parse parses data as one JSON value followed by nothing but space.
func Parse(file string, data []byte) (*Node, error) {
	p := &parser{file: file, data: data, lines: NewLineIndex(data)}
	return p.parse()
}

func (p *parser) parse() (*Node, error) {
	p.dec = json.NewDecoder(bytes.NewReader(p.data))
	p.dec.UseNumber()
	track := -1
	if p.each != nil {
		track = 0
	}
	root, err := p.value("", 0, track)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		off := p.skipSpace(int(p.dec.InputOffset()))
		return nil, p.errAt(off, "", "unexpected data after the top-level value")
	}
	return root, nil
}

// skipSpace returns the offset of the first byte at or after off that is not
// JSON white space or a separator: where the next token starts.
func (p *parser) skipSpace(off int) int {
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

func (p *parser) errAt(off int, path, format string, args ...any) *Error {
	line, col := p.lines.Pos(off)
	return &Error{File: p.file, Line: line, Col: col, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// tokenErr turns a decoder error into an *Error at the right place.
func (p *parser) tokenErr(err error, start int, path string) *Error {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.errAt(len(p.data), path, "unexpected end of JSON (truncated file?)")
	case errors.As(err, &se):
		off := int(se.Offset) - 1
		if off < start {
			off = start
		}
		if off > len(p.data) {
			off = len(p.data)
		}
		return p.errAt(off, path, "JSON syntax error: %s", se.Error())
	}
	return p.errAt(start, path, "JSON: %v", err)
}

// value reads the next value, at path. track is how many keys of p.target
// lead from the root to it through object members, -1 when it is off that
// path (or nothing is streamed).
func (p *parser) value(path string, depth, track int) (*Node, error) {
	start := p.skipSpace(int(p.dec.InputOffset()))
	if depth > MaxDepth {
		return nil, p.errAt(start, path, "nesting deeper than %d levels", MaxDepth)
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.tokenErr(err, start, path)
	}
	n := &Node{Off: start, Path: path}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.Kind = 'o'
			for p.dec.More() {
				koff := p.skipSpace(int(p.dec.InputOffset()))
				kt, err := p.dec.Token()
				if err != nil {
					return nil, p.tokenErr(err, koff, path)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, p.errAt(koff, path, "object key is not a string")
				}
				kpath := JoinKey(path, key)
				for _, k := range n.Keys {
					if k == key {
						return nil, p.errAt(koff, kpath, "duplicate key %q", key)
					}
				}
				ktrack := -1
				if track >= 0 && track < len(p.target) && p.target[track] == key {
					ktrack = track + 1
				}
				v, err := p.value(kpath, depth+1, ktrack)
				if err != nil {
					return nil, err
				}
				n.Keys = append(n.Keys, key)
				n.Vals = append(n.Vals, v)
			}
		case '[':
			n.Kind = 'a'
			stream := track == len(p.target) && p.each != nil
			for i := 0; p.dec.More(); i++ {
				v, err := p.value(path+"["+strconv.Itoa(i)+"]", depth+1, -1)
				if err != nil {
					return nil, err
				}
				if !stream {
					n.Vals = append(n.Vals, v)
					continue
				}
				if p.invalid >= v.Off && p.invalid < v.End {
					return nil, p.doc.Errorf(Innermost(v, p.invalid), "invalid UTF-8 (byte 0x%02x)", p.data[p.invalid])
				}
				if err := p.each(i, v); err != nil {
					return nil, err
				}
			}
		default:
			return nil, p.errAt(start, path, "unexpected %q", rune(t))
		}
		endOff := p.skipSpace(int(p.dec.InputOffset()))
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, p.tokenErr(err, endOff, path)
		}
	case string:
		n.Kind, n.Str = 's', t
	case json.Number:
		n.Kind, n.Num = 'n', t
	case bool:
		n.Kind, n.Bool = 'b', t
	case nil:
		n.Kind = 'z'
	}
	n.End = int(p.dec.InputOffset())
	return n, nil
}

// JoinKey appends an object key to a JSON path: a.b for identifier-like
// keys, a["odd key"] otherwise.
func JoinKey(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			plain = false
			break
		}
	}
	if !plain {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// FirstInvalidUTF8 returns the offset of the first byte of data that is not
// valid UTF-8, or -1.
func FirstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// Innermost returns the deepest node whose span contains off.
func Innermost(n *Node, off int) *Node {
	for _, v := range n.Vals {
		if v.Off <= off && off < v.End {
			return Innermost(v, off)
		}
	}
	return n
}

// KindName names a node kind for messages: "object", "array", "string", …
func KindName(k byte) string {
	switch k {
	case 'o':
		return "object"
	case 'a':
		return "array"
	case 's':
		return "string"
	case 'n':
		return "number"
	case 'b':
		return "boolean"
	case 'z':
		return "null"
	}
	return "value"
}

// Error is a problem in a JSON document at a place.
type Error struct {
	File string // as given to Parse, relative to the snapshot root
	Line int    // 1-based; 0 when the problem is about the whole file
	Col  int    // 1-based byte column; 0 when unknown
	Path string // JSON path, e.g. "runs[3].name"; "" at the top
	Msg  string
}

// Error formats the error as file:line:col: path: message, leaving out
// the parts it does not have.
func (e *Error) Error() string { return e.Pos().String() + ": " + e.Msg }

// Pos returns the error's place: file, line, column and JSON path.
func (e *Error) Pos() finding.Pos {
	return finding.Pos{File: e.File, Line: e.Line, Col: e.Col, Path: e.Path}
}

// Doc is a parsed document: its tree, its bytes and its line index.
type Doc struct {
	File  string
	Data  []byte
	Root  *Node
	Lines LineIndex
}

// ParseDoc parses data as a JSON document named file. Besides Parse's
// errors it refuses a byte-order mark and invalid UTF-8, naming the place.
func ParseDoc(file string, data []byte) (*Doc, error) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "starts with a UTF-8 byte-order mark; JSON does not allow one (save the file without a BOM)"}
	}
	root, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	d := &Doc{File: file, Data: data, Root: root, Lines: NewLineIndex(data)}
	if off := FirstInvalidUTF8(data); off >= 0 {
		return nil, d.Errorf(Innermost(root, off), "invalid UTF-8 (byte 0x%02x)", data[off])
	}
	return d, nil
}

// ParseDocEach is ParseDoc for a document whose array at path (a Lookup
// path: "runs", "data.runs", "" for the root) may be long: each element is
// built, passed to each with its index, and dropped, so that the tree never
// holds more than one of them. The array's node in the result has no Vals.
// each is called with the document (its Root still nil) for places and
// messages; an error from it stops the parse and is returned. A value at
// path that is not an array is kept as ParseDoc would keep it.
func ParseDocEach(file string, data []byte, path string, each func(d *Doc, i int, elem *Node) error) (*Doc, error) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "starts with a UTF-8 byte-order mark; JSON does not allow one (save the file without a BOM)"}
	}
	d := &Doc{File: file, Data: data, Lines: NewLineIndex(data)}
	p := &parser{file: file, data: data, lines: d.Lines, invalid: FirstInvalidUTF8(data), doc: d,
		each: func(i int, elem *Node) error { return each(d, i, elem) }}
	if path != "" && path != "." {
		p.target = strings.Split(path, ".")
	}
	root, err := p.parse()
	if err != nil {
		return nil, err
	}
	d.Root = root
	if off := p.invalid; off >= 0 {
		return nil, d.Errorf(Innermost(root, off), "invalid UTF-8 (byte 0x%02x)", data[off])
	}
	return d, nil
}

// Line returns the 1-based line of a node.
func (d *Doc) Line(n *Node) int {
	l, _ := d.Lines.Pos(n.Off)
	return l
}

// Errorf returns an *Error at node n.
func (d *Doc) Errorf(n *Node, format string, args ...any) *Error {
	l, c := d.Lines.Pos(n.Off)
	return &Error{File: d.File, Line: l, Col: c, Path: n.Path, Msg: fmt.Sprintf(format, args...)}
}

// Find returns the first node below n, in file order, for which match
// holds; key is the member name of an object's value, "" for an array
// element. It returns nil when none matches.
func (n *Node) Find(match func(key string, v *Node) bool) *Node {
	for i, v := range n.Vals {
		key := ""
		if n.Kind == 'o' {
			key = n.Keys[i]
		}
		if match(key, v) {
			return v
		}
		if w := v.Find(match); w != nil {
			return w
		}
	}
	return nil
}

// At returns the node below n whose Path is path ("rules.cache.helpers[0].name"),
// or nil.
func (n *Node) At(path string) *Node {
	return n.Find(func(_ string, v *Node) bool { return v.Path == path })
}

// Lookup follows a dotted JSON path ("a.b", "runs", "" for the root) from
// n; it returns nil where a member is missing. Array elements are not
// addressed: a path names objects' members only.
func (n *Node) Lookup(path string) *Node {
	if path == "" || path == "." {
		return n
	}
	cur := n
	for _, k := range strings.Split(path, ".") {
		if cur == nil || cur.Kind != 'o' {
			return nil
		}
		cur = cur.Get(k)
	}
	return cur
}
