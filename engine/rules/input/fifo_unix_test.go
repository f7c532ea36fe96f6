//go:build unix

package input_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/rules/input"
	"github.com/strataspec/strataspec/engine/rules/provenance"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/stretchr/testify/require"
)

// An archived prompt replaced by a FIFO is unreadable input (exit 2) naming
// the record that names it, not a fail finding, and the audit does not
// wait for a writer.
func TestArchivedPromptFIFO(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	p := filepath.Join(root, "data", "m5_val_prompts", "strata_prompt_43tok.txt")
	snaptest.Remove(t, p)
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	for _, a := range []*analysis.Analyzer{input.Archive, provenance.Provenance} {
		_, _, err := analysistest.Run(t, root, a)
		require.Error(t, err, a.Name)
		require.Contains(t, err.Error(), "results/phase0_phase2_m5_validation.json:")
		require.Contains(t, err.Error(), "data/m5_val_prompts/strata_prompt_43tok.txt: not a regular file (a FIFO)")
	}
}
