//go:build unix

package input_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/rules/input"
	"github.com/strataspec/strataspec/engine/rules/provenance"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// An archived prompt replaced by a FIFO is unreadable input (exit 2) naming
// the record that names it, not a fail finding, and the audit does not
// wait for a writer.
func TestArchivedPromptFIFO(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	p := filepath.Join(root, "data", "m5_val_prompts", "strata_prompt_43tok.txt")
	snaptest.Remove(t, p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatalf("syscall.Mkfifo(%q): %v", p, err)
	}
	for _, a := range []*analysis.Analyzer{input.Archive, provenance.Provenance} {
		_, _, err := analysistest.Run(t, root, a)
		if err == nil {
			t.Fatalf("%s over a prompt that is a FIFO: no error; want one naming the record and the FIFO", a.Name)
		}
		for _, want := range []string{
			"results/phase0_phase2_m5_validation.json:",
			"data/m5_val_prompts/strata_prompt_43tok.txt: not a regular file (a FIFO)",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("%s over a prompt that is a FIFO: error %q; want it to contain %q", a.Name, err, want)
			}
		}
	}
}
