package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/strataspec/strataspec/engine/finding"
)

// controls are the runes no report format may carry raw: C0 controls but
// the line ends a format writes itself, DEL, C1 controls (NEL among them),
// the line and paragraph separators and the bidirectional controls.
var controls = "\x00\x07\x1b\x7f\u0085\u009b\u2028\u2029\u202a\u202e\u2066\u2069\u200e\u200f\u061c"

// rawControl returns the first rune of s that is a control of controls or
// invalid UTF-8, and its offset; -1 when there is none.
func rawControl(s string) (rune, int) {
	for i, r := range s {
		if r == utf8.RuneError || (strings.ContainsRune(controls, r) && r != '\n') {
			return r, i
		}
	}
	return 0, -1
}

// TestNoRawControls: a finding whose file, message, quote, raw values,
// source, fix and skip reason hold every control rune is written by every
// format with none of them raw, and the structured formats still decode.
func TestNoRawControls(t *testing.T) {
	evil := "a" + controls + "\xffz"
	fs := []finding.Finding{
		{Rule: "plan.unsourced", ID: "F11", Severity: finding.Fail, File: "PLAN" + evil + ".md", Line: 3,
			Quote: "1.5 ms" + evil, Raw: "1.6 ms" + evil, Source: "run" + evil, Message: "unsourced" + evil, Fix: "bind it" + evil},
		{Rule: "tf", ID: "F34", Severity: finding.Warn, File: "data/" + evil, Line: 7, Message: "warned" + evil},
		{Rule: "parity", Severity: finding.Pass, Message: "holds" + evil},
	}
	rules := []RuleInfo{
		{Name: "plan.unsourced", Applied: true}, {Name: "tf", Applied: true}, {Name: "parity", Applied: true},
		{Name: "kld", Reason: "skipped" + evil},
	}
	r := NewWithRules("root"+evil, rules, fs)
	for _, format := range Formats() {
		var buf bytes.Buffer
		if err := r.WriteOptions(&buf, format, Options{PathPrefix: "repo"}); err != nil {
			t.Fatalf("WriteOptions(%q): %v", format, err)
		}
		out := buf.String()
		if c, at := rawControl(out); at >= 0 {
			t.Errorf("format %q: raw %U at byte %d: %q", format, c, at, out[max(0, at-40):min(len(out), at+40)])
		}
		if !strings.Contains(out, "1.5 ms") {
			t.Errorf("format %q: the failing finding's quote is missing", format)
		}
	}
}

// TestJSONSafeRoundTrip: the JSON report escapes the controls as JSON
// escapes, so it decodes to the very values the findings held.
func TestJSONSafeRoundTrip(t *testing.T) {
	evil := "a" + controls + "z"
	f := finding.Finding{Rule: "plan.unsourced", Severity: finding.Fail, File: "P" + evil, Line: 1, Quote: evil, Message: "m" + evil}
	r := NewWithRules("x", []RuleInfo{{Name: "plan.unsourced", Applied: true}}, []finding.Finding{f})
	var buf bytes.Buffer
	if err := r.WriteOptions(&buf, "json", Options{}); err != nil {
		t.Fatal(err)
	}
	var got struct{ Findings []finding.Finding }
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("json report does not decode: %v", err)
	}
	if len(got.Findings) != 1 {
		t.Fatalf("json report: %d findings; want 1", len(got.Findings))
	}
	g := got.Findings[0]
	if diff := cmp.Diff([]string{f.File, f.Quote, f.Message}, []string{g.File, g.Quote, g.Message}); diff != "" {
		t.Errorf("json report round trip (-want +got):\n%s", diff)
	}
}

func TestJSONSafe(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a": "plain"}`, `{"a": "plain"}`},
		{"{\"a\": \"x\u202ey\"}", `{"a": "x\u202ey"}`},
		{"{\"a\": \"\x7f\u0085\"}", `{"a": "\u007f\u0085"}`},
		{"{\"a\": \"é…\"}", "{\"a\": \"é…\"}"},
	} {
		if got := string(jsonSafe([]byte(tt.in))); got != tt.want {
			t.Errorf("jsonSafe(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestSafeWriterSplitRune: a rune cut between two writes is escaped as
// if written whole.
func TestSafeWriterSplitRune(t *testing.T) {
	in := []byte("\"a\u202eb\u0085c\"")
	for cut := range len(in) + 1 {
		var buf bytes.Buffer
		sw := &safeWriter{w: &buf}
		if _, err := sw.Write(in[:cut]); err != nil {
			t.Fatal(err)
		}
		if _, err := sw.Write(in[cut:]); err != nil {
			t.Fatal(err)
		}
		if err := sw.flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := buf.String(), `"a\u202eb\u0085c"`; got != want {
			t.Errorf("writes cut at byte %d = %q; want %q", cut, got, want)
		}
	}
}
