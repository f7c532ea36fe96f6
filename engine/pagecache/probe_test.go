package pagecache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodProbe = `{
  "format": "strataspec-mincore-probe/1",
  "probe": {"tool": "t", "page_size": 16384, "file_size": 268435456},
  "arena_fill": {"files": ["m.gguf.experts"], "io": "pread"},
  "helpers": [
    {"name": "evict_file_cache", "op": "evict", "mechanism": "madvise",
     "targets": ["m.gguf"], "returned": true, "before": 1.00, "after": 1.00}
  ]
}`

func TestParseProbe(t *testing.T) {
	p, err := ParseProbe("p.json", []byte(goodProbe))
	if err != nil {
		t.Fatal(err)
	}
	h := p.Helpers[0]
	if p.PageSize != 16384 || p.FileSize != 1<<28 || h.Op != OpEvict || !h.Returned ||
		h.Before != 1 || h.AfterRaw != "1.00" || h.Line != 6 || h.Path != "$.helpers[0]" || h.Targets[0] != "m.gguf" {
		t.Errorf("ParseProbe(good) = %+v %+v", p, h)
	}
}

func TestParseProbeErrors(t *testing.T) {
	tests := []struct {
		old, new string // edit of goodProbe
		want     string
	}{
		{`"strataspec-mincore-probe/1"`, `"v0"`, `p.json: $.format: "v0"`},
		{`"page_size": 16384`, `"page_size": -1`, "p.json: $.probe.page_size: -1; want a positive integer"},
		{`"page_size": 16384`, `"page_size": 1.5`, "p.json: $.probe.page_size"},
		{`"io": "pread"`, `"io": "pread", "extra": 1`, "p.json: $.arena_fill.extra: unknown field"},
		{`"files": ["m.gguf.experts"], `, ``, "p.json: $.arena_fill.files: missing"},
		{`"after": 1.00`, `"after": 1.5`, "p.json: $.helpers[0].after: 1.5; want a fraction from 0 to 1"},
		{`"after": 1.00`, `"after": "1.00"`, "p.json: $.helpers[0].after: want a number"},
		{`"op": "evict"`, `"op": "drop"`, `p.json: $.helpers[0].op: "drop"`},
		{`"returned": true`, `"returned": "True"`, "p.json: $.helpers[0].returned: want true or false"},
		{`"targets": ["m.gguf"]`, `"targets": []`, "p.json: $.helpers[0].targets: want a non-empty array"},
		{`"targets": ["m.gguf"]`, `"targets": [""]`, "p.json: $.helpers[0].targets[0]: empty"},
		{`"helpers": [`, `"helpers": {"x": [`, "p.json"},
		{"]\n}", "]\n} {}", "p.json: $: trailing data"},
		{`"returned": true,`, `"returned": true`, "p.json:7: invalid character"}, // syntax errors carry the line
	}
	for _, tt := range tests {
		in := strings.Replace(goodProbe, tt.old, tt.new, 1)
		if in == goodProbe {
			t.Fatalf("edit %q did not apply", tt.old)
		}
		_, err := ParseProbe("p.json", []byte(in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseProbe(%q → %q) = %v; want error containing %q", tt.old, tt.new, err, tt.want)
		}
	}
}

// TestProbeFixtures parses the snapshots' probe records.
func TestProbeFixtures(t *testing.T) {
	for _, snap := range []string{"m5-v3", "m5"} {
		path := filepath.Join("..", "..", "fixtures", snap, "results", "mincore_probe.json")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParseProbe(path, data)
		if err != nil {
			t.Fatal(err)
		}
		if p.PageSize != 16384 || p.FileSize != 256<<20 || len(p.Helpers) != 2 {
			t.Errorf("%s: page size %d, file size %d, %d helpers; want the audit's 16 KiB pages, 256 MiB file, evict and warm",
				path, p.PageSize, p.FileSize, len(p.Helpers))
		}
	}
}

// FuzzParseProbe checks that no input makes ParseProbe panic, and that
// every error names the file.
func FuzzParseProbe(f *testing.F) {
	f.Add([]byte(goodProbe))
	for _, snap := range []string{"m5-v3", "m5"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", snap, "results", "mincore_probe.json")); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProbe("p.json", data)
		switch {
		case err != nil && !strings.HasPrefix(err.Error(), "p.json:"):
			t.Errorf("ParseProbe error %q does not name the file", err)
		case err == nil && (len(p.Helpers) == 0 && p.FillFiles == nil):
			t.Errorf("ParseProbe(%q) accepted a record without helpers or fill files", data)
		}
	})
}
