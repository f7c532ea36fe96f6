package gguf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedVocabPath returns the path of a real vocabulary in ../shared/vocab
// beside the module root, or an error saying why it is not there.
func sharedVocabPath(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
	path := filepath.Join(dir, "..", "shared", "vocab", name)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("real vocabulary %s absent (%v)", path, err)
	}
	return path, nil
}

// sharedVocab opens a real vocabulary from ../shared/vocab beside the module
// root, or skips the test saying why.
func sharedVocab(t *testing.T, name string) (*File, *Vocab) {
	t.Helper()
	path, err := sharedVocabPath(name)
	if err != nil {
		t.Skipf("%v: skipping", err)
	}
	f, err := open(path)
	if err != nil {
		t.Fatalf("open(%s): %v", path, err)
	}
	v, err := f.Vocab()
	if err != nil {
		t.Fatalf("Vocab(%s): %v", path, err)
	}
	return f, v
}

// ids looks each token text up in the vocabulary.
func ids(t *testing.T, v *Vocab, texts ...string) []int32 {
	t.Helper()
	out := make([]int32, len(texts))
	for i, s := range texts {
		id, ok := v.ID(s)
		if !ok {
			t.Fatalf("token %q not in vocabulary", s)
		}
		out[i] = id
	}
	return out
}

func TestGPT2Vocab(t *testing.T) {
	f, v := sharedVocab(t, "ggml-vocab-gpt-2.gguf")
	if f.Version != 3 || len(f.Tensors) != 0 {
		t.Errorf("version %d, %d tensors; want a version 3 vocab-only file", f.Version, len(f.Tensors))
	}
	if v.Model != ModelBPE || v.Len() != 50257 {
		t.Errorf("model %q with %d tokens; want gpt2 with 50257", v.Model, v.Len())
	}
	// The one control token is <|endoftext|>, and it is both bos and eos.
	var control []string
	for id := range v.Tokens {
		if v.Type(int32(id)) == TokenControl {
			control = append(control, v.Tokens[id])
		}
	}
	if len(control) != 1 || control[0] != "<|endoftext|>" {
		t.Errorf("control tokens = %q; want [<|endoftext|>]", control)
	}
	if v.BOS != v.EOS || v.Tokens[v.BOS] != "<|endoftext|>" {
		t.Errorf("bos %d eos %d; want both <|endoftext|>", v.BOS, v.EOS)
	}
	tests := []struct {
		tokens []string
		want   string
	}{
		{[]string{"Hello", ",", "Ġworld", "!"}, "Hello, world!"},
		{[]string{"Ċ", "Ġ", "Ġ", "Ġ", "Ġdf", ".", "era", "se", "();", "Ċ"}, "\n    df.erase();\n"},
		{[]string{"c", "af", "Ã©"}, "café"},                    // é is bytes C3 A9
		{[]string{"ãĤ", "«"}, "カ"},                             // カ is bytes E3 82 AB
		{[]string{"<|endoftext|>", "The"}, "<|endoftext|>The"}, // control tokens render as text
	}
	for _, tt := range tests {
		got, err := v.Decode(ids(t, v, tt.tokens...))
		if err != nil || got != tt.want {
			t.Errorf("Decode(%q) = %q, %v; want %q", tt.tokens, got, err, tt.want)
		}
	}
	// Well-known ids of the GPT-2 vocabulary.
	if got, _ := v.Decode([]int32{15496, 995}); got != "Hello world" {
		t.Errorf("Decode([15496 995]) = %q; want %q", got, "Hello world")
	}
	roundTrip(t, v, "Hello, world!", "root@f71c07bf8043:/app#", "カイブ\n36\n\n質問: 5G医療救急車", " \t\x00\x7f")
	if _, err := v.Decode([]int32{50257}); err == nil {
		t.Errorf("Decode([50257]) = nil error; want out of range")
	}
}

