package selftest_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit/audittest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestFixtures runs the rule on the snapshots and on copies whose spec or
// runner changed: the findings follow.
func TestFixtures(t *testing.T) {
	const runner = "scripts/run_phase0_phase2_m5_validation.py"
	const block = `"runner": "` + runner + `",
      "function": "self_test"`
	editSpec := func(t *testing.T, root, new string) {
		snaptest.Edit(t, filepath.Join(root, "strataspec.json"), block, new)
	}
	tests := []struct {
		name, snap string
		edit       func(t *testing.T, root string)
		want       []string // "severity check: message part", in order
	}{
		{"audited", "m5-v3", nil, []string{
			`fail verdict: garbled prefix "self-test: 0 scripts/run_phase0_phase2_m5_validation.py "`,
			"fail eviction: (L725 assert evict_file_cache(__file__) is True; L726 check(",
		}},
		{"fixed", "m5", nil, []string{
			`pass verdict: --self-test verdict is exactly "self-test: PASS", exit 0, 5 checks ok`,
			"pass eviction: the self-test checks eviction by its effect",
		}},
		{"the spec names another function", "m5", func(t *testing.T, root string) {
			editSpec(t, root, strings.Replace(block, `"self_test"`, `"smoke_test"`, 1))
		}, []string{
			"pass verdict: ",
			"warn eviction: " + runner + ": no self-test function (def self_test…)",
		}},
		{"another PASS line in the spec", "m5", func(t *testing.T, root string) {
			editSpec(t, root, block+`, "pass_line": "ALL OK"`)
		}, []string{
			`fail verdict: the verdict line is "self-test: PASS", not the runner's PASS line "ALL OK"`,
			"pass eviction: ",
		}},
		{"the spec names a runner the snapshot lacks", "m5", func(t *testing.T, root string) {
			editSpec(t, root, strings.Replace(block, runner, "scripts/runner.py", 1))
		}, []string{
			"pass verdict: ",
			"warn eviction: scripts/runner.py is not in the snapshot",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.Fixture(t, tt.snap)
			if tt.edit != nil {
				root = snaptest.CopyFixture(t, tt.snap)
				tt.edit(t, root)
			}
			rep, err := audittest.Audit(root, "selftest")
			if err != nil {
				t.Fatalf("audit.Audit(%q, \"selftest\"): %v", root, err)
			}
			var got []string
			for _, f := range rep.Findings {
				got = append(got, f.Severity.String()+" "+f.Check+": "+f.Message)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("selftest over %s: %d findings %q; want %d", tt.snap, len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				sev, rest, _ := strings.Cut(w, " ")
				check, msg, _ := strings.Cut(rest, ": ")
				if !strings.HasPrefix(got[i], sev+" "+check+": ") || !strings.Contains(got[i], msg) {
					t.Fatalf("selftest over %s: finding %d = %q; want %q", tt.snap, i, got[i], w)
				}
			}
			for _, f := range rep.Findings {
				if f.Severity == finding.Invalid {
					t.Fatalf("selftest over %s: finding %q has severity %v; want pass, warn or fail", tt.snap, f.Message, f.Severity)
				}
			}
		})
	}
}
