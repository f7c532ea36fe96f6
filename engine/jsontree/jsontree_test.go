package jsontree

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseDocEach: the array at the path is handed over element by
// element and not kept; everything else is the tree ParseDoc builds, and
// errors inside a handed-over element keep their place.
func TestParseDocEach(t *testing.T) {
	for _, tt := range []struct {
		name, doc, path string
		wantPaths       []string // paths of the elements handed over
		wantErr         string
	}{
		{"member", `{"runs": [{"a": 1}, {"a": 2}], "x": [3]}`, "runs", []string{"runs[0]", "runs[1]"}, ""},
		{"nested", `{"d": {"runs": [1, 2, 3]}, "runs": [9]}`, "d.runs", []string{"d.runs[0]", "d.runs[1]", "d.runs[2]"}, ""},
		{"root", `[{"a": 1}]`, "", []string{"[0]"}, ""},
		{"not an array", `{"runs": {"a": 1}}`, "runs", nil, ""},
		{"callback error", `{"runs": [1, "stop", 3]}`, "runs", []string{"runs[0]"}, "stop at runs[1]"},
		{"invalid UTF-8 in an element", "{\"runs\": [{\"a\": \"ok\"}, {\"b\": \"\xff\"}]}", "runs", []string{"runs[0]"}, "t.json:1:30: runs[1].b: invalid UTF-8 (byte 0xff)"},
		{"syntax error", `{"runs": [1, 2,]}`, "runs", []string{"runs[0]", "runs[1]"}, "JSON syntax error"},
	} {
		var got []string
		doc, err := ParseDocEach("t.json", []byte(tt.doc), tt.path, func(d *Doc, i int, n *Node) error {
			if n.Kind == 's' && n.Str == "stop" {
				return d.Errorf(n, "stop at %s", n.Path)
			}
			got = append(got, n.Path)
			return nil
		})
		if diff := cmp.Diff(tt.wantPaths, got); diff != "" {
			t.Errorf("%s: elements handed over (-want +got):\n%s", tt.name, diff)
		}
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: ParseDocEach error %v; want one containing %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: ParseDocEach: %v", tt.name, err)
		}
		full, err := ParseDoc("t.json", []byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		at, fullAt := doc.Root.Lookup(tt.path), full.Root.Lookup(tt.path)
		if fullAt.Kind == 'a' {
			if len(at.Vals) != 0 {
				t.Errorf("%s: the handed-over array keeps %d elements; want none", tt.name, len(at.Vals))
			}
			at.Vals, fullAt.Vals = nil, nil
		}
		if diff := cmp.Diff(full.Root, doc.Root); diff != "" {
			t.Errorf("%s: tree beside the array differs from ParseDoc's (-ParseDoc +ParseDocEach):\n%s", tt.name, diff)
		}
	}
}
