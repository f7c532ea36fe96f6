package pagecache

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTally(t *testing.T) {
	// 10 pages of 4096 bytes, the last one partial; bit 0 marks residency,
	// the other bits (referenced, modified) must be ignored.
	vec := []byte{1, 1, 0, 0, 3, 2, 0, 1, 0, 1}
	size := int64(9*4096 + 100)
	tests := []struct {
		r    Range
		want Count
	}{
		{Range{0, 0}, Count{5, 10}},                   // whole file
		{Range{0, 4096}, Count{1, 1}},                 // first page
		{Range{1, 4096}, Count{2, 2}},                 // straddles pages 0 and 1
		{Range{2 * 4096, 2 * 4096}, Count{0, 2}},      // pages 2-3
		{Range{4 * 4096, 4096}, Count{1, 1}},          // 3 = resident|referenced
		{Range{5 * 4096, 4096}, Count{0, 1}},          // 2 = referenced only
		{Range{9 * 4096, 100}, Count{1, 1}},           // partial last page
		{Range{size, 0}, Count{0, 0}},                 // empty range at the end
		{Range{7 * 4096, size - 7*4096}, Count{2, 3}}, // to the end
	}
	var ranges []Range
	for _, tt := range tests {
		ranges = append(ranges, tt.r)
	}
	got := tally("f", size, 4096, vec, ranges)
	if want := (Count{5, 10}); got.Count != want {
		t.Errorf("tally count = %v; want %v", got.Count, want)
	}
	for i, tt := range tests {
		if got.Ranges[i].Count != tt.want || got.Ranges[i].Range != tt.r {
			t.Errorf("tally range %+v = %+v; want %v", tt.r, got.Ranges[i], tt.want)
		}
	}
}

func TestCheckRanges(t *testing.T) {
	tests := []struct {
		r  Range
		ok bool
	}{
		{Range{0, 0}, true},
		{Range{0, 100}, true},
		{Range{100, 0}, true},
		{Range{50, 50}, true},
		{Range{50, 51}, false},
		{Range{101, 0}, false},
		{Range{-1, 10}, false},
		{Range{0, -1}, false},
		{Range{1, 1<<63 - 1}, false}, // Off+Len overflows
	}
	for _, tt := range tests {
		err := checkRanges("f", 100, []Range{tt.r})
		if (err == nil) != tt.ok {
			t.Errorf("checkRanges(%+v) = %v; want ok=%v", tt.r, err, tt.ok)
		}
	}
}

func TestCountFraction(t *testing.T) {
	tests := []struct {
		c    Count
		want float64
		str  string
	}{
		{Count{0, 0}, 0, "0/0 pages (0.00 %)"},
		{Count{1, 4}, 0.25, "1/4 pages (25.00 %)"},
		{Count{4, 4}, 1, "4/4 pages (100.00 %)"},
	}
	for _, tt := range tests {
		if got := tt.c.Fraction(); got != tt.want {
			t.Errorf("%+v.Fraction() = %v; want %v", tt.c, got, tt.want)
		}
		if diff := cmp.Diff(tt.str, tt.c.String()); diff != "" {
			t.Errorf("%+v.String() mismatch (-want +got):\n%s", tt.c, diff)
		}
	}
}

func TestAttribute(t *testing.T) {
	// Pages 0-3 locked, 4 evicted, 5-6 dirty, 7 evicted, 8 dirty.
	vec := []byte{1, 1, 1, 1, 0, 1, 1, 0, 1}
	classify := func(p int64) (Reason, string) {
		if p < 4 {
			return ReasonLocked, "mlocked by pid 7 (x)"
		}
		return ReasonDirty, ""
	}
	want := []Stay{
		{Reason: ReasonLocked, Pages: 4, Detail: "mlocked by pid 7 (x): pages 0-3", Spans: []Span{{0, 3}}},
		{Reason: ReasonDirty, Pages: 3, Detail: "pages 5-6, page 8", Spans: []Span{{5, 6}, {8, 8}}},
	}
	if diff := cmp.Diff(want, attribute(vec, classify)); diff != "" {
		t.Errorf("attribute(%v) mismatch (-want +got):\n%s", vec, diff)
	}
	if got := attribute([]byte{0, 2, 0}, classify); len(got) != 0 {
		t.Errorf("attribute(nothing resident) = %+v; want none", got)
	}

	// Alternating pages: MaxSpans runs listed, the rest counted.
	const runs = MaxSpans + 10
	alt := make([]byte, 2*runs)
	for i := 0; i < len(alt); i += 2 {
		alt[i] = 1
	}
	got := attribute(alt, func(int64) (Reason, string) { return ReasonUnknown, "" })
	if len(got) != 1 || got[0].Pages != runs || len(got[0].Spans) != MaxSpans || got[0].SpansOmitted != 10 ||
		!strings.HasSuffix(got[0].Detail, fmt.Sprintf("and %d more runs", runs-maxSpansText)) {
		t.Errorf("attribute(%d alternating pages) = %d stays, pages %d, %d spans, %d omitted, detail …%q; want %d pages, %d spans, 10 omitted",
			runs, len(got), got[0].Pages, len(got[0].Spans), got[0].SpansOmitted, got[0].Detail[max(0, len(got[0].Detail)-40):], runs, MaxSpans)
	}
}
