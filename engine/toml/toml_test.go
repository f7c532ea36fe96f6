package toml

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	doc := `# a manifest
vocab = "data/v.tsv"   # the vocabulary
n = 1_024
x = -2.5e3
ok = true
tags = ["a", 'b\c', 3]

[[file]]
path = "a.txt"
source = "caf\u00e9 \"q\""
source_offset = 66

[[file]]
"path" = 'b.txt'

[meta.owner]
name = "runner"
`
	root, err := Parse("m.toml", []byte(doc))
	if err != nil {
		t.Fatalf("Parse = %v", err)
	}
	if v := root.Keys["vocab"]; v == nil || v.Kind != String || v.Str != "data/v.tsv" || v.Line != 2 {
		t.Errorf("vocab = %+v; want the string data/v.tsv at line 2", v)
	}
	if v := root.Keys["n"]; v == nil || v.Kind != Int || v.Int != 1024 {
		t.Errorf("n = %+v; want integer 1024", v)
	}
	if v := root.Keys["x"]; v == nil || v.Kind != Float || v.Float != -2500 {
		t.Errorf("x = %+v; want float -2500", v)
	}
	if v := root.Keys["ok"]; v == nil || v.Kind != Bool || !v.Bool {
		t.Errorf("ok = %+v; want true", v)
	}
	if v := root.Keys["tags"]; v == nil || v.Kind != Array || len(v.Elems) != 3 || v.Elems[1].Str != `b\c` || v.Elems[2].Int != 3 {
		t.Errorf("tags = %+v; want [a, b\\c, 3]", v)
	}
	files := root.Arrays["file"]
	if len(files) != 2 || files[0].Line != 8 || files[1].Line != 13 {
		t.Fatalf("[[file]] = %+v; want two tables at lines 8 and 13", files)
	}
	if got := files[0].Keys["source"].Str; got != `café "q"` {
		t.Errorf("file[0].source = %q; want %q", got, `café "q"`)
	}
	if got := files[1].Keys["path"].Str; got != "b.txt" {
		t.Errorf("file[1].path = %q; want b.txt", got)
	}
	if o := root.Tables["meta"]; o == nil || o.Tables["owner"] == nil || o.Tables["owner"].Keys["name"].Str != "runner" {
		t.Errorf("[meta.owner] not read: %+v", root.Tables["meta"])
	}
	if got := strings.Join(root.Order, " "); got != "vocab n x ok tags file meta" {
		t.Errorf("root.Order = %q; want the document's order", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		doc, want string
	}{
		{"a = 1\na = 2\n", "m.toml:2:1: key \"a\" is given twice"},
		{"[t]\n[t]\n", "m.toml:2:4: table [t] is defined twice (first at line 1)"},
		{"a = {b = 1}\n", "m.toml:1:5: inline tables are not read"},
		{"a.b = 1\n", "m.toml:1:2: dotted keys are not read"},
		{"a = \"\"\"x\"\"\"\n", "m.toml:1:5: multi-line strings are not read"},
		{"a = \"x\n", "m.toml:1:7: unterminated string"},
		{"a = 1979-05-27\n", "m.toml:1:5: bad integer \"1979-05-27\""},
		{"a = 012\n", "m.toml:1:5: bad number \"012\": leading zero"},
		{"a = [1, 2\n", "m.toml:1:10: want \",\" or \"]\" in the array"},
		{"a = [1,\n", "m.toml:1:8: want \"]\": an array must close on its line"},
		{"a = 1 b\n", "m.toml:1:7: unexpected \"b\" after the value"},
		{"a = \"\\x41\"\n", "m.toml:1:6: bad escape \\x"},
		{"x\n", "m.toml:1:2: want \"=\" after the key \"x\""},
		{"[a]\nb = 1\n[[a]]\n", "m.toml:3:6: a is already defined, not as an array of tables"},
		{"ok = 1\n\xff = 2\n", "m.toml:2: invalid UTF-8"},
		{"a = nope\n", "m.toml:1:5: want a value (a string, number or boolean), found \"nope\""},
	} {
		_, err := Parse("m.toml", []byte(tt.doc))
		var te *Error
		if err == nil || !errors.As(err, &te) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an *Error starting %q", tt.doc, err, tt.want)
		}
	}
}

// FuzzParse: any input parses or is an *Error at a line of the input;
// never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a = 1\n", "[[file]]\npath = \"x\"\nsource_offset = 3\n", "[a.b]\nc = [1, 'x', \"\\u00e9\"]\n", "a = {", "\"k\" = -1.5e3 # c\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := Parse("f.toml", data)
		lines := strings.Count(string(data), "\n") + 1
		if err != nil {
			var te *Error
			if !errors.As(err, &te) || te.File != "f.toml" || te.Line < 1 || te.Line > lines {
				t.Fatalf("Parse(%q) = %v; want an *Error at a line in 1..%d", data, err, lines)
			}
			return
		}
		var walk func(*Table)
		walk = func(tb *Table) {
			for k, v := range tb.Keys {
				if v.Line < 1 || v.Line > lines {
					t.Fatalf("Parse(%q): key %q at line %d; want 1..%d", data, k, v.Line, lines)
				}
			}
			for _, st := range tb.Tables {
				walk(st)
			}
			for _, at := range tb.Arrays {
				for _, st := range at {
					walk(st)
				}
			}
		}
		walk(root)
	})
}

// TestLineOf: a name's line is its key's, its table's header's or its
// first array table's header's; a name the table does not hold gets the
// table's own line.
func TestLineOf(t *testing.T) {
	doc, err := Parse("m.toml", []byte("a = 1\n[t]\nb = 2\n[[arr]]\n[[arr]]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		want int
	}{{"a", 1}, {"t", 2}, {"arr", 4}, {"nope", 0}} {
		if got := doc.LineOf(tt.name); got != tt.want {
			t.Errorf("LineOf(%q) = %d; want %d", tt.name, got, tt.want)
		}
	}
	if got := doc.Tables["t"].LineOf("b"); got != 3 {
		t.Errorf("[t] LineOf(%q) = %d; want 3", "b", got)
	}
}