func TestPhi3Vocab(t *testing.T) {
	_, v := sharedVocab(t, "ggml-vocab-phi-3.gguf")
	if v.Model != ModelSentencePie || v.Len() != 32064 {
		t.Errorf("model %q with %d tokens; want llama with 32064", v.Model, v.Len())
	}
	if v.Tokens[v.BOS] != "<s>" || v.Tokens[v.EOS] != "<|endoftext|>" {
		t.Errorf("bos %q eos %q; want <s>, <|endoftext|>", v.Tokens[v.BOS], v.Tokens[v.EOS])
	}
	for _, tok := range []string{"<|user|>", "<|assistant|>", "<|end|>", "<|system|>", "<s>"} {
		if id := ids(t, v, tok)[0]; v.Type(id) != TokenControl || !v.IsSpecial(id) {
			t.Errorf("type of %q = %v; want control", tok, v.Type(id))
		}
	}
	if id := ids(t, v, "<0x0A>")[0]; v.Type(id) != TokenByte {
		t.Errorf("type of <0x0A> = %v; want byte", v.Type(id))
	}
	if id := ids(t, v, "▁Hello")[0]; v.Type(id) != TokenNormal || v.IsSpecial(id) {
		t.Errorf("type of ▁Hello = %v; want normal", v.Type(id))
	}
	for _, marker := range []string{"<|user|>", "<|assistant|>", "<|end|>"} {
		if !strings.Contains(v.ChatTemplate, marker) {
			t.Errorf("chat template lacks %q: %q", marker, v.ChatTemplate)
		}
	}
	tests := []struct {
		tokens []string
		want   string
	}{
		{[]string{"▁Hello", "▁world"}, " Hello world"},
		{[]string{"<|user|>", "<0x0A>", "Hi", "<|end|>"}, "<|user|>\nHi<|end|>"},
		{[]string{"<0xE3>", "<0x82>", "<0xAB>"}, "カ"},
	}
	for _, tt := range tests {
		got, err := v.Decode(ids(t, v, tt.tokens...))
		if err != nil || got != tt.want {
			t.Errorf("Decode(%q) = %q, %v; want %q", tt.tokens, got, err, tt.want)
		}
	}
	for _, s := range []string{"<|user|>\nSolve this step by step<|end|>\n<|assistant|>\n", " カイブ 質問: 5G医療救急車 🚑"} {
		enc, err := v.Encode(s)
		if err != nil {
			t.Errorf("Encode(%q): %v", s, err)
			continue
		}
		if got, err := v.Decode(enc); err != nil || got != s {
			t.Errorf("Decode(Encode(%q)) = %q, %v", s, got, err)
		}
		if strings.HasPrefix(s, "<|user|>") && enc[0] != ids(t, v, "<|user|>")[0] {
			t.Errorf("Encode(%q)[0] = %d; want the <|user|> control token", s, enc[0])
		}
	}
}

func TestVocabErrors(t *testing.T) {
	tests := []struct {
		name string
		kv   []KV
		want string
	}{
		{"no model", []KV{{KeyTokens, []string{"a"}}}, "no string tokenizer.ggml.model"},
		{"bert", []KV{{KeyModel, "bert"}, {KeyTokens, []string{"a"}}}, `tokenizer model "bert" not supported`},
		{"no tokens", []KV{{KeyModel, "gpt2"}}, "no string array tokenizer.ggml.tokens"},
		{"short types", []KV{{KeyModel, "gpt2"}, {KeyTokens, []string{"a", "b"}}, {KeyTokenType, []int32{1}}}, "not an integer array of 2"},
		{"eos out of range", []KV{{KeyModel, "gpt2"}, {KeyTokens, []string{"a"}}, {KeyEOS, uint32(1)}}, "eos_token_id = 1 is not a token id"},
	}
	for _, tt := range tests {
		f, err := Parse("v.gguf", mustEncode(t, 3, tt.kv, nil))
		if err != nil {
			t.Fatalf("%s: Parse: %v", tt.name, err)
		}
		if _, err := f.Vocab(); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "v.gguf") {
			t.Errorf("%s: Vocab() error = %v; want v.gguf … %s", tt.name, err, tt.want)
		}
	}
	// A malformed SentencePiece byte token is an error when decoded.
	f, _ := Parse("v.gguf", mustEncode(t, 3, []KV{{KeyModel, "llama"}, {KeyTokens, []string{"<0xZZ>"}}, {KeyTokenType, []int32{int32(TokenByte)}}}, nil))
	v, err := f.Vocab()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Decode([]int32{0}); err == nil {
		t.Errorf("Decode(<0xZZ> byte token) = nil error; want an error")
	}
	if _, err := v.Encode("x"); err == nil {
		t.Errorf("Encode(x) with no token for x = nil error; want an error")
	}
}

func TestByteMapping(t *testing.T) {
	// Every byte maps to a distinct rune and back; printable ASCII maps to itself.
	seen := map[rune]bool{}
	for b := 0; b < 256; b++ {
		r := byteToUnicode[b]
		if seen[r] || unicodeToByte[r] != byte(b) {
			t.Fatalf("byte %#x ↔ %q not a bijection", b, r)
		}
		seen[r] = true
	}
	for in, want := range map[byte]rune{'A': 'A', ' ': 'Ġ', '\n': 'Ċ', '\t': 'ĉ', 0: 'Ā', 0xAD: 'Ń'} {
		if got := byteToUnicode[in]; got != want {
			t.Errorf("byteToUnicode[%#x] = %q; want %q", in, got, want)
		}
	}
}

// roundTrip checks that each string decodes back from its encoding.
func roundTrip(t *testing.T, v *Vocab, strs ...string) {
	t.Helper()
	for _, s := range strs {
		enc, err := v.Encode(s)
		if err != nil {
			t.Errorf("Encode(%q): %v", s, err)
			continue
		}
		if got, err := v.Decode(enc); err != nil || got != s {
			t.Errorf("Decode(Encode(%q)) = %q, %v; want %q", s, got, err, s)
		}
	}
}
