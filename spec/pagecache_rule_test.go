package spec

import (
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestPageCacheRule: on the audited snapshot the cache rule reproduces the
// audit's §3 (the no-op eviction F26 and the wrong target F29 fail, the
// warm-up F27 passes); on the fixed snapshot all three pass.
func TestPageCacheRule(t *testing.T) {
	tests := []struct {
		snap string
		want map[string]finding.Severity // worst severity per finding id
	}{
		{"m5-v3", map[string]finding.Severity{"F26": finding.Fail, "F27": finding.Pass, "F29": finding.Fail}},
		{"m5", map[string]finding.Severity{"F26": finding.Pass, "F27": finding.Pass, "F29": finding.Pass}},
	}
	for _, tt := range tests {
		fs := auditFindings(t, snaptest.Fixture(t, tt.snap), "cache")
		got := map[string]finding.Severity{}
		for _, f := range fs {
			if f.Rule != "cache" {
				t.Errorf("cache on %s: finding of rule %q", tt.snap, f.Rule)
			}
			got[f.ID] = max(got[f.ID], f.Severity)
		}
		for id, want := range tt.want {
			if got[id] != want {
				t.Errorf("cache on %s: %s = %v; want %v (findings %v)", tt.snap, id, got[id], want, fs)
			}
		}
		if len(got) != len(tt.want) {
			t.Errorf("cache on %s: ids %v; want exactly %v", tt.snap, got, tt.want)
		}
	}
}
