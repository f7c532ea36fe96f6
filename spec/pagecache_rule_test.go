package spec

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestPageCacheRule: on the audited snapshot the cache rules reproduce the
// audit's §3 from the archived residency records (the no-op eviction F26 and
// the wrong target F29 fail, the warm-up F27 passes); on the fixed snapshot
// all three pass. The ids come from each fixture's strataspec.json.
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
			if !strings.HasPrefix(f.Rule, "cache.") {
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

// TestPageCacheRuleExact: a record that leaves a single page of the probe
// file resident after the eviction fails F26; the ids follow the spec, not
// the rule (a spec without "ids" reports none).
func TestPageCacheRuleExact(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, root+"/results/residency/evict_file_cache.after.json", `"resident": 0,`, `"resident": 1,`)
	fs := auditFindings(t, root, "cache.residency")
	var evict []finding.Finding
	for _, f := range fs {
		if f.Check == "evict" {
			evict = append(evict, f)
		}
	}
	if len(evict) != 1 || evict[0].Severity != finding.Fail || evict[0].ID != "F26" || !strings.Contains(evict[0].Message, "leaves 1 of 16384 pages resident") {
		t.Errorf("cache.residency with 1 page left = %v; want one F26 fail naming 1 of 16384 pages", evict)
	}
	snaptest.Edit(t, root+"/strataspec.json", `"cache.residency/evict": "F26",`, ``)
	for _, f := range auditFindings(t, root, "cache.residency") {
		if f.Check == "evict" && f.ID != "" {
			t.Errorf("cache.residency without an id in the spec reports id %q; want none", f.ID)
		}
	}
}
