package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/tf"
)

// TestWriteTF writes a snapshot's TF files and vocabulary and reads them back
// with the engine's readers: the audit's layout (29 + 3 + 64), <think> at
// 248068 first in the scored span, the openings of the user turns.
func TestWriteTF(t *testing.T) {
	root := t.TempDir()
	if err := writeTF(root, "m5-v3"); err != nil {
		t.Fatal(err)
	}
	gf, err := gguf.Open(filepath.Join(root, tfVocabFile))
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
		f, err := tf.Read(filepath.Join(root, tfDir, "eval_tf_96tok_"+domain+".txt"))
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
		if f.IDs[l.Scored.Start] != 248068 || f.SourceOffset <= 0 || f.Domain != domain {
			t.Errorf("%s: first scored id %d, offset %d, domain %q", domain, f.IDs[l.Scored.Start], f.SourceOffset, f.Domain)
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
	if _, err := os.Stat(filepath.Join(root, tfNotes)); err != nil {
		t.Errorf("notes: %v", err)
	}
	if err := writeTF(root, "m6"); err == nil {
		t.Errorf("writeTF(unknown snapshot) = nil error")
	}
}

// TestWriteTFDeterministic checks that both snapshots get byte-identical files.
func TestWriteTFDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := writeTF(a, "m5-v3"); err != nil {
		t.Fatal(err)
	}
	if err := writeTF(b, "m5"); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{tfVocabFile, tfDir + "/eval_tf_96tok_ja.txt", tfDir + "/eval_tf_96tok_ops_tools.txt", tfNotes} {
		x, err1 := os.ReadFile(filepath.Join(a, rel))
		y, err2 := os.ReadFile(filepath.Join(b, rel))
		if err1 != nil || err2 != nil || string(x) != string(y) {
			t.Errorf("%s differs between snapshots (%v, %v)", rel, err1, err2)
		}
	}
}
