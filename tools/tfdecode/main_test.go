package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	fixtureVocab = filepath.Join("..", "..", "fixtures", "m5", "data", "vocab-synthetic-chatml.gguf")
	fixtureTF    = filepath.Join("..", "..", "fixtures", "m5", "data", "m5_val_prompts", "eval_tf_96tok_ops_tools.txt")
)

func TestDecodeFixture(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"-vocab", fixtureVocab, "-ids", fixtureTF})
	if code != 0 {
		t.Fatalf("run = %d; stderr %s", code, errb.String())
	}
	for _, want := range []string{
		"eval_tf_96tok_ops_tools.txt: 96 ids (no source offset in the file; a checkout's manifest may give it)",
		`user   ids  0–28 (29): "<|im_start|>user\n);\n df.erase();\n\nroot@f71c07bf8043:/app#<|im_end|>\n"`,
		`header ids 29–31 ( 3): "<|im_start|>assistant\n"`,
		`scored ids 32–95 (64): "<think>The fix looks correct`,
		`first scored token: id 248068 "<think>" (user-defined), a template token`,
		"[248045 ", // -ids
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	dir := t.TempDir()
	noLayout := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(noLayout, []byte("# domain: x\n# source_offset: 0\n248045 248046\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badIDs := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(badIDs, []byte("# domain: x\n# source_offset: 0\n1 two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args        []string
		code        int
		out, stderr string
	}{
		{nil, 2, "", "usage: tfdecode"},
		{[]string{fixtureTF}, 2, "", "usage: tfdecode"},
		{[]string{"-vocab", fixtureVocab}, 2, "", "usage: tfdecode"},
		{[]string{"-bogus"}, 2, "", "flag provided but not defined"},
		{[]string{"-vocab", filepath.Join(dir, "none.gguf"), fixtureTF}, 2, "", "none.gguf"},
		{[]string{"-vocab", fixtureTF, fixtureTF}, 2, "", "not a GGUF file"},
		{[]string{"-vocab", fixtureVocab, badIDs}, 2, "", `bad.txt:3: token id "two"`},
		{[]string{"-vocab", fixtureVocab, noLayout}, 1, "no TF layout: tf: ids[1:] do not read", ""},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(&out, &errb, tt.args)
		if code != tt.code || !strings.Contains(out.String(), tt.out) || !strings.Contains(errb.String(), tt.stderr) {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, out.String(), errb.String(), tt.code, tt.out, tt.stderr)
		}
	}
}

// TestDecodeTSVVocab decodes m5-shapes' token file with its TSV vocabulary
// subset and m5-v3's same file with the GGUF vocabulary the subset was
// written from: the decoded turns must be the same.
func TestDecodeTSVVocab(t *testing.T) {
	fix := filepath.Join("..", "..", "fixtures")
	decoded := func(vocab, ids string) string {
		var out, errb bytes.Buffer
		if code := run(&out, &errb, []string{"-vocab", vocab, ids}); code != 0 {
			t.Fatalf("run(-vocab %s %s) = %d; stderr %s", vocab, ids, code, errb.String())
		}
		_, rest, _ := strings.Cut(out.String(), "\n") // the first line names the file
		return rest
	}
	const tfFile = "data/m5_val_prompts/eval_tf_96tok_ja.txt"
	tsv := decoded(filepath.Join(fix, "m5-shapes", "data", "vocab-subset.tsv"), filepath.Join(fix, "m5-shapes", filepath.FromSlash(tfFile)))
	gguf := decoded(filepath.Join(fix, "m5-v3", "data", "vocab-synthetic-chatml.gguf"), filepath.Join(fix, "m5-v3", filepath.FromSlash(tfFile)))
	if tsv != gguf || !strings.Contains(tsv, "scored ids 32–95") {
		t.Errorf("decoded with the TSV subset:\n%s\nwith the GGUF:\n%s\nwant the same layout and text", tsv, gguf)
	}
}
