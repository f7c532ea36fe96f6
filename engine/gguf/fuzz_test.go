package gguf

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seedCorpus is small files made by the writer and their truncations.
func seedCorpus(t testing.TB) [][]byte {
	vocab := []KV{
		{KeyModel, ModelBPE},
		{KeyTokens, []string{"a", "b", "<|im_start|>"}},
		{KeyTokenType, []int32{1, 1, 3}},
		{KeyBOS, uint32(2)},
		{KeyChatTemplate, "{{ x }}"},
	}
	files := [][]byte{
		mustEncode(t, 3, sampleKV, sampleTensors),
		mustEncode(t, 2, sampleKV, nil),
		mustEncode(t, 3, vocab, nil),
		mustEncode(t, 3, nil, nil),
	}
	var out [][]byte
	for _, f := range files {
		out = append(out, f)
		for _, n := range []int{0, 4, 8, 23, 24, len(f) / 2, len(f) - 1} {
			if n < len(f) {
				out = append(out, f[:n])
			}
		}
	}
	return out
}

// checkParse is the fuzz property: Parse never panics; a failure is a
// FormatError inside the file; a success re-encodes to the same metadata.
func checkParse(t *testing.T, data []byte) {
	f, err := Parse("fuzz.gguf", data)
	if err != nil {
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Offset < 0 || fe.Offset > int64(len(data)) {
			t.Fatalf("Parse error %v (%T) is not a FormatError within the %d bytes", err, err, len(data))
		}
		return
	}
	if v, err := f.Vocab(); err == nil {
		// a vocabulary that reads must decode every one of its ids, or
		// refuse one with an error, never panic
		for id := range v.Len() {
			_, _ = v.Piece(int32(id))
		}
	}
	again, err := Encode(f.Version, f.KV, nil)
	if err != nil {
		t.Fatalf("Encode of parsed metadata: %v", err)
	}
	g, err := Parse("again.gguf", again)
	if err != nil {
		t.Fatalf("Parse(Encode(parsed)): %v", err)
	}
	if !cmp.Equal(f.KV, g.KV, cmp.Comparer(func(a, b float32) bool { return a == b || (a != a && b != b) }),
		cmp.Comparer(func(a, b float64) bool { return a == b || (a != a && b != b) })) {
		t.Fatalf("metadata changed through Encode/Parse")
	}
}

// TestSeedCorpus runs the fuzz property over the seed corpus in normal tests.
func TestSeedCorpus(t *testing.T) {
	for _, data := range seedCorpus(t) {
		checkParse(t, data)
	}
}

func FuzzParse(f *testing.F) {
	for _, data := range seedCorpus(f) {
		f.Add(data)
	}
	f.Fuzz(checkParse)
}
