package tf

import (
	"slices"
	"strings"

	"testing"

	"github.com/strataspec/strataspec/engine/gguf"
)

var parseSeeds = []string{
	"259 256 10\n97 260 10 259 257 10 261 10 111\n", // plain ids
	"# domain: ja\n# source_offset: 7\n248045 872 198\n",
	"# t\r\n# domain: ops_tools\r\n# source: x\r\n# source_offset: 0\r\n1 2\r\n# c\r\n3\r\n",
	"# domain: ja\n# domain: en\n",
	"# domain: ja\n# source_offset: -1\n1\n",
	"# domain: ja\n# source_offset: 1\n99999999999\n",
	"",
	"# domain: ja\n# source_offset: 0\n259 256 10 97 260 10 259 257 10 261 10 111\n", // a layout in chatVocab
	"# domain: ja\n# source_offset: 0\n259 256 10 97 260 10 259 257 10 9999\n",       // scored id outside it
}

// checkParseTF is the fuzz property: Parse never panics; an error names the
// file; a file that parses marshals and parses back to the same ids; Find
// over its ids never panics, and the spans of a layout it finds decode.
func checkParseTF(t *testing.T, v *gguf.Vocab, s string) {
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
	if l, err := Find(f.IDs, v); err == nil {
		for _, sp := range []Span{l.User, l.Header, l.Scored, l.Content} {
			if _, err := Text(f.IDs, v, sp); err != nil {
				t.Fatalf("layout %+v: span %v does not decode: %v", l, sp, err)
			}
		}
		IsTemplateToken(v, f.IDs[l.Scored.Start])
		ThinkNewline(f.IDs, v, l)
	}
	ids, err := f.MarshalIDs()
	if err != nil {
		t.Fatalf("MarshalIDs: %v", err)
	}
	if g, err := Parse("ids.txt", ids); err != nil || !slices.Equal(g.IDs, f.IDs) || g.HasOffset || g.Domain != "" {
		t.Fatalf("ids round trip: %+v, %v; want ids %v and nothing else", g, err, f.IDs)
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
	v := chatVocab(t, "<think>\n")
	for _, s := range parseSeeds {
		checkParseTF(t, v, s)
	}
	// the last two seeds: a layout, and the same with its scored id outside
	// the vocabulary
	for i, wantOK := range []bool{true, false} {
		s := parseSeeds[len(parseSeeds)-2+i]
		f, err := Parse("seed.txt", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Find(f.IDs, v); (err == nil) != wantOK {
			t.Errorf("Find(%v) error = %v; want ok = %v", f.IDs, err, wantOK)
		}
	}
}

func FuzzParse(f *testing.F) {
	v := chatVocab(f, "<think>\n")
	for _, s := range parseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkParseTF(t, v, s) })
}
