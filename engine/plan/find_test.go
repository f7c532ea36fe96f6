package plan

import (
	"strings"
	"testing"
)

var findTests = []struct {
	plan   string
	line   int    // the line found, 0 for none
	clause string // Found.Clause(80)
}{
	{"# P\n\nXNU bills only the ~0.06 GB CPU-faulted p.R+p.emb slice. Then more.\n", 3, "XNU bills only the ~0.06 GB CPU-faulted p.R+p.emb slice"},
	{"# P\n\nxnu BILLS only this; not that\n", 3, "xnu BILLS only this"},
	{"# P\n\n(as XNU bills only x) and y\n", 3, "XNU bills only x"},
	{"# P\n\n**XNU** bills _only_ the slice\n", 3, "XNU bills only the slice"}, // markup is not text
	{"# P\n\nXNU&#32;bills only x\n", 3, "XNU bills only x"},                   // a character reference renders
	{"# P\n\n<!-- XNU bills only -->\ntext\n", 0, ""},                          // a comment renders nothing
	{"# P\n\n```\nXNU bills only\n```\n", 0, ""},                               // nor a code block
	{"# P\n\n[x](https://e.org/XNU%20bills%20only) y\n", 0, ""},                // nor a link destination
	{"# P\n\nno claim here\n", 0, ""},
	// Rows from a bug: the index was taken in a lowered copy of the line,
	// whose byte length differs when non-ASCII text precedes the phrase
	// ("İ" lowers to three bytes), and the clause was sliced mid-rune.
	{"# P\n\nİİİİİİİİİİİİİİİİİİİİ XNU bills only x\n", 3, "XNU bills only x"},
	{"# P\n\nÅÅ XNU bills only " + strings.Repeat("é", 100) + "\n", 3, "XNU bills only " + strings.Repeat("é", 65) + "…"},
	{"# P\n\nＸＮＵ bills only x\n", 3, "XNU bills only x"}, // NFKC: what renders as XNU is XNU
}

func TestFind(t *testing.T) {
	for _, tt := range findTests {
		got := Parse("PLAN.md", []byte(tt.plan)).Find("xnu bills only")
		line, clause := 0, ""
		if len(got) > 0 {
			line, clause = got[0].Line.N, got[0].Clause(80)
		}
		if line != tt.line || clause != tt.clause || len(got) > 1 {
			t.Errorf("Find(%q) = line %d, clause %q (%d found); want line %d, %q", tt.plan, line, clause, len(got), tt.line, tt.clause)
		}
	}
}

func TestIndexFold(t *testing.T) {
	for _, c := range []struct {
		s, sub string
		want   int
	}{{"abc XNU", "xnu", 4}, {"İxnu", "xnu", 2}, {"xn", "xnu", -1}, {"", "x", -1}, {"straße", "STRASSE", -1}, {"ΣΑΣ", "σας", 0}} {
		if got := indexFold(c.s, c.sub); got != c.want {
			t.Errorf("indexFold(%q, %q) = %d; want %d", c.s, c.sub, got, c.want)
		}
	}
}
