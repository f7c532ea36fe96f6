package pagecache

import (
	"strings"
	"testing"
)

func TestParseText(t *testing.T) {
	r := Reading{Path: "/tmp/p.gguf", PageSize: 16384, Count: Count{Resident: 3, Total: 4}, Method: "mincore", Tmpfs: true}
	transcript := "$ tools/residency /tmp/p.gguf\n" + FormatText(r.Path, r) + "\n$ echo done\ndone\n" +
		FormatText("/x", Reading{Path: "/x", PageSize: 4096, Count: Count{Total: 2}, Method: "cachestat"}) + "\n"
	got, err := ParseText("t.txt", []byte(transcript))
	if err != nil {
		t.Fatalf("ParseText(%q) = %v", transcript, err)
	}
	if len(got) != 2 || got[0].Reading.Path != r.Path || got[0].Count != r.Count || !got[0].Tmpfs || got[0].Line != 2 ||
		got[1].Line != 5 || got[1].Resident != 0 || got[1].Method != "cachestat" {
		t.Errorf("ParseText(%q) = %+v; want the two readings at lines 2 and 5", transcript, got)
	}
	for _, c := range []struct{ in, want string }{
		{"nothing here\n", "t.txt:1: no residency reading"},
		{"/x: 5/4 pages (125.00 %) resident, 4096-byte pages (mincore)\n", "t.txt:1: 5 resident pages of 4"},
		{"a\n/x: 1/4 pages (50.00 %) resident, 4096-byte pages (mincore)\n", "t.txt:2: 50.00 % is not 1/4"},
		{"/x: 1/4 pages (25.00 %) resident, 4096-byte pages (mincore) [odd]\n", `unknown note "odd"`},
	} {
		if _, err := ParseText("t.txt", []byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseText(%q) = %v; want %q", c.in, err, c.want)
		}
	}
}
