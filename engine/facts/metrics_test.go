package facts

import (
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
)

// TestParseRunDeclaredFormat: a run of a program the spec maps to a
// declared format is read with the format's patterns.
func TestParseRunDeclaredFormat(t *testing.T) {
	s, err := checkout.Parse(checkout.File, []byte(`{"programs": [{"match": "eng", "parser": "eng"}],
"formats": {"eng": [{"pattern": "^decode: (?P<n>[0-9]+) tok in (?P<ms>[0-9.,]+) ms$",
  "metrics": {"n": {"name": "decode_tokens"}, "ms": {"name": "decode_ms", "unit": "ms"}}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	parser, _ := s.ParserFor("./eng")
	r := &archive.Run{Name: "r", Source: "t", Cmd: []string{"./eng"}, Parser: parser, Tail: "hello\ndecode: 64 tok in 6,729.76 ms\n"}
	ms := ParseRun(s, r)
	if len(ms.Errors) > 0 {
		t.Fatalf("ParseRun: errors %v", ms.Errors)
	}
	got, ok := ms.Get("decode_ms")
	if !ok || got.Value() != 6729.76 || got.Unit != "ms" || got.Line != 2 {
		t.Errorf("ParseRun(decode line).Get(decode_ms) = %+v, %v; want 6729.76 ms at line 2", got, ok)
	}
}
