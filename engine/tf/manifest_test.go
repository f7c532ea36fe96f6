package tf

import (
	"strings"
	"testing"
)

func TestReadManifest(t *testing.T) {
	doc := `# the runner's manifest
vocab = "data/v.tsv"

[[file]]
path = "a.txt"
domain = "ja"
source = "a page"
source_offset = 48

[[file]]
path = "b.txt"
`
	vocab, es, err := ReadManifest("m.toml", []byte(doc))
	if err != nil {
		t.Fatalf("ReadManifest = %v", err)
	}
	if vocab != "data/v.tsv" || len(es) != 2 {
		t.Fatalf("ReadManifest = %q, %+v; want data/v.tsv and 2 entries", vocab, es)
	}
	if e := es[0]; e.Path != "a.txt" || e.Domain != "ja" || e.Source != "a page" || e.SourceOffset == nil || *e.SourceOffset != 48 {
		t.Errorf("entry 0 = %+v; want a.txt, ja, a page, offset 48", e)
	}
	if e := es[1]; e.Path != "b.txt" || e.Domain != "" || e.SourceOffset != nil {
		t.Errorf("entry 1 = %+v; want b.txt with no domain and no offset", e)
	}
}

func TestReadManifestErrors(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"[[file]]\npath = \"a\"\nsource_offset = \"48\"\n", `m.toml:3: [[file]]: source_offset: want integer, found string`},
		{"[[file]]\npath = \"a\"\noffset = 48\n", `m.toml:3: [[file]]: unknown key "offset" (known: path, domain, source, source_offset)`},
		{"[[file]]\ndomain = \"ja\"\n", `m.toml:1: [[file]] #1 has no path`},
		{"[[file]]\npath = \"a\"\nsource_offset = -1\n", `m.toml:3: [[file]]: source_offset -1 is below 0`},
		{"vocab = 1\n[[file]]\npath = \"a\"\n", `m.toml:1: vocab: want string, found integer`},
		{"vocabulary = \"v\"\n[[file]]\npath = \"a\"\n", `m.toml:1: unknown key "vocabulary"`},
		{"[files]\npath = \"a\"\n", `m.toml:1: unknown table "files"`},
		{"[[file]]\npath = \"a\"\n[other]\n", `m.toml:3: unknown table "other"`},
		{"vocab = \"v\"\n", `m.toml: no [[file]] table`},
		{"[[file]]\npath = {x = 1}\n", `m.toml:2:8: inline tables are not read`},
		{"[[file]]\npath = \"a\"\n[[file.x]]\n", `m.toml:3: [[file]]: unknown key "x"`},
	} {
		_, _, err := ReadManifest("m.toml", []byte(tt.doc))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ReadManifest(%q) = %v; want an error starting %q", tt.doc, err, tt.want)
		}
	}
}
