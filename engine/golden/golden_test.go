package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.golden")
	if err := WriteFile(path, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "two\n" {
		t.Errorf("WriteFile then read = %q; want %q", got, "two\n")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("WriteFile left %d files in the directory; want 1 (no temporary files)", len(entries))
	}
}

func TestWriteFileFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory where the file should be makes the rename fail.
	bad := filepath.Join(dir, "isdir")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(bad, []byte("new\n")); err == nil {
		t.Errorf("WriteFile over a non-empty directory = nil; want error")
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old\n" {
		t.Errorf("old file = %q; want untouched %q", got, "old\n")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestCheckUpdateAllowed(t *testing.T) {
	for _, tt := range []struct {
		ci      string
		refused bool
	}{
		{"", false},
		{"true", true},
		{"1", true},
		{"0", false},
		{"false", false},
	} {
		err := checkUpdateAllowed(func(string) string { return tt.ci })
		if (err != nil) != tt.refused {
			t.Errorf("checkUpdateAllowed(CI=%q) = %v; want refused=%v", tt.ci, err, tt.refused)
		}
	}
}

func TestDiff(t *testing.T) {
	if d := Diff([]byte("a\nb\n"), []byte("a\nb\n")); d != "" {
		t.Errorf("Diff(equal) = %q; want empty", d)
	}
	d := Diff([]byte("a\nb\n"), []byte("a\nc\n"))
	if !strings.Contains(d, "b") || !strings.Contains(d, "c") {
		t.Errorf("Diff(a b, a c) = %q; want both changed lines named", d)
	}
	if d := Diff([]byte("a\r\n"), []byte("a\n")); d == "" {
		t.Errorf("Diff(CRLF, LF) = empty; want a difference")
	}
}

// fatalRecorder records Fatal instead of stopping the test, so a test can
// check what Assert refused to do.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *fatalRecorder) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }
func (r *fatalRecorder) Logf(string, ...any)               {}
func (r *fatalRecorder) Errorf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

// runAssert calls Assert on a recorder in its own goroutine (Fatal ends it).
func runAssert(t *testing.T, path string, got []byte) string {
	r := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Assert(r, path, got)
	}()
	<-done
	return r.fatal
}

// TestAssertUpdateRefusedInCI: with -update and CI set, Assert must fail
// and leave the golden file as it was.
func TestAssertUpdateRefusedInCI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("update", "false")

	t.Setenv("CI", "true")
	if msg := runAssert(t, path, []byte("new\n")); !strings.Contains(msg, "refused") {
		t.Errorf("Assert(-update, CI=true) failure = %q; want a refusal", msg)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("golden file after a refused update = %q; want %q", b, "old\n")
	}

	t.Setenv("CI", "")
	if msg := runAssert(t, path, []byte("new\n")); msg != "" {
		t.Errorf("Assert(-update, no CI) failed: %q", msg)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("golden file after an update = %q; want %q", b, "new\n")
	}
}

func TestAssertMismatchHint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := runAssert(t, path, []byte("a\nc\n"))
	if !strings.Contains(msg, "-update") || !strings.Contains(msg, "x.golden") {
		t.Errorf("Assert(mismatch) = %q; want the file and the -update hint", msg)
	}
	if msg := runAssert(t, path, []byte("a\nb\n")); msg != "" {
		t.Errorf("Assert(equal) failed: %q", msg)
	}
}

func TestDisplayPath(t *testing.T) {
	// Tests run in the package directory, two below the module root.
	if got, want := displayPath("../../golden/m5/report.txt"), filepath.Join("golden", "m5", "report.txt"); got != want {
		t.Errorf("displayPath(%q) = %q; want %q", "../../golden/m5/report.txt", got, want)
	}
}

// TestWriteFileRemovesStaleTemp: an update killed between writing its
// temporary file and renaming it leaves the temporary file; the next update
// removes it, so no stray file stays for git to show.
func TestWriteFileRemovesStaleTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.txt")
	stale := filepath.Join(dir, ".report.txt.tmp123")
	if err := os.WriteFile(stale, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, ".other.txt.tmp9")
	if err := os.WriteFile(other, []byte("not ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file still there after WriteFile: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("WriteFile removed another file's temporary file: %v", err)
	}
}
