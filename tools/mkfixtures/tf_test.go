package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/tf"
)

// TestTFFiles builds a snapshot's TF files and vocabulary and reads them
// back with the engine's readers: the audit's layout (29 + 3 + 64), <think>
// at 248068 first in the scored span, the openings of the user turns.
func TestTFFiles(t *testing.T) {
	files, err := tfFiles("m5-v3")
	if err != nil {
		t.Fatal(err)
	}
	gf, err := gguf.Parse(tfVocabFile, files[tfVocabFile])
	if err != nil {
		t.Fatal(err)
	}
	v, err := gf.Vocab()
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := v.ID(tf.Think); id != 248068 || !v.IsSpecial(id) {
		t.Errorf("<think> = id %d (special %v); want 248068, special", id, v.IsSpecial(id))
	}
	openings := map[string]string{
		"ops_tools": ");\n df.erase();\n\nroot@f71c07bf8043:/app#",
		"chat_json": "{19}~?$$\n\nSolve this step by step",
		"ja":        "カイブ\n36\n\n質問: 5G医療救急車",
	}
	for domain, opening := range openings {
		f, err := tf.Parse(tfPath(domain), files[tfPath(domain)])
		if err != nil {
			t.Fatal(err)
		}
		l, err := tf.Find(f.IDs, v)
		if err != nil {
			t.Fatalf("%s: %v", domain, err)
		}
		if l.User.Len() != 29 || l.Header.Len() != 3 || l.Scored.Len() != 64 {
			t.Errorf("%s: segments %d + %d + %d; want 29 + 3 + 64", domain, l.User.Len(), l.Header.Len(), l.Scored.Len())
		}
		if f.IDs[l.Scored.Start] != 248068 || f.HasOffset || f.Domain != "" {
			t.Errorf("%s: first scored id %d, offset %v, domain %q; want 248068 and plain ids", domain, f.IDs[l.Scored.Start], f.HasOffset, f.Domain)
		}
		content, _ := tf.Text(f.IDs, v, l.Content)
		if !strings.HasPrefix(content, opening) {
			t.Errorf("%s: user turn %q; want it to open with %q", domain, content, opening)
		}
		_, found, newline := tf.ThinkNewline(f.IDs, v, l)
		if !found || newline != (domain != "ops_tools") {
			t.Errorf("%s: <think> found %v, newline %v", domain, found, newline)
		}
	}
	if len(files[tfNotes]) == 0 {
		t.Errorf("no notes")
	}
	if _, err := tfFiles("m6"); err == nil {
		t.Errorf("tfFiles(unknown snapshot) = nil error")
	}
}

// TestTFFilesDeterministic checks that both snapshots get byte-identical
// files.
func TestTFFilesDeterministic(t *testing.T) {
	a, err1 := tfFiles("m5-v3")
	b, err2 := tfFiles("m5")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if len(a) != 5 || len(a) != len(b) {
		t.Fatalf("tfFiles: %d and %d files; want 5 each", len(a), len(b))
	}
	for rel, x := range a {
		if !bytes.Equal(x, b[rel]) {
			t.Errorf("%s differs between snapshots", rel)
		}
	}
}

// TestManifest checks the snapshots' spec data against the documents the
// token files are cut from: each file the manifest (rules.tf in
// strataspec.json) lists has the domain, source and offset of its
// document, and every document is listed.
func TestManifest(t *testing.T) {
	for _, snap := range []string{"m5-v3", "m5"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", snap, "strataspec.json"))
		if err != nil {
			t.Fatal(err)
		}
		var spec struct {
			Rules struct {
				TF tf.Manifest `json:"tf"`
			} `json:"rules"`
		}
		if err := json.Unmarshal(data, &spec); err != nil {
			t.Fatal(err)
		}
		m := spec.Rules.TF
		if m.Vocab != tfVocabFile || len(m.Files) != len(tfDocs) {
			t.Fatalf("%s: manifest vocab %q, %d files; want %q, %d", snap, m.Vocab, len(m.Files), tfVocabFile, len(tfDocs))
		}
		for _, d := range tfDocs {
			found := false
			for _, e := range m.Files {
				if e.Path != tfPath(d.domain) {
					continue
				}
				found = true
				if e.Domain != d.domain || e.Source != d.source || e.SourceOffset == nil || *e.SourceOffset != int64(len(d.before)) {
					t.Errorf("%s: manifest entry %+v; want domain %q, source %q, offset %d", snap, e, d.domain, d.source, len(d.before))
				}
			}
			if !found {
				t.Errorf("%s: manifest lists no %s", snap, tfPath(d.domain))
			}
		}
	}
}
