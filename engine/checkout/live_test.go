package checkout

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestLive: "live" holds the live re-runs' settings. "bin" lists the
// folders a re-run finds a bare argv[0] in, kept in order; "tolerance" the
// drift a measured metric may show (DefaultTolerance when absent). A bin
// folder that is absolute or climbs out, and a tolerance that is no
// relative drift, are errors naming their line.
func TestLive(t *testing.T) {
	s, err := Parse(File, []byte(`{"live": {"bin": ["build/bin", "tools"], "tolerance": 0.4}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"build/bin", "tools"}; !slices.Equal(s.Live.Bin, want) {
		t.Errorf("Parse(live.bin [build/bin tools]).Live.Bin = %q; want %q", s.Live.Bin, want)
	}
	if got := s.Live.Tol(); got != 0.4 {
		t.Errorf("Parse(live.tolerance 0.4).Live.Tol() = %v; want 0.4", got)
	}
	s, err = Parse(File, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Live.Tol(); got != DefaultTolerance || len(s.Live.Bin) != 0 {
		t.Errorf("Parse({}).Live = %+v, Tol() %v; want no bin folder and %v", s.Live, got, DefaultTolerance)
	}
	for _, tt := range []struct {
		data string
		line int
		msg  string
	}{
		{"{\"live\": {\n\"bin\": [\n\"/usr/local/bin\"]}}", 3, "live.bin: folder"},
		{"{\"live\": {\"bin\": [\"build\",\n\"../llama.cpp/build/bin\"]}}", 2, "live.bin: folder"},
		{"{\n\"live\": {\"bin\": [\"\"]}}", 2, "live.bin: folder"},
		{"{\"live\": {\n\"tolerance\": -0.1}}", 2, "live.tolerance: -0.1 is not a relative drift"},
		{"{\"live\": {\n\"tolerance\": 15}}", 2, "live.tolerance: 15 is not a relative drift"},
		{"{\"live\": {\n\"tolerence\": 0.2}}", 2, `unknown key "tolerence"`},
	} {
		_, err := Parse(File, []byte(tt.data))
		var e *Error
		if !errors.As(err, &e) || e.Line != tt.line || !strings.Contains(e.Error(), tt.msg) {
			t.Errorf("Parse(%q) = %v; want an error at line %d containing %q", tt.data, err, tt.line, tt.msg)
		}
	}
}
