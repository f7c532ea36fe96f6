package cache_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit/audittest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// edit is one change to a copy of fixtures/m5: file, old text, new text.
type edit struct{ file, old, new string }

// audited copies fixtures/m5, applies the edits and audits the cache rules.
func audited(t *testing.T, edits ...edit) (*report.Report, error) {
	t.Helper()
	root := snaptest.CopyFixture(t, "m5")
	for _, e := range edits {
		snaptest.Edit(t, filepath.Join(root, e.file), e.old, e.new)
	}
	return audittest.Audit(root, "cache")
}

const (
	spec      = "strataspec.json"
	evictAft  = "results/residency/evict_file_cache.after.json"
	evictBef  = "results/residency/evict_file_cache.before.json"
	warmAfter = "results/residency/warm_file_cache.after.json"
	runner    = "scripts/run_phase0_phase2_m5_validation.py"
)

// evictTargets is the evict helper's targets in the fixed spec.
const evictTargets = `"targets": ["models/K256-Q2_0-metal.gguf.experts", "models/K256-IQ3_S-metal.gguf.experts"], "returned": true,
       "before": "results/residency/evict_file_cache.before.json"`

// TestJudged changes one input of the fixed snapshot's probe at a time and
// checks the one finding that must change: its check, severity and message.
func TestJudged(t *testing.T) {
	tests := []struct {
		name  string
		edits []edit
		check string
		sev   finding.Severity
		want  string
	}{
		{"one page left", []edit{{evictAft, `"resident": 0,`, `"resident": 1,`}},
			"evict", finding.Fail, "evict_file_cache leaves 1 of 16384 pages resident after the eviction (returned true)"},
		{"nothing evicted", []edit{{evictAft, `"resident": 0,`, `"resident": 16384,`}},
			"evict", finding.Fail, "evict_file_cache returns success and evicts nothing: 16384 → 16384 of 16384 pages resident"},
		{"not fully cached before", []edit{{evictBef, `"resident": 16384,`, `"resident": 100,`}},
			"evict", finding.Warn, "probed on a file only 100/16384 pages (0.61 %) resident: the probe cannot show an eviction"},
		{"unverifiable", []edit{{evictAft, `"method": "mincore"`, `"method": "mincore", "unverifiable": "not the owner"`}},
			"evict", finding.Warn, "evict_file_cache: the records cannot be trusted: not the owner"},
		{"different files", []edit{{evictAft, `"size": 268435456,`, `"size": 268435457,`}},
			"evict", finding.Warn, "the before and after records measure different files"},
		{"warm short", []edit{{warmAfter, `"resident": 16384,`, `"resident": 16000,`}},
			"warm", finding.Fail, "warm_file_cache leaves 384 of 16384 pages out of the cache after the warm-up"},
		{"wrong target", []edit{{spec, evictTargets, strings.Replace(evictTargets, ".gguf.experts", ".gguf", 2)}},
			"probe", finding.Fail, "evict_file_cache targets models/K256-Q2_0-metal.gguf, models/K256-IQ3_S-metal.gguf, which the arena fill does not read"},
		{"missed target", []edit{{spec, evictTargets, strings.Replace(evictTargets, `, "models/K256-IQ3_S-metal.gguf.experts"`, "", 1)}},
			"probe", finding.Fail, "evict_file_cache never touches models/K256-IQ3_S-metal.gguf.experts"},
		{"no target function", []edit{{spec, `"function": "cache_target"`, `"function": "target_of"`}},
			"source", finding.Warn, "defines no target_of"},
		{"no f-string", []edit{{runner, `f"K256-{quant}-metal.gguf.experts"`, `"K256.gguf"`}},
			"source", finding.Warn, "cache_target returns no f-string"},
		{"no warm helper", []edit{{spec, `"op": "warm"`, `"op": "evict"`}},
			"declared", finding.Warn, "the probe declares no warm helper"},
	}
	for _, tt := range tests {
		rep, err := audited(t, tt.edits...)
		if err != nil {
			t.Errorf("%s: audit error %v", tt.name, err)
			continue
		}
		var got []finding.Finding
		for _, f := range rep.Findings {
			if f.Check == tt.check && f.Severity == tt.sev && strings.Contains(f.Message, tt.want) {
				got = append(got, f)
			}
		}
		if len(got) == 0 {
			t.Errorf("%s: findings %v; want a %v %s finding containing %q", tt.name, rep.Findings, tt.sev, tt.check, tt.want)
		}
	}
}
