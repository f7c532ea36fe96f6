package gguf

import (
	"os"
	"testing"
)

// BenchmarkOpenVocab reads the header and vocabulary of the real GPT-2 vocab
// file (1.7 MB: 50,257 tokens, 50,000 merges).
func BenchmarkOpenVocab(b *testing.B) {
	path, err := sharedVocabPath("ggml-vocab-gpt-2.gguf")
	if err != nil {
		b.Skipf("%v: skipping", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		f, err := open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Vocab(); err != nil {
			b.Fatal(err)
		}
	}
}
