//go:build darwin && arm64

// Mac-only: cross-compiled and vetted from Linux, not run there.

package pagecache

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestDarwinEvictWarm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 64<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	// Clean pages: the eviction under test is of clean pages, as on Linux.
	if f, err := os.Open(path); err != nil {
		t.Fatal(err)
	} else if err := f.Sync(); err != nil {
		t.Fatal(err)
	} else {
		f.Close()
	}
	if _, err := mincoreSym(); err != nil {
		t.Fatalf("resolving libSystem's mincore: %v", err)
	}
	if res, err := Warm(path); err != nil || !res.Verified || res.After.Resident != res.After.Total {
		t.Fatalf("Warm = %+v, %v; want every page resident", res, err)
	}
	res, err := Evict(path)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified || res.After.Resident != 0 {
		t.Errorf("Evict = verified %v, %v → %v, reasons %+v; want no page resident", res.Verified, res.Before.Count, res.After.Count, res.Reasons)
	}
	if r, err := Residency(path); err != nil || r.Resident != 0 {
		t.Errorf("after Evict: %v, %v; want no page resident", r.Count, err)
	}
}

// TestDarwinConstants pins the values the eviction and the residency count
// rely on to <sys/mman.h> and <mach/vm_param.h> of macOS on Apple silicon.
func TestDarwinConstants(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"MS_SYNC", unix.MS_SYNC, 0x10},
		{"MS_INVALIDATE", unix.MS_INVALIDATE, 0x2},
		{"page size", os.Getpagesize(), 16384},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x; want %#x", c.name, c.got, c.want)
		}
	}
}
