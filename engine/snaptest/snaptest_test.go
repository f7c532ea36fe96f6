package snaptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB whose Fatalf records the failure and stops the
// helper's goroutine, so a test can check that a helper fails.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = format
	panic(r)
}

// fails runs f with a recorder and reports whether f failed the test.
func fails(t *testing.T, f func(tb testing.TB)) (failed bool) {
	t.Helper()
	r := &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil {
			if v != r {
				panic(v)
			}
			failed = true
		}
	}()
	f(r)
	return false
}

func TestCopy(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a", "b", "f.txt"), []byte("x = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dst := Copy(t, src)
	if dst == src {
		t.Fatalf("Copy returned its source")
	}
	if got := Read(t, filepath.Join(dst, "a", "b", "f.txt")); got != "x = 1\n" {
		t.Errorf("copied file = %q; want %q", got, "x = 1\n")
	}
	// The copy is independent of the source.
	Edit(t, filepath.Join(dst, "a", "b", "f.txt"), "1", "2")
	if got := Read(t, filepath.Join(src, "a", "b", "f.txt")); got != "x = 1\n" {
		t.Errorf("editing the copy changed the source: %q", got)
	}
}

func TestEdit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	tests := []struct {
		name, content, old, new string
		fail                    bool
		want                    string
	}{
		{"once", "a b c", "b", "B", false, "a B c"},
		{"absent", "a b c", "d", "D", true, "a b c"},
		{"twice", "a b b", "b", "B", true, "a b b"},
		{"empty old", "a b c", "", "x", true, "a b c"},
	}
	for _, tt := range tests {
		Write(t, p, tt.content)
		failed := fails(t, func(tb testing.TB) { Edit(tb, p, tt.old, tt.new) })
		if failed != tt.fail {
			t.Errorf("Edit(%q, %q → %q) failed = %v; want %v", tt.content, tt.old, tt.new, failed, tt.fail)
		}
		if got := Read(t, p); got != tt.want {
			t.Errorf("Edit(%q, %q → %q) left %q; want %q", tt.content, tt.old, tt.new, got, tt.want)
		}
	}
}

func TestEditNth(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	tests := []struct {
		n    int
		fail bool
		want string
	}{
		{1, false, "X b b"},
		{3, false, "b b X"},
		{4, true, "b b b"},
		{0, true, "b b b"},
	}
	for _, tt := range tests {
		Write(t, p, "b b b")
		failed := fails(t, func(tb testing.TB) { EditNth(tb, p, "b", "X", tt.n) })
		if failed != tt.fail || Read(t, p) != tt.want {
			t.Errorf("EditNth(%d) failed = %v, left %q; want %v, %q", tt.n, failed, Read(t, p), tt.fail, tt.want)
		}
	}
}

func TestFixture(t *testing.T) {
	for _, name := range []string{"m5-v3", "m5"} {
		p := Fixture(t, name)
		if _, err := os.Stat(filepath.Join(p, "results", "phase0_phase2_m5_validation.json")); err != nil {
			t.Errorf("Fixture(%q) = %s, which has no results file: %v", name, p, err)
		}
	}
	if !fails(t, func(tb testing.TB) { Fixture(tb, "nosuch") }) {
		t.Errorf("Fixture(nosuch) did not fail the test")
	}
	if !strings.HasSuffix(FixturePath("m5"), filepath.Join("fixtures", "m5")) {
		t.Errorf("FixturePath(m5) = %s", FixturePath("m5"))
	}
}

func TestRemove(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	Write(t, p, "x")
	Remove(t, p)
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("Remove left the file: %v", err)
	}
	if !fails(t, func(tb testing.TB) { Remove(tb, p) }) {
		t.Errorf("Remove(absent) did not fail the test")
	}
}
