package finding

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSeverityText(t *testing.T) {
	for _, s := range []Severity{Pass, Warn, Fail} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%d) = %v", s, err)
		}
		var back Severity
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", b, back, err, s)
		}
	}
	if _, err := Severity(7).MarshalText(); err == nil {
		t.Errorf("MarshalText(7) = nil error; want an error")
	}
	var s Severity
	if err := s.UnmarshalText([]byte("error")); err == nil {
		t.Errorf("UnmarshalText(%q) = nil error; want an error", "error")
	}
}

func TestFindingJSON(t *testing.T) {
	f := Finding{Rule: "plan.unsourced", ID: "F11", Severity: Fail, File: "PLAN.md", Line: 578, Message: "m"}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"rule":"plan.unsourced","id":"F11","severity":"fail","file":"PLAN.md","line":578,"quote":"","raw":"","source":"","message":"m"}`
	if string(b) != want {
		t.Errorf("json.Marshal(finding) = %s; want %s", b, want)
	}
	if got, want := f.String(), "PLAN.md:578: fail plan.unsourced F11: m"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

func TestZeroSeverityInvalid(t *testing.T) {
	var f Finding
	if f.Severity.Valid() {
		t.Fatalf("zero Severity.Valid() = true; want false")
	}
	if _, err := f.Severity.MarshalText(); err == nil {
		t.Errorf("zero Severity.MarshalText() = nil error; want an error")
	}
	var s Severity
	if err := s.UnmarshalText([]byte("")); err == nil {
		t.Errorf("UnmarshalText(%q) = nil error; want an error", "")
	}
}

func TestClip(t *testing.T) {
	for _, s := range []string{strings.Repeat("é", 100), strings.Repeat("x", 121)} {
		got := Clip(s)
		if !strings.HasSuffix(got, "…") || !utf8.ValidString(got) || len(got) > 124 {
			t.Errorf("Clip(%q) = %q; want at most 120 bytes at a character boundary and …", s, got)
		}
	}
	if got := Clip("short"); got != "short" {
		t.Errorf("Clip(%q) = %q; want it unchanged", "short", got)
	}
}
