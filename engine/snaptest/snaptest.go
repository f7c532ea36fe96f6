// Package snaptest gives tests a private copy of a fixture snapshot to
// damage: copy a committed snapshot into a temporary directory, then edit,
// truncate or remove its files, failing the test when an edit does not apply
// (an edit that silently matches nothing would test nothing).
//
// It is a test helper, imported only from _test.go files. It imports nothing
// of the module, so that the tests of every package (engine/archive and
// engine/rules included) can use it; it is not under an internal/ directory
// because spec/ and tools/ tests use it too.
package snaptest

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Root returns the module's root directory, found from this file's place in
// the source tree, so tests in any package reach the fixtures the same way.
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// FixturePath returns the path of the committed snapshot fixtures/name,
// whether or not it exists (for fuzz seeds, which have no *testing.T).
func FixturePath(name string) string {
	return filepath.Join(Root(), "fixtures", name)
}

// Fixture returns the path of the committed snapshot fixtures/name and
// fails the test when it is not a directory: the fixtures are part of the
// repository, so a missing one is a broken checkout, not a reason to skip.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	p := FixturePath(name)
	st, err := os.Stat(p)
	if err != nil {
		t.Fatalf("snaptest: fixture %s: %v", name, err)
	}
	if !st.IsDir() {
		t.Fatalf("snaptest: fixture %s: %s is not a directory", name, p)
	}
	return p
}

// Copy copies the directory tree src into a new temporary directory, which
// the test removes when it ends, and returns the copy's path. Files are
// written 0o644 and directories 0o755 whatever their modes in src.
func Copy(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("snaptest: copying %s: %v", src, err)
	}
	return dst
}

// CopyFixture is Copy(t, Fixture(t, name)).
func CopyFixture(t testing.TB, name string) string {
	t.Helper()
	return Copy(t, Fixture(t, name))
}

// Edit replaces old with new in the file at path. old must occur exactly
// once: the test fails when it is absent (the edit would test nothing) or
// ambiguous (use EditNth).
func Edit(t testing.TB, path, old, new string) {
	t.Helper()
	s := Read(t, path)
	switch n := strings.Count(s, old); {
	case old == "":
		t.Fatalf("snaptest: Edit %s: empty old text", path)
	case n == 0:
		t.Fatalf("snaptest: Edit %s: %q not found", path, old)
	case n > 1:
		t.Fatalf("snaptest: Edit %s: %q found %d times; want once (use EditNth)", path, old, n)
	}
	Write(t, path, strings.Replace(s, old, new, 1))
}

// EditNth replaces the n-th occurrence (1-based) of old with new in the
// file at path, failing the test when there are fewer than n.
func EditNth(t testing.TB, path, old, new string, n int) {
	t.Helper()
	if old == "" || n < 1 {
		t.Fatalf("snaptest: EditNth %s: old %q, n %d; want a non-empty old and n ≥ 1", path, old, n)
	}
	s := Read(t, path)
	at, from := -1, 0
	for i := 0; i < n; i++ {
		j := strings.Index(s[from:], old)
		if j < 0 {
			t.Fatalf("snaptest: EditNth %s: occurrence %d of %q not found (%d in the file)", path, n, old, strings.Count(s, old))
		}
		at = from + j
		from = at + len(old)
	}
	Write(t, path, s[:at]+new+s[at+len(old):])
}

// Read returns the content of the file at path, failing the test when it
// cannot be read.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("snaptest: %v", err)
	}
	return string(b)
}

// Write replaces the content of the file at path.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatalf("snaptest: %v", err)
	}
}

// Remove removes the file at path, failing the test when it does not exist.
func Remove(t testing.TB, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatalf("snaptest: %v", err)
	}
}

// Files of the strata fixture snapshots (fixtures/m5, fixtures/m5-v3), as
// their strataspec.json names them; tests that damage a copy name them here.
const (
	ResultsFile  = "results/phase0_phase2_m5_validation.json"
	ParityDir    = "results/route_parity"
	SelfTestFile = "results/self_test.log"
	MtimesFile   = "machine/mtimes.json"
)
