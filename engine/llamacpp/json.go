package llamacpp

import (
	"fmt"
	"strconv"
	"strings"
)

// jsonReader reads the flat JSON llama.cpp prints (llama-bench's rows, the
// server's timings): objects whose values are strings, numbers, booleans,
// null or arrays of those. It keeps every scalar as printed (a number's
// text, a string unquoted) and counts lines, so that a row and an error
// can name their line. Nested objects are an error: no llama.cpp output
// this package reads has them.
type jsonReader struct {
	s    string
	i    int
	line int // 1-based line of s[i]
}

// jsonField is one member of an object: the key, the scalar's text or the
// array's elements' texts.
type jsonField struct {
	key   string
	val   string
	arr   []string
	isArr bool
	str   bool // val was a JSON string
}

func (r *jsonReader) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", r.line, fmt.Sprintf(format, args...))
}

// ws skips white space, counting newlines.
func (r *jsonReader) ws() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case '\n':
			r.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		r.i++
	}
}

func (r *jsonReader) peek() byte {
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

// expect consumes c after white space.
func (r *jsonReader) expect(c byte) error {
	r.ws()
	if r.peek() != c {
		if r.i >= len(r.s) {
			return r.errorf("want %q, got the end of the text", c)
		}
		return r.errorf("want %q, got %q", c, r.s[r.i])
	}
	r.i++
	return nil
}

// str reads a JSON string at r.i (after white space) and returns it unquoted.
func (r *jsonReader) str() (string, error) {
	if err := r.expect('"'); err != nil {
		return "", err
	}
	start := r.i
	for r.i < len(r.s) {
		switch c := r.s[r.i]; c {
		case '"':
			v := r.s[start:r.i]
			r.i++
			return v, nil
		case '\\':
			return r.strSlow(start - 1)
		case '\n':
			return "", r.errorf("newline inside a string")
		}
		r.i++
	}
	return "", r.errorf("unterminated string")
}

// strSlow reads a string with escapes starting at its opening quote.
func (r *jsonReader) strSlow(quote int) (string, error) {
	i := quote + 1
	for i < len(r.s) {
		switch r.s[i] {
		case '\\':
			i += 2
			continue
		case '"':
			v, err := strconv.Unquote(r.s[quote : i+1])
			if err != nil {
				return "", r.errorf("bad string %s", r.s[quote:i+1])
			}
			r.i = i + 1
			return v, nil
		case '\n':
			return "", r.errorf("newline inside a string")
		}
		i++
	}
	return "", r.errorf("unterminated string")
}

// scalar reads a string, number, true, false or null.
func (r *jsonReader) scalar() (text string, isStr bool, err error) {
	r.ws()
	switch c := r.peek(); {
	case c == '"':
		s, err := r.str()
		return s, true, err
	case c == '-' || c >= '0' && c <= '9':
		start := r.i
		for r.i < len(r.s) {
			c := r.s[r.i]
			if c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' {
				r.i++
				continue
			}
			break
		}
		return r.s[start:r.i], false, nil
	case c == 't' || c == 'f' || c == 'n':
		for _, w := range []string{"true", "false", "null"} {
			if strings.HasPrefix(r.s[r.i:], w) {
				r.i += len(w)
				return w, false, nil
			}
		}
	case c == 0:
		return "", false, r.errorf("want a value, got the end of the text")
	}
	return "", false, r.errorf("want a string, number, true, false or null, got %q", clip(r.s[r.i:], 20))
}

// object reads an object, calling f with each member.
func (r *jsonReader) object(f func(jsonField) error) error {
	if err := r.expect('{'); err != nil {
		return err
	}
	r.ws()
	if r.peek() == '}' {
		r.i++
		return nil
	}
	for {
		key, err := r.str()
		if err != nil {
			return err
		}
		if err := r.expect(':'); err != nil {
			return err
		}
		r.ws()
		fd := jsonField{key: key}
		switch r.peek() {
		case '[':
			r.i++
			fd.isArr = true
			r.ws()
			if r.peek() == ']' {
				r.i++
				break
			}
			for {
				v, _, err := r.scalar()
				if err != nil {
					return err
				}
				fd.arr = append(fd.arr, v)
				r.ws()
				if r.peek() == ',' {
					r.i++
					continue
				}
				if err := r.expect(']'); err != nil {
					return err
				}
				break
			}
		case '{':
			return r.errorf("member %q: nested objects are not llama.cpp output", key)
		default:
			fd.val, fd.str, err = r.scalar()
			if err != nil {
				return fmt.Errorf("member %q: %w", key, err)
			}
		}
		if err := f(fd); err != nil {
			return err
		}
		r.ws()
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return nil
		default:
			return r.errorf("want ',' or '}' after member %q", key)
		}
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// lines walks a text line by line: after next returns true, line is the
// line without its '\n', n its 1-based number and start its offset.
type lines struct {
	text     string
	pos      int // offset of the next line
	n        int
	start    int
	line     string
	nextLine int // number of the line at pos
}

func newLines(text string) *lines { return &lines{text: text, nextLine: 1} }

func (l *lines) next() bool {
	if l.pos >= len(l.text) {
		return false
	}
	end := strings.IndexByte(l.text[l.pos:], '\n')
	if end < 0 {
		end = len(l.text)
	} else {
		end += l.pos
	}
	l.start, l.line, l.n = l.pos, l.text[l.pos:end], l.nextLine
	l.pos, l.nextLine = end+1, l.nextLine+1
	return true
}

// seek makes the next line the one at offset pos, numbered n.
func (l *lines) seek(pos, n int) { l.pos, l.nextLine = pos, n }
