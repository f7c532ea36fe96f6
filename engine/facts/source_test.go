package facts_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/engine/source"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sources(t *testing.T, root string) *facts.SourceSet {
	t.Helper()
	snap, err := archive.Load(root)
	require.NoError(t, err)
	ss, err := analysis.Compute(analysis.NewDriver(snap), facts.Sources)
	require.NoError(t, err)
	return ss
}

// TestSources reads the fixture's declared sources: the spec's globs with
// their languages, a file read once however often it is asked for, an
// undeclared file by its extension, an absent one as ErrAbsent and a path
// out of the snapshot refused.
func TestSources(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `{"glob": "vendor/**"}`, `{"glob": "vendor/**/*.metal", "language": "c"}`)
	require.NoError(t, os.WriteFile(filepath.Join(root, "tools.py"), []byte("def f():\n    return 1 / 3\n"), 0o644))
	ss := sources(t, root)
	assert.Equal(t, []string{"scripts/patch_strata_metal.py", "scripts/run_phase0_phase2_m5_validation.py", "vendor/strata/metal/moe.metal"}, ss.Paths())

	f, err := ss.File("scripts/run_phase0_phase2_m5_validation.py")
	require.NoError(t, err)
	assert.Equal(t, source.Python, f.Lang)
	assert.NotEmpty(t, f.FuncsNamed("self_test"))
	again, err := ss.File("scripts/run_phase0_phase2_m5_validation.py")
	require.NoError(t, err)
	assert.Same(t, f, again, "a source is read once")

	f, err = ss.File("tools.py") // not declared: read on request
	require.NoError(t, err)
	assert.Equal(t, []source.Func{{Name: "f", Qualified: "f", Start: 1, End: 2}}, f.Funcs)

	_, err = ss.File("scripts/absent.py")
	assert.ErrorIs(t, err, facts.ErrAbsent)
	_, err = ss.File("../outside.py")
	assert.ErrorIs(t, err, snapfs.ErrOutside)

	all, err := ss.All()
	require.NoError(t, err)
	assert.Len(t, all, 3)
}

// TestSourcesDefault: without "sources" the files provenance records are
// the sources.
func TestSourcesDefault(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"sources": [
    {"glob": "scripts/**"},
    {"glob": "vendor/**"}
  ],`, "")
	assert.Equal(t, []string{"scripts/patch_strata_metal.py", "vendor/strata/metal/moe.metal", "scripts/run_phase0_phase2_m5_validation.py"}, sources(t, root).Paths())
}
