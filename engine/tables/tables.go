// Package tables reads a runner's own derived tables out of its results
// JSON: objects of numbers (a run's perf dict, a block of derived values),
// objects or arrays of such objects (per-run dicts, summary rows), located
// by a results file and a dotted JSON path that the checkout's spec names.
// Every value keeps its place (file, line, JSON path), so a rule can point
// at the number it disputes.
package tables

import (
	"errors"
	"fmt"
	"math"

	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/strataspec/strataspec/engine/num"
)

// Loc locates a table: a results file (relative to the snapshot root; ""
// for the snapshot's first results file) and a dotted JSON path in it.
type Loc struct {
	File string `json:"file,omitempty"`
	Path string `json:"path"`
}

// String prints the location as file: path.
func (l Loc) String() string {
	if l.File == "" {
		return l.Path
	}
	return l.File + ": " + l.Path
}

// ErrMissing is matched (errors.Is) by the error of a table whose path is
// not in its file.
var ErrMissing = errors.New("no such table")

// Field is one number (or null) of a table, with its place.
type Field struct {
	Name string     // key in its object ("" for array elements)
	Num  num.Number // value and the literal as written
	Null bool       // the value was null
	Path string     // JSON path
	Line int        // line in the file
}

// Value returns the field's value (0 for null).
func (f Field) Value() float64 { return f.Num.Value }

// Text returns the value as written, "null" for null.
func (f Field) Text() string {
	if f.Null {
		return "null"
	}
	return f.Num.Text
}

// Dict is one JSON object of a table. Numbers (and nulls) are Fields in
// file order; strings, arrays of numbers and arrays of strings are kept
// by key.
type Dict struct {
	Key     string // key in the enclosing object, "" for an array element
	Path    string
	Line    int
	Fields  []Field
	Strings map[string]string
	Lists   map[string][]Field
	Names   map[string][]string
}

// Get returns the number field with the given name.
func (d *Dict) Get(name string) (Field, bool) {
	if d == nil {
		return Field{}, false
	}
	for _, f := range d.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Table is a decoded table: one Dict, or Rows when the value at the path
// is an array of objects or an object whose members are all objects.
type Table struct {
	File string
	Path string
	Line int
	Dict *Dict
	Rows []*Dict
}

// Row returns the row with the given key, or nil.
func (t *Table) Row(key string) *Dict {
	if t == nil {
		return nil
	}
	for _, r := range t.Rows {
		if r.Key == key {
			return r
		}
	}
	return nil
}

// Read decodes the table at path in doc. A path not in the document is an
// error matching ErrMissing; a value that is not a table (a string, a
// nested object inside a dict of numbers, a boolean) is an error naming
// the file, line and path.
func Read(doc *jsontree.Doc, path string) (*Table, error) {
	n := doc.Root.Lookup(path)
	if n == nil || path == "" {
		return nil, fmt.Errorf("%s: %q: %w", doc.File, path, ErrMissing)
	}
	t := &Table{File: doc.File, Path: path, Line: doc.Line(n)}
	switch {
	case n.Kind == 'a':
		for _, v := range n.Vals {
			d, err := dict(doc, v, "")
			if err != nil {
				return nil, err
			}
			t.Rows = append(t.Rows, d)
		}
	case n.Kind == 'o' && len(n.Vals) > 0 && allObjects(n):
		for i, v := range n.Vals {
			d, err := dict(doc, v, n.Keys[i])
			if err != nil {
				return nil, err
			}
			t.Rows = append(t.Rows, d)
		}
	default:
		d, err := dict(doc, n, "")
		if err != nil {
			return nil, err
		}
		t.Dict = d
	}
	return t, nil
}

func allObjects(n *jsontree.Node) bool {
	for _, v := range n.Vals {
		if v.Kind != 'o' {
			return false
		}
	}
	return true
}

func dict(doc *jsontree.Doc, n *jsontree.Node, key string) (*Dict, error) {
	if n.Kind != 'o' {
		return nil, doc.Errorf(n, "want an object of numbers, found %s", jsontree.KindName(n.Kind))
	}
	d := &Dict{Key: key, Path: n.Path, Line: doc.Line(n)}
	for i, k := range n.Keys {
		v := n.Vals[i]
		switch v.Kind {
		case 'n', 'z':
			f, err := field(doc, v, k)
			if err != nil {
				return nil, err
			}
			d.Fields = append(d.Fields, f)
		case 's':
			if d.Strings == nil {
				d.Strings = map[string]string{}
			}
			d.Strings[k] = v.Str
		case 'a':
			if err := d.list(doc, k, v); err != nil {
				return nil, err
			}
		default:
			return nil, doc.Errorf(v, "want a number, a string or an array, found %s", jsontree.KindName(v.Kind))
		}
	}
	return d, nil
}

// list keeps an array of numbers in Lists, of strings in Names.
func (d *Dict) list(doc *jsontree.Doc, k string, v *jsontree.Node) error {
	if len(v.Vals) > 0 && v.Vals[0].Kind == 's' {
		names := make([]string, 0, len(v.Vals))
		for _, e := range v.Vals {
			if e.Kind != 's' {
				return doc.Errorf(e, "want a string, found %s", jsontree.KindName(e.Kind))
			}
			names = append(names, e.Str)
		}
		if d.Names == nil {
			d.Names = map[string][]string{}
		}
		d.Names[k] = names
		return nil
	}
	fs := make([]Field, 0, len(v.Vals))
	for _, e := range v.Vals {
		f, err := field(doc, e, "")
		if err != nil {
			return err
		}
		fs = append(fs, f)
	}
	if d.Lists == nil {
		d.Lists = map[string][]Field{}
	}
	d.Lists[k] = fs
	return nil
}

func field(doc *jsontree.Doc, n *jsontree.Node, name string) (Field, error) {
	f := Field{Name: name, Path: n.Path, Line: doc.Line(n)}
	switch n.Kind {
	case 'z':
		f.Null = true
		return f, nil
	case 'n':
		v, err := num.Parse(string(n.Num))
		if err != nil || math.IsInf(v.Value, 0) {
			return f, doc.Errorf(n, "bad number %s", n.Num)
		}
		f.Num = v
		return f, nil
	}
	return f, doc.Errorf(n, "want a number or null, found %s", jsontree.KindName(n.Kind))
}
