package checkout

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestBin: "bin" lists the folders a live re-run finds a bare argv[0] in,
// kept in order; a folder that is absolute or climbs out is an error naming
// its line, as every path of the spec file.
func TestBin(t *testing.T) {
	s, err := Parse(File, []byte(`{"bin": ["build/bin", "tools"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"build/bin", "tools"}; !slices.Equal(s.Bin, want) {
		t.Errorf(`Parse({"bin": ["build/bin", "tools"]}).Bin = %q; want %q`, s.Bin, want)
	}
	for _, tt := range []struct {
		data string
		line int
	}{
		{"{\n\"bin\": [\n\"/usr/local/bin\"]}", 3},
		{"{\n\"bin\": [\"build\",\n\"../llama.cpp/build/bin\"]}", 3},
		{"{\n\"bin\": [\"\"]}", 2},
	} {
		_, err := Parse(File, []byte(tt.data))
		var e *Error
		if !errors.As(err, &e) || e.Line != tt.line || !strings.Contains(e.Msg, "bin: folder") {
			t.Errorf("Parse(%q) = %v; want an error at line %d naming the bin folder", tt.data, err, tt.line)
		}
	}
}
