//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strataspec/strataspec/engine/pagecache"
	"github.com/strataspec/strataspec/engine/pagecache/pagecachetest"
)

// byMincore counts pages with mincore: the tests' independent reading.
var byMincore = pagecache.Options{Mincore: true}

func TestEvictJSON(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", 4<<20)
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"-evict", "-format", "json", path})
	got, err := pagecache.ParseDocument("stdout", out.Bytes())
	if err != nil {
		t.Fatalf("output is not a residency document: %v\n%s", err, out.String())
	}
	if code != 0 || got.Verified == nil || !*got.Verified || len(got.Files) != 1 || got.Files[0].Result == nil {
		t.Fatalf("run(-evict) = %d, %+v, stderr %q; want 0, verified", code, got, errb.String())
	}
	r := *got.Files[0].Result
	if r.Before.Fraction() != 1 || r.After.Resident != 0 {
		t.Errorf("evict reported %v → %v; want 100 %% → none", r.Before.Count, r.After.Count)
	}
	// The report must match an independent reading.
	now, err := byMincore.Residency(path)
	if err != nil || now.Resident != 0 {
		t.Errorf("after run(-evict): %v, %v; want none resident", now.Count, err)
	}

	out.Reset()
	if code := run(&out, &errb, []string{"-warm", "-mincore", path}); code != 0 || !strings.Contains(out.String(), "(100.00 %) resident (mincore), verified") {
		t.Errorf("run(-warm) = %d, %q; want 0 and 100 %% verified", code, out.String())
	}
	if now, err := byMincore.Residency(path); err != nil || now.Resident != now.Total {
		t.Errorf("after run(-warm): %v, %v; want all resident", now.Count, err)
	}
}

func TestEvictTmpfs(t *testing.T) {
	if !pagecachetest.MemoryFS("/dev/shm") {
		t.Skip("no tmpfs at /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "residency-test-")
	if err != nil {
		t.Fatalf("/dev/shm is a tmpfs but not writable: %v", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"-evict", path})
	if code != 1 || !strings.Contains(out.String(), "NOT verified") || !strings.Contains(out.String(), "pages tmpfs") {
		t.Errorf("run(-evict %s) = %d, %q; want 1, not verified, tmpfs named", path, code, out.String())
	}
	out.Reset()
	code = run(&out, &errb, []string{"-evict", "-format", "json", path})
	var got struct {
		Verified bool
		Files    []struct{ Result pagecache.Result }
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	if code != 1 || got.Verified || len(got.Files) != 1 || len(got.Files[0].Result.Reasons) == 0 ||
		got.Files[0].Result.Reasons[0].Reason != pagecache.ReasonTmpfs {
		t.Errorf("run(-evict -format json %s) = %d, %+v; want 1, not verified, reason tmpfs", path, code, got)
	}
	if now, err := byMincore.Residency(path); err != nil || now.Resident != now.Total {
		t.Errorf("tmpfs file after evict: %v, %v; want still all resident", now.Count, err)
	}
}

// TestEvictLocked locks 2 MiB of a 32 MiB cached file, as `vmtouch -dl -p`
// does: the eviction drops the rest, exits 1 and names the locked pages.
func TestEvictLocked(t *testing.T) {
	const off, n = 4 << 20, 2 << 20
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", 32<<20)
	pagecachetest.Lock(t, path, off, n)
	ps := os.Getpagesize()
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"-evict", path})
	want := fmt.Sprintf("%d pages locked: mlocked by pid %d (this process): pages %d-%d", n/ps, os.Getpid(), off/ps, (off+n)/ps-1)
	if code != 1 || !strings.Contains(out.String(), "NOT verified") || !strings.Contains(out.String(), want) {
		t.Errorf("run(-evict, 2 MiB locked) = %d, %q; want 1, NOT verified, %q", code, out.String(), want)
	}
	if now, err := byMincore.Residency(path); err != nil || now.Resident != int64(n/ps) {
		t.Errorf("after run(-evict): %v, %v; want the %d locked pages only", now.Count, err, n/ps)
	}
}

// TestEvictDirty dirties a cached file: without -sync the dirty pages are
// not written back and the eviction exits 1 naming them; with -sync they are
// written back and evicted, exit 0.
func TestEvictDirty(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", 1<<20)
	// Overwritten in place: ext4 starts write-back at the close of a file
	// truncated on open (auto_da_alloc), which would clean the pages.
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, 1<<20), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"-evict", path})
	if r, err := byMincore.Residency(path); err != nil || r.Method != "mincore" {
		t.Fatal(r, err)
	} else if r.Dirty == 0 {
		t.Skip("no dirty count on this kernel (cachestat, Linux 6.5+)")
	}
	pages := (1 << 20) / os.Getpagesize()
	if want := fmt.Sprintf("%d pages dirty", pages); code != 1 || !strings.Contains(out.String(), want) {
		t.Errorf("run(-evict, dirty file) = %d, %q, %q; want 1 and %q", code, out.String(), errb.String(), want)
	}
	out.Reset()
	if code := run(&out, &errb, []string{"-evict", "-sync", path}); code != 0 || !strings.Contains(out.String(), "evict -sync") {
		t.Errorf("run(-evict -sync, dirty file) = %d, %q; want 0", code, out.String())
	}
	if now, err := byMincore.Residency(path); err != nil || now.Resident != 0 || now.Dirty != 0 {
		t.Errorf("after run(-evict -sync): %v (%d dirty), %v; want none resident", now.Count, now.Dirty, err)
	}
}

// TestRefused gives files with no page cache: each is refused with exit 2,
// at once (a FIFO must not block), for every operation.
func TestRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{"/proc/self/status", "no page cache: a file of procfs"},
		{fifo, "no page cache: a named pipe (FIFO), not a regular file"},
		{"/dev/null", "no page cache: a device, not a regular file"},
	} {
		for _, op := range [][]string{nil, {"-evict"}, {"-warm"}, {"-evict", "-format", "json"}} {
			args := append(op[:len(op):len(op)], tt.path)
			var out, errb bytes.Buffer
			code := 0
			pagecachetest.WithTimeout(t, 10*time.Second, func() error {
				code = run(&out, &errb, args)
				return nil
			})
			if code != 2 || !strings.Contains(errb.String(), tt.want) || strings.Contains(out.String(), "verified") && !strings.Contains(out.String(), `"verified": false`) {
				t.Errorf("run(%q) = %d, stdout %q, stderr %q; want 2, %q, nothing verified", args, code, out.String(), errb.String(), tt.want)
			}
		}
	}
}
