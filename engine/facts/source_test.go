package facts_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/engine/source"
)

func sources(t *testing.T, root string) *facts.SourceSet {
	t.Helper()
	snap, err := archive.Load(root, format.For)
	if err != nil {
		t.Fatalf("archive.Load(%s, format.For): %v", root, err)
	}
	ss, err := analysis.Compute(analysis.NewDriver(snap), facts.Sources)
	if err != nil {
		t.Fatalf("Compute(Sources): %v", err)
	}
	return ss
}

// TestSources reads the fixture's declared sources: the spec's globs with
// their languages, a file read once however often it is asked for, an
// undeclared file by its extension, an absent one as ErrAbsent and a path
// out of the snapshot refused.
func TestSources(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `{"glob": "vendor/**"}`, `{"glob": "vendor/**/*.metal", "language": "c"}`)
	if err := os.WriteFile(filepath.Join(root, "tools.py"), []byte("def f():\n    return 1 / 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ss := sources(t, root)
	want := []string{"scripts/patch_strata_metal.py", "scripts/run_phase0_phase2_m5_validation.py", "vendor/strata/metal/moe.metal"}
	if diff := cmp.Diff(want, ss.Paths()); diff != "" {
		t.Errorf("Paths() mismatch (-want +got):\n%s", diff)
	}

	const script = "scripts/run_phase0_phase2_m5_validation.py"
	f, err := ss.File(script)
	if err != nil {
		t.Fatalf("File(%q): %v", script, err)
	}
	if f.Lang != source.Python {
		t.Errorf("File(%q).Lang = %v; want %v", script, f.Lang, source.Python)
	}
	if len(f.FuncsNamed("self_test")) == 0 {
		t.Errorf("File(%q).FuncsNamed(\"self_test\") = none; want the script's self_test", script)
	}
	again, err := ss.File(script)
	if err != nil {
		t.Fatalf("File(%q) again: %v", script, err)
	}
	if again != f {
		t.Errorf("File(%q) twice = %p, %p; want the same *File: a source is read once", script, f, again)
	}

	f, err = ss.File("tools.py") // not declared: read on request
	if err != nil {
		t.Fatalf("File(%q): %v", "tools.py", err)
	}
	if diff := cmp.Diff([]source.Func{{Name: "f", Qualified: "f", Start: 1, End: 2}}, f.Funcs); diff != "" {
		t.Errorf("File(%q).Funcs mismatch (-want +got):\n%s", "tools.py", diff)
	}

	for _, tt := range []struct {
		path string
		want error
	}{
		{"scripts/absent.py", facts.ErrAbsent},
		{"../outside.py", snapfs.ErrOutside},
	} {
		if _, err := ss.File(tt.path); !errors.Is(err, tt.want) {
			t.Errorf("File(%q) = %v; want %v", tt.path, err, tt.want)
		}
	}

	all, err := ss.All()
	if err != nil {
		t.Fatalf("All(): %v", err)
	}
	if len(all) != 3 {
		t.Errorf("All() = %d files; want 3", len(all))
	}
}

// TestSourcesDefault: without "sources" the files provenance records are
// the sources.
func TestSourcesDefault(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"sources": [
    {"glob": "scripts/**"},
    {"glob": "vendor/**"}
  ],`, "")
	want := []string{"scripts/patch_strata_metal.py", "vendor/strata/metal/moe.metal", "scripts/run_phase0_phase2_m5_validation.py"}
	if diff := cmp.Diff(want, sources(t, root).Paths()); diff != "" {
		t.Errorf("Paths() without \"sources\" mismatch (-want +got):\n%s", diff)
	}
}
