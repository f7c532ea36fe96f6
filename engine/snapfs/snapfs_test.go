package snapfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileConfined(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("SECRET-hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "ok.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "abs-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../"+filepath.Base(outside)+"/secret.txt", filepath.Join(root, "rel-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ok.txt", filepath.Join(root, "inside-link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "big"), make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}

	fsys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
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
	if err := os.WriteFile(filepath.Join(outside, "x.log"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "runs", "sub")); err != nil {
		t.Fatal(err)
	}
	fsys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
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

func TestWriteFileNeverThroughALink(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("SECRET-hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "ok.txt"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "abs-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "target.txt"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.txt", filepath.Join(root, "inside-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "dir-link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}

	fsys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	for _, tt := range []struct {
		rel    string
		errHas string // "" for a write that must succeed
	}{
		{"ok.txt", ""},
		{"new/folder/report.json", ""},
		{"abs-link", "abs-link: a symbolic link: not written through"},
		{"inside-link", "inside-link: a symbolic link: not written through"},
		{"dir-link/secret.txt", "dir-link: a symbolic link: not written through"},
		{"dir-link/new.txt", "dir-link: a symbolic link: not written through"},
		{"fifo", "fifo: not a regular file (a FIFO)"},
		{"dir", "dir: not a regular file (a directory)"},
		{"ok.txt/x", "ok.txt: not a directory"},
		{"../" + filepath.Base(outside) + "/secret.txt", "climbs out"},
		{secret, "absolute path"},
		{".", "names the snapshot root"},
	} {
		done := make(chan error, 1)
		go func() { done <- fsys.WriteFile(tt.rel, []byte("NEW")) }()
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("WriteFile(%q) did not return: blocked", tt.rel)
		}
		switch {
		case tt.errHas == "" && err != nil:
			t.Errorf("WriteFile(%q) = %v; want nil", tt.rel, err)
		case tt.errHas == "":
			got, rerr := os.ReadFile(filepath.Join(root, filepath.FromSlash(tt.rel)))
			if rerr != nil || string(got) != "NEW" {
				t.Errorf("after WriteFile(%q): file holds %q (%v); want %q", tt.rel, got, rerr, "NEW")
			}
		case err == nil || !strings.Contains(err.Error(), tt.errHas):
			t.Errorf("WriteFile(%q) = %v; want an error containing %q", tt.rel, err, tt.errHas)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "SECRET-hunter2\n" {
		t.Errorf("the file outside the root now holds %q; nothing may be written there", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("the folder outside the root holds %d entries; want only secret.txt", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "target.txt")); string(b) != "old" {
		t.Errorf("target.txt = %q after the refused write through inside-link; want it untouched, %q", b, "old")
	}
	var leftover []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp") {
			leftover = append(leftover, p)
		}
		return nil
	})
	if len(leftover) > 0 {
		t.Errorf("temporary files left behind: %v", leftover)
	}
}

func TestReadFileDanglingLink(t *testing.T) {
	root := t.TempDir()
	if err := os.Symlink("gone.log", filepath.Join(root, "run.log")); err != nil {
		t.Fatal(err)
	}
	fsys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	_, err = fsys.ReadFile("run.log", 100)
	if want := "run.log: a symbolic link that leads nowhere"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("ReadFile(dangling link) = %v; want %q", err, want)
	}
}

func TestGlobRefusesALinkOut(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "evil.py"), []byte("X = 'SECRET-hunter2'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "scripts", "run.py"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "scripts", "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	fsys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	for _, tt := range []struct {
		pattern string
		want    string // the error, or "" for the match below
		match   []string
	}{
		{"scripts/**", "scripts/linked: leads outside the snapshot", nil},
		{"scripts/**/*.py", "scripts/linked: leads outside the snapshot", nil},
		{"docs/**", "", nil},                             // the links are not on its way
		{"scripts/*.py", "", []string{"scripts/run.py"}}, // no ** walk: the link is not a .py
	} {
		got, err := fsys.Glob(tt.pattern)
		switch {
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("Glob(%q) = %v, %v; want the error %q", tt.pattern, got, err, tt.want)
		case tt.want == "" && (err != nil || strings.Join(got, ",") != strings.Join(tt.match, ",")):
			t.Errorf("Glob(%q) = %v, %v; want %v", tt.pattern, got, err, tt.match)
		}
	}
}
