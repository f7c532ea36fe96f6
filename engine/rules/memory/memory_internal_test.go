package memory

import (
	"strings"
	"testing"
)

// Rows from a bug: the claim's index was taken in strings.ToLower(line),
// whose byte length differs from line's when non-ASCII text precedes the
// claim ("İ" lowers to three bytes), so line[i:] sliced mid-rune or, with
// enough such runes, past the end.
func TestXNUClaimText(t *testing.T) {
	tests := []struct{ line, want string }{
		{"PLAN: XNU bills only the ~0.06 GB CPU-faulted p.R+p.emb slice.", "XNU bills only the ~0.06 GB CPU-faulted p.R+p.emb slice."},
		{"xnu BILLS only this; not that", "xnu BILLS only this"},
		{"İİİİİİİİİİİİİİİİİİİİ XNU bills only x", "XNU bills only x"},
		{"ÅÅ XNU bills only " + strings.Repeat("é", 100), "XNU bills only " + strings.Repeat("é", 65) + "…"},
		{"no claim here", ""},
	}
	for _, tt := range tests {
		if got := claimText(tt.line, "xnu bills only"); got != tt.want {
			t.Errorf("claimText(%q) = %q; want %q", tt.line, got, tt.want)
		}
	}
	for _, c := range []struct {
		s, sub string
		want   int
	}{{"abc XNU", "xnu", 4}, {"İxnu", "xnu", 2}, {"xn", "xnu", -1}, {"", "x", -1}} {
		if got := indexFold(c.s, c.sub); got != c.want {
			t.Errorf("indexFold(%q, %q) = %d; want %d", c.s, c.sub, got, c.want)
		}
	}
}
