package tail_test

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/tail"
)

// TestParseMax: a parser given a limit keeps at most that many metrics,
// says so (Over) when the tail held more, and stops reading; at or above
// the tail's own count it reads the tail in full.
func TestParseMax(t *testing.T) {
	runner := strings.Repeat("[runner] min_avail 12.5 GiB\n", 10)
	parity := strings.Repeat("route_parity: K=512 moce=0.00 max_abs_err 2.15e-07 mean_abs_err 2.69e-09 PASS\n", 10)
	for _, tt := range []struct {
		name     string
		parse    func(max int) *tail.Metrics
		max      int
		wantLen  int
		wantOver bool
	}{
		{"runner, limit 3 of 10", func(m int) *tail.Metrics { return tail.ParseRunnerMax("x", runner, m) }, 3, 3, true},
		{"runner, limit 10 of 10", func(m int) *tail.Metrics { return tail.ParseRunnerMax("x", runner, m) }, 10, 10, false},
		{"runner, no limit", func(m int) *tail.Metrics { return tail.ParseRunnerMax("x", runner, m) }, 0, 10, false},
		{"strata newlines, limit 1", func(m int) *tail.Metrics { return tail.ParseStrataMax("x", strings.Repeat("\n", 1000), m) }, 1, 0, false},
		{"route_parity, limit 5", func(m int) *tail.Metrics { return tail.ParseRouteParityMax("x", parity, m) }, 5, 5, true},
	} {
		ms := tt.parse(tt.max)
		if len(ms.List) != tt.wantLen || ms.Over != tt.wantOver {
			t.Errorf("%s: %d metrics, Over %v; want %d, Over %v", tt.name, len(ms.List), ms.Over, tt.wantLen, tt.wantOver)
		}
	}
}

// TestMergeMax: merging keeps the first part's limit, cutting the joined
// list there and marking it Over.
func TestMergeMax(t *testing.T) {
	m := func(n int, over bool) *tail.Metrics {
		ms := &tail.Metrics{Max: 4, Over: over}
		for range n {
			ms.Add(tail.Metric{Name: "a"})
		}
		return ms
	}
	for _, tt := range []struct {
		a, b     *tail.Metrics
		wantLen  int
		wantOver bool
	}{
		{m(2, false), m(2, false), 4, false},
		{m(3, false), m(2, false), 4, true},
		{m(1, false), m(1, true), 2, true},
	} {
		got := tail.Merge(tt.a, tt.b)
		if len(got.List) != tt.wantLen || got.Over != tt.wantOver {
			t.Errorf("Merge(%d, %d metrics) = %d, Over %v; want %d, Over %v", len(tt.a.List), len(tt.b.List), len(got.List), got.Over, tt.wantLen, tt.wantOver)
		}
	}
}
