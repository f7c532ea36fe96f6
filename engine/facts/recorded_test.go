package facts_test

import (
	"path/filepath"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// Files reads every file the run records name once: an input through the
// machine folder with its content, a script or binary for its hash only, a
// path outside the snapshot never.
func TestFiles(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.EditNth(t, filepath.Join(root, snaptest.ResultsFile), `"data/m5_val_prompts/strata_prompt_2048tok.txt"`, `"../outside.txt"`, 1)
	snap, err := archive.Load(root, format.For)
	if err != nil {
		t.Fatalf("archive.Load(%s, format.For): %v", root, err)
	}
	files, err := analysis.Compute(analysis.NewDriver(snap), facts.Files)
	if err != nil {
		t.Fatalf("Compute(Files): %v", err)
	}

	tests := []struct {
		name, rel, describe string
		data, outside       bool
	}{
		{"/tmp/m5_prompt_1600tok.txt", "machine/tmp/m5_prompt_1600tok.txt", "(5,600 bytes, sha256 de6bdb1ee7bf…)", true, false},
		{"build/strata_window_cli", "build/strata_window_cli", "(183 bytes, sha256 4ed47ab62255…)", false, false},
		{"../outside.txt", "", "(outside the snapshot: not read)", false, true},
	}
	for _, tt := range tests {
		f := files[tt.name]
		if f == nil {
			t.Fatalf("Files[%q] = nil; want the recorded file", tt.name)
		}
		if f.Rel != tt.rel || f.Describe() != tt.describe || (f.Data != nil) != tt.data || f.Outside != tt.outside {
			t.Errorf("Files[%q] = rel %q, %s, data %v, outside %v; want %q, %s, %v, %v",
				tt.name, f.Rel, f.Describe(), f.Data != nil, f.Outside, tt.rel, tt.describe, tt.data, tt.outside)
		}
	}
	var missing *facts.RecordedFile
	if got := missing.Describe(); got != "(not read)" {
		t.Errorf("(*RecordedFile)(nil).Describe() = %q; want (not read)", got)
	}
}
