package rules

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/tail"
)

// A record or run without parsed metrics is input the rule cannot read: an
// error naming the file, never a pass.
func TestInvariantRulesUnreadable(t *testing.T) {
	snap := &archive.Snapshot{
		Root:     t.TempDir(),
		Runs:     []*archive.Run{{Name: "strata_x", Group: archive.GroupSpeed, Parser: checkout.ParserStrata, Source: "results/r.json: runs[0].output_tail"}},
		Parity:   []*archive.Record{{Name: "fast_1", File: "results/route_parity/fast_1.log"}},
		SelfTest: &archive.Record{Name: "self_test", File: "results/self_test.log"},
	}
	tests := []struct {
		rule string
		want string
	}{
		{"scratch", "results/r.json: runs[0].output_tail: no parsed metrics for run strata_x"},
		{"selftest", "results/self_test.log: no parsed metrics"},
	}
	for _, tt := range tests {
		rs, err := Select(tt.rule)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := rs[0].Check(&Context{Snap: snap, Metrics: map[string]*tail.Metrics{}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s.Check(no metrics) = %v, %v; want an error containing %q", tt.rule, fs, err, tt.want)
		}
		if _, err := rs[0].Check(&Context{}); err == nil {
			t.Errorf("%s.Check(no snapshot) = nil error; want one", tt.rule)
		}
	}
}
