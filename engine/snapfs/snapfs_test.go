package snapfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestReadFileConfined(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET-hunter2\n"), 0o644))
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "ok.txt"), []byte("hello"), 0o644))
	require.NoError(t, os.Symlink(secret, filepath.Join(root, "abs-link")))
	require.NoError(t, os.Symlink("../"+filepath.Base(outside)+"/secret.txt", filepath.Join(root, "rel-link")))
	require.NoError(t, os.Symlink("ok.txt", filepath.Join(root, "inside-link")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(root, "dir"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "big"), make([]byte, 100), 0o644))

	fsys, err := Open(root)
	require.NoError(t, err)
	defer fsys.Close()

	tests := []struct {
		rel     string
		want    string // content, or "" for an error
		outside bool
		errHas  string
	}{
		{rel: "ok.txt", want: "hello"},
		{rel: "inside-link", want: "hello"},
		{rel: "abs-link", outside: true},
		{rel: "rel-link", outside: true},
		{rel: "../" + filepath.Base(outside) + "/secret.txt", outside: true},
		{rel: secret, outside: true},
		{rel: "fifo", errHas: "FIFO"},
		{rel: "dir", errHas: "directory"},
		{rel: "big", errHas: "limit"},
		{rel: "missing", errHas: "does not exist"},
	}
	for _, tt := range tests {
		done := make(chan struct{})
		var got []byte
		var err error
		go func() {
			got, err = fsys.ReadFile(tt.rel, 50)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadFile(%q) did not return: blocked", tt.rel)
		}
		if tt.want != "" {
			if err != nil || string(got) != tt.want {
				t.Errorf("ReadFile(%q) = %q, %v; want %q", tt.rel, got, err, tt.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("ReadFile(%q) = %q, nil; want an error", tt.rel, got)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ReadFile(%q) error quotes the outside file: %v", tt.rel, err)
		}
		if tt.outside && !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%q) = %v; want ErrOutside", tt.rel, err)
		}
		if tt.errHas != "" && !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("ReadFile(%q) = %v; want an error mentioning %q", tt.rel, err, tt.errHas)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		recorded, machine, want string
		ok                      bool
	}{
		{"data/p.txt", "machine", "data/p.txt", true},
		{"./data/../data/p.txt", "machine", "data/p.txt", true},
		{"../../../../../../etc/passwd", "machine", "", false},
		{"/tmp/p.txt", "machine", "machine/tmp/p.txt", true},
		{"/../../../../etc/passwd", "machine", "machine/etc/passwd", true},
		{"/tmp/p.txt", "", "", false},
		{"/tmp/p.txt", "../up", "", false},
	}
	for _, tt := range tests {
		got, ok := Resolve(tt.recorded, tt.machine)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q, %v", tt.recorded, tt.machine, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMatchPath(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"runs/*.log", "runs/a.log", true},
		{"runs/*.log", "runs/x/a.log", false},
		{"runs/**/*.log", "runs/x/y/a.log", true},
		{"runs/**/*.log", "runs/a.log", true},
		{"**", "a/b", true},
	}
	for _, tt := range tests {
		if got, _ := MatchPath(tt.pattern, tt.name); got != tt.want {
			t.Errorf("MatchPath(%q, %q) = %v; want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// TestGlobRefusals: a malformed pattern is an error whatever its form, and
// a pattern whose folder leads outside the root says so (found in review:
// both matched nothing, silently).
func TestGlobRefusals(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "x.log"), []byte("x"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "runs"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "runs", "sub")))
	fsys, err := Open(root)
	require.NoError(t, err)
	defer fsys.Close()
	for _, p := range []string{"runs/**/[.log", "runs/[.log"} {
		if _, err := fsys.Glob(p); err == nil {
			t.Errorf("Glob(%q) = nil error; want bad pattern", p)
		}
	}
	for _, p := range []string{"runs/sub/*.log", "runs/sub/x.log"} {
		_, err := fsys.Glob(p)
		if !errors.Is(err, ErrOutside) {
			t.Errorf("Glob(%q) = %v; want ErrOutside", p, err)
		}
	}
	if m, err := fsys.Glob("runs/none/*.log"); err != nil || len(m) != 0 {
		t.Errorf("Glob(missing folder) = %v, %v; want no match and no error", m, err)
	}
}
