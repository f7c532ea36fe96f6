package pagecache

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseDocument(t *testing.T) {
	const ok = `{
  "format": "strataspec-residency/1",
  "op": "residency",
  "files": [
    {"reading": {"path": "/tmp/p", "size": 32768, "page_size": 16384, "resident": 1, "total": 2, "method": "mincore"}}
  ]
}`
	d, err := ParseDocument("r.json", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Files[0].Reading; r == nil || r.Count != (Count{1, 2}) || r.PageSize != 16384 || r.Path != "/tmp/p" {
		t.Errorf("ParseDocument(ok) = %+v; want the reading 1/2 of /tmp/p", d.Files[0])
	}
	tests := []struct{ name, doc, want string }{
		{"syntax", "{\n\"format\": \"strataspec-residency/1\",\n\"op\": }", "r.json:3: invalid character"},
		{"unknown field", strings.Replace(ok, `"method"`, `"extra": 1, "method"`, 1), `r.json:5: json: unknown field "extra"`},
		{"type", strings.Replace(ok, `"resident": 1`, `"resident": "1"`, 1), "r.json:5: json: cannot unmarshal string"},
		{"format", strings.Replace(ok, "residency/1", "residency/2", 1), `r.json:2: format "strataspec-residency/2"`},
		{"op", strings.Replace(ok, `"op": "residency"`, `"op": "purge"`, 1), `op "purge"`},
		{"no files", `{"format": "strataspec-residency/1", "op": "residency", "files": []}`, "no files"},
		{"empty entry", strings.Replace(ok, `{"reading": {"path": "/tmp/p", "size": 32768, "page_size": 16384, "resident": 1, "total": 2, "method": "mincore"}}`, `{}`, 1), "files[0] has 0 of reading, result and error"},
		{"reading under evict", strings.Replace(ok, `"op": "residency"`, `"op": "evict"`, 1), "files[0]: a evict document holds readings for op residency"},
		{"trailing", ok + "\n{}", "r.json:8: data after the document"},
	}
	for _, tt := range tests {
		_, err := ParseDocument("r.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseDocument(%s) = %v; want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestParseDocumentLines: a document's errors name the line of the value
// they are about (from engine/jsontree), not the first line of the file.
func TestParseDocumentLines(t *testing.T) {
	const doc = `{
  "format": "strataspec-residency/1",
  "op": "%s",
  "files": [
    {"error": "x"},
    {}
  ]
}`
	for _, tt := range []struct{ op, want string }{
		{"purge", `r.json:3: op "purge"`},
		{"residency", "r.json:6: files[1] has 0 of reading, result and error"},
	} {
		_, err := ParseDocument("r.json", []byte(fmt.Sprintf(doc, tt.op)))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ParseDocument(op %s) = %v; want an error starting %q", tt.op, err, tt.want)
		}
	}
}
