package jsontree

import (
	"strings"
	"testing"
)

// TestParseCSV: each row is a JSON object by the header's names, dotted
// names nesting, cells that spell JSON values read as those values, empty
// cells absent; each row knows the line it starts on, past quoted line
// breaks.
func TestParseCSV(t *testing.T) {
	in := "\xef\xbb\xbfname,argv,vm.swap,vm.avail,exit,out,note\n" +
		"a,\"[\"\"./x\"\", \"\"-n\"\"]\",0.0,2.91,0,\"line 1\nline 2\",\n" +
		"b,./y -n 2,,3,1e3,x,null\n"
	rows, err := ParseCSV("r.csv", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int
		json string
	}{
		{2, `{"name":"a","argv":["./x","-n"],"vm":{"swap":0.0,"avail":2.91},"exit":0,"out":"line 1\nline 2"}`},
		{4, `{"name":"b","argv":"./y -n 2","vm":{"avail":3},"exit":1e3,"out":"x","note":null}`},
	}
	if len(rows) != len(want) {
		t.Fatalf("ParseCSV = %d rows; want %d", len(rows), len(want))
	}
	for i, w := range want {
		if rows[i].Line != w.line || string(rows[i].Doc.Data) != w.json {
			t.Errorf("row %d = line %d %s; want line %d %s", i, rows[i].Line, rows[i].Doc.Data, w.line, w.json)
		}
	}
	if n := rows[0].Doc.Root.Lookup("vm.avail"); n == nil || n.Kind != 'n' || string(n.Num) != "2.91" {
		t.Errorf("row 0 vm.avail = %+v; want the number 2.91", n)
	}
	if c, ok := rows[0].Cells["vm.avail"]; !ok || c != (CSVCell{2, 27}) {
		t.Errorf("row 0 vm.avail cell at %+v, %v; want line 2 column 27 (the file's)", c, ok)
	}
	if c, ok := rows[1].Cells["exit"]; !ok || c != (CSVCell{4, 15}) {
		t.Errorf("row 1 exit cell at %+v, %v; want line 4 column 15", c, ok)
	}
	if _, ok := rows[1].Cells["vm.swap"]; ok {
		t.Errorf("row 1 has a cell for its empty vm.swap; want none (the key is absent)")
	}
}

// TestParseCSVErrors: what is not a CSV of records is an error at its line.
func TestParseCSVErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a,b\n1,2\n3\n", "r.csv:3:"},
		{"a,a\n1,2\n", `r.csv:1: header column 2: "a" named twice`},
		{"vm,vm.swap\n1,2\n", `r.csv:1: header: "vm" is a value and the parent of "vm.swap"`},
		{"a,,b\n1,2,3\n", `r.csv:1: header column 2: "" is no key path`},
		{"a,b\n\"1,2\n", "r.csv:2:"},
		{"", "r.csv: empty: no header row"},
	} {
		_, err := ParseCSV("r.csv", []byte(tt.in))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ParseCSV(%q) = %v; want an error starting %q", tt.in, err, tt.want)
		}
	}
}
