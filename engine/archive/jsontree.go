package archive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a results file. The runner writes at most
// five levels; a deeper file is malformed, and the bound keeps a hostile one
// from exhausting the stack.
const maxDepth = 64

// node is one JSON value with the place it was read from. The loader decodes
// through nodes rather than encoding/json's struct decoding so that every
// error can name the JSON path and line:column, duplicate object keys are
// caught, and no unknown key passes silently.
type node struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	off   int  // byte offset of the value's first byte
	end   int  // byte offset just past the value
	path  string
	keys  []string // object keys, in file order
	vals  []*node  // object values (parallel to keys) or array elements
	str   string
	num   json.Number
	bool_ bool
}

// get returns the member of an object node, or nil.
func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// parser builds a node tree from a JSON document.
type parser struct {
	file  string
	data  []byte
	dec   *json.Decoder
	lines lineIndex
}

// lineIndex maps byte offsets to 1-based line and column (columns count
// bytes, as compilers do).
type lineIndex []int // offsets of line starts

func newLineIndex(b []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range b {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (li lineIndex) pos(off int) (line, col int) {
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

// parseTree parses data as one JSON value followed by nothing but space.
func parseTree(file string, data []byte) (*node, error) {
	p := &parser{file: file, data: data, lines: newLineIndex(data)}
	p.dec = json.NewDecoder(bytes.NewReader(data))
	p.dec.UseNumber()
	root, err := p.value("", 0)
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
	line, col := p.lines.pos(off)
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

func (p *parser) value(path string, depth int) (*node, error) {
	start := p.skipSpace(int(p.dec.InputOffset()))
	if depth > maxDepth {
		return nil, p.errAt(start, path, "nesting deeper than %d levels", maxDepth)
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.tokenErr(err, start, path)
	}
	n := &node{off: start, path: path}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = 'o'
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
				kpath := joinKey(path, key)
				for _, k := range n.keys {
					if k == key {
						return nil, p.errAt(koff, kpath, "duplicate key %q", key)
					}
				}
				v, err := p.value(kpath, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, key)
				n.vals = append(n.vals, v)
			}
		case '[':
			n.kind = 'a'
			for i := 0; p.dec.More(); i++ {
				v, err := p.value(path+"["+strconv.Itoa(i)+"]", depth+1)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
		default:
			return nil, p.errAt(start, path, "unexpected %q", rune(t))
		}
		endOff := p.skipSpace(int(p.dec.InputOffset()))
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, p.tokenErr(err, endOff, path)
		}
	case string:
		n.kind, n.str = 's', t
	case json.Number:
		n.kind, n.num = 'n', t
	case bool:
		n.kind, n.bool_ = 'b', t
	case nil:
		n.kind = 'z'
	}
	n.end = int(p.dec.InputOffset())
	return n, nil
}

// joinKey appends an object key to a JSON path: a.b for identifier-like
// keys, a["odd key"] otherwise.
func joinKey(path, key string) string {
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

// firstInvalidUTF8 returns the offset of the first byte of data that is not
// valid UTF-8, or -1.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// innermost returns the deepest node whose span contains off.
func innermost(n *node, off int) *node {
	for _, v := range n.vals {
		if v.off <= off && off < v.end {
			return innermost(v, off)
		}
	}
	return n
}

func kindName(k byte) string {
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
