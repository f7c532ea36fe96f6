// Package golden compares test output with expected files under golden/ and
// rewrites them after a deliberate change.
//
// Run `go test ./spec/... -update` to rewrite the files a test compares
// against, then read the diff (git diff golden/) before committing it: an
// update accepts whatever the code now prints. -update refuses to run when
// the CI environment variable is set, so a CI job can never bless its own
// output. Files are written atomically (a temporary file in the same
// directory, then a rename), so an interrupted update leaves either the old
// file or the new one, never half of each.
package golden

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/snapfs"
)

// flagUpdate is registered defensively: another package linked into the same
// test binary may already define -update.
var flagUpdate = func() *bool {
	if f := flag.Lookup("update"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if b, ok := g.Get().(bool); ok {
				p := new(bool)
				*p = b
				return p
			}
		}
	}
	return flag.Bool("update", false, "rewrite golden files with the output of the code under test (refused when CI is set)")
}()

// Update reports whether -update was given. Tests call it only through
// Assert; it is exported for tests that write several files at once.
func Update() bool {
	if f := flag.Lookup("update"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if b, ok := g.Get().(bool); ok {
				return b
			}
		}
	}
	return *flagUpdate
}

// ErrUpdateInCI is returned when -update is asked for with CI set.
var ErrUpdateInCI = fmt.Errorf("golden: -update refused: CI is set (golden files are updated by a person, after reading the diff)")

// checkUpdateAllowed returns ErrUpdateInCI when the environment says CI.
func checkUpdateAllowed(getenv func(string) string) error {
	if v := getenv("CI"); v != "" && v != "0" && !strings.EqualFold(v, "false") {
		return ErrUpdateInCI
	}
	return nil
}

// Assert compares got with the golden file at path. With -update it rewrites
// the file instead (atomically) and fails if CI is set. On a mismatch it
// reports a line diff and the command that would accept the new output.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	assert(t, displayPath(path), got, func() ([]byte, error) { return os.ReadFile(path) }, func() error { return WriteFile(path, got) })
}

// AssertFS is Assert for a golden file that lives in a checkout, not in
// this repository: rel is read through fsys (engine/snapfs: confined to the
// checkout, regular files only, so a link out or a FIFO there is an error
// naming it, never content or a hang), and -update writes it through
// fsys.WriteFile, never through a symbolic link or outside the checkout.
func AssertFS(t testing.TB, fsys *snapfs.FS, rel string, got []byte) {
	t.Helper()
	inCheckout := func(err error) error {
		if err != nil {
			return fmt.Errorf("in checkout %s: %w", fsys.Dir(), err)
		}
		return nil
	}
	assert(t, filepath.Join(fsys.Dir(), filepath.FromSlash(rel)), got,
		func() ([]byte, error) { b, err := fsys.ReadFile(rel, snapfs.LimitText); return b, inCheckout(err) },
		func() error { return inCheckout(fsys.WriteFile(rel, got)) })
}

// assert compares got with what read returns, or calls write under -update.
func assert(t testing.TB, shown string, got []byte, read func() ([]byte, error), write func() error) {
	t.Helper()
	if Update() {
		if err := checkUpdateAllowed(os.Getenv); err != nil {
			t.Fatal(err)
		}
		if err := write(); err != nil {
			t.Fatalf("golden: %v", err)
		}
		t.Logf("golden: rewrote %s; read its diff before committing", shown)
		return
	}
	want, err := read()
	switch {
	case errors.Is(err, fs.ErrNotExist) && !errors.Is(err, snapfs.ErrOutside):
		t.Fatalf("golden: %v\n(a new golden file is created by: go test ./spec/... -update)", err)
	case err != nil:
		t.Fatalf("golden: %v", err)
	}
	if msg := Diff(want, got); msg != "" {
		t.Errorf("golden: %s differs from the output (-want +got):\n%s\nIf the change is deliberate, run: go test ./spec/... -update, and read `git diff %s` before committing.", shown, msg, shown)
	}
}

// displayPath names a golden file relative to the module root (the
// directory holding go.mod), as a user at the repository root types it; a
// test's path is relative to its package directory.
func displayPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, abs); err == nil {
				return rel
			}
			return path
		}
		if dir == filepath.Dir(dir) {
			return path
		}
	}
}

// Diff returns a line diff of want and got (-want +got), or "" when they are
// equal. Line ends are compared as they are: a CRLF file does not equal its LF twin.
func Diff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	d := cmp.Diff(strings.SplitAfter(string(want), "\n"), strings.SplitAfter(string(got), "\n"))
	if d == "" { // equal as lines but not as bytes cannot happen; keep a message anyway
		d = fmt.Sprintf("%d bytes vs %d bytes", len(want), len(got))
	}
	return d
}

// WriteFile writes data to path atomically: it writes a temporary file in the
// same directory, syncs it, and renames it over path. The directory is created
// if needed. On error the old file, if any, is untouched.
func WriteFile(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	// A temporary file left by an update that was killed is removed: it
	// is ours by its name, and git would otherwise show it as untracked.
	if stale, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(filepath.Base(path))+".tmp*")); len(stale) > 0 {
		for _, s := range stale {
			os.Remove(s)
		}
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("golden: write %s: %w", f.Name(), err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("golden: sync %s: %w", f.Name(), err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("golden: chmod %s: %w", f.Name(), err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("golden: close %s: %w", f.Name(), err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	return nil
}

// globEscape escapes the characters filepath.Glob treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
