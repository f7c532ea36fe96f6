package live

import (
	"strings"
	"testing"
)

func TestTailWriter(t *testing.T) {
	for _, tt := range []struct {
		n      int
		writes []string
		want   string
		lines  int
	}{
		{0, []string{"a\nb\n", "c"}, "a\nb\nc", 2},
		{2, []string{"a\nb\nc\nd\n"}, "c\nd\n", 4},
		{2, []string{"a\nb", "\nc", "\nd\n"}, "c\nd\n", 4},
		{3, []string{"x\n", "y\n"}, "x\ny\n", 2},
		{1, []string{"a\n", "par", "tial"}, "a\npartial", 1},
	} {
		w := newTailWriter(tt.n, nil)
		for _, s := range tt.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", s, n, err)
			}
		}
		if got := w.String(); got != tt.want {
			t.Errorf("tailWriter(%d) after %q = %q; want %q", tt.n, tt.writes, got, tt.want)
		}
		if lines, _ := w.state(); lines != tt.lines {
			t.Errorf("tailWriter(%d) after %q counted %d lines; want %d", tt.n, tt.writes, lines, tt.lines)
		}
	}
}

func TestTailWriterLongLine(t *testing.T) {
	w := newTailWriter(5, nil)
	bar := strings.Repeat("\r[=====>    ] 50%", 20000) // no newline: a redrawn progress bar
	w.Write([]byte(bar))
	w.Write([]byte(" done\n"))
	got := w.String()
	if len(got) > maxPartial+len(" done\n") || !strings.HasSuffix(got, "50% done\n") {
		t.Errorf("tailWriter kept %d bytes of an unbroken %d-byte line ending %q; want at most %d", len(got), len(bar), got[max(0, len(got)-12):], maxPartial+6)
	}
}
