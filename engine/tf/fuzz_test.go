package tf

import (
	"strings"
	"testing"
)

var parseSeeds = []string{
	"# domain: ja\n# source_offset: 7\n248045 872 198\n",
	"# t\r\n# domain: ops_tools\r\n# source: x\r\n# source_offset: 0\r\n1 2\r\n# c\r\n3\r\n",
	"# domain: ja\n# domain: en\n",
	"# domain: ja\n# source_offset: -1\n1\n",
	"# domain: ja\n# source_offset: 1\n99999999999\n",
	"",
}

// checkParseTF is the fuzz property: Parse never panics; an error names the
// file; a file that parses marshals and parses back to the same ids.
func checkParseTF(t *testing.T, s string) {
	f, err := Parse("fuzz.txt", []byte(s))
	if err != nil {
		if !strings.Contains(err.Error(), "fuzz.txt") {
			t.Fatalf("error %q does not name the file", err)
		}
		return
	}
	if len(f.IDs) != len(f.IDLine) {
		t.Fatalf("%d ids, %d lines", len(f.IDs), len(f.IDLine))
	}
	data, err := f.Marshal("")
	if err != nil {
		return // header text with a line break cannot be written back
	}
	g, err := Parse("again.txt", data)
	if err != nil || g.Domain != f.Domain || g.SourceOffset != f.SourceOffset || len(g.IDs) != len(f.IDs) {
		t.Fatalf("round trip: %+v, %v; want %+v", g, err, f)
	}
}

func TestParseSeeds(t *testing.T) {
	for _, s := range parseSeeds {
		checkParseTF(t, s)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(s)
	}
	f.Fuzz(checkParseTF)
}
