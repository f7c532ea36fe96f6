package compare_test

import (
	"path/filepath"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/rules/compare"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/stretchr/testify/require"
)

const rateSettings = `"compare.rate": {
      "runner_source": "scripts/run_phase0_phase2_m5_validation.py",`

// Without the runner's source in the spec, compare.rate cannot read how a
// per-token field is derived and says so; the claims rows are still read.
func TestRateWithoutRunnerSource(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5-v3")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), rateSettings, `"compare.rate": {`)
	var source, claimsRows int
	for _, f := range analysistest.Findings(t, root, compare.Rate) {
		switch f.Check {
		case "source":
			source++
			require.Equal(t, finding.Warn, f.Severity)
			require.Contains(t, f.Message, "the runner's source is not in the snapshot")
		case "claims":
			claimsRows++
			require.Equal(t, finding.Fail, f.Severity)
		}
	}
	require.Equal(t, 3, source)
	require.Equal(t, 2, claimsRows)
}

// The runner's tables are where the spec says: without them only the
// claims rows are checked; a table the spec names but the results file
// lacks is skipped; a table without its steps is a settings error.
func TestRateTables(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `{"table": {"path": "llama_cpp_patched"}, "steps"`, `{"table": {"path": "llama_cpp_elsewhere"}, "steps"`)
	fs := analysistest.Findings(t, root, compare.Rate)
	require.Len(t, fs, 1)
	require.Equal(t, "none", fs[0].Check)
	require.Equal(t, "no per-token rate among the runner's tables: whole-run amounts are not divided by a token count", fs[0].Message)

	root = snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `{"table": {"path": "llama_cpp_patched"}, "steps": {"path": "prev_llama_patched"}, `, `{"table": {"path": "llama_cpp_patched"}, `)
	_, _, err := analysistest.Run(t, root, compare.Rate)
	require.Error(t, err)
	require.Regexp(t, `^strataspec\.json:\d+: rules\.compare\.rate: a table needs "table", "steps" and "run_key"`, err.Error())
}
