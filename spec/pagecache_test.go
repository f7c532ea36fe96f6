//go:build linux

package spec

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/strataspec/strataspec/engine/pagecache"
	"github.com/strataspec/strataspec/engine/pagecache/pagecachetest"
)

// The page-cache specification (audit §3, F26–F27): an eviction is verified
// by measuring residency with mincore, never by a return code. Every test
// here asserts residency as measured after the operation.

// pcResidency counts path's resident pages with mincore, page by page.
func pcResidency(t *testing.T, path string) pagecache.Count {
	t.Helper()
	r, err := pagecache.Options{Mincore: true}.Residency(path)
	if err != nil {
		t.Fatal(err)
	}
	return r.Count
}

const pcSize = 32 << 20

func TestPageCacheEvictThenWarm(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "experts", pcSize)
	if c := pcResidency(t, path); c.Resident != c.Total || c.Total == 0 {
		t.Fatalf("freshly written file: %v; want fully resident", c)
	}
	if res, err := pagecache.Evict(path); err != nil || !res.Verified {
		t.Fatalf("Evict(%q) = %+v, %v; want verified", path, res, err)
	}
	if c := pcResidency(t, path); c.Fraction() > 0.01 {
		t.Errorf("after Evict(%q): %v; want ≤ 1 %% resident", path, c)
	}
	if res, err := pagecache.Warm(path); err != nil || !res.Verified {
		t.Fatalf("Warm(%q) = %+v, %v; want verified", path, res, err)
	}
	if c := pcResidency(t, path); c.Resident != c.Total {
		t.Errorf("after Warm(%q): %v; want 100 %% resident", path, c)
	}
}

// TestPageCacheSeedEvictionIsNoOp reproduces the audited helper —
// madvise(MADV_DONTNEED) on a PROT_READ, MAP_SHARED mapping, which returns
// success — and shows the measurement sees that nothing left the cache,
// where Evict on the same file does empty it.
func TestPageCacheSeedEvictionIsNoOp(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "dense.gguf", pcSize)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, pcSize, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Madvise(m, unix.MADV_DONTNEED); err != nil {
		t.Fatalf("madvise(MADV_DONTNEED) = %v; the audited helper saw success", err)
	}
	if err := unix.Munmap(m); err != nil {
		t.Fatal(err)
	}
	if c := pcResidency(t, path); c.Fraction() < 0.99 {
		t.Errorf("after madvise(MADV_DONTNEED): %v; the audited helper is a no-op, want ≥ 99 %% still resident", c)
	}
	res, err := pagecache.Evict(path)
	if err != nil || !res.Verified || res.Before.Fraction() < 0.99 {
		t.Fatalf("Evict(%q) after the no-op = %+v, %v; want verified from ~100 %%", path, res, err)
	}
	if c := pcResidency(t, path); c.Fraction() > 0.01 {
		t.Errorf("after Evict(%q): %v; want ≤ 1 %%", path, c)
	}
}

func TestPageCacheTmpfsNotEvictable(t *testing.T) {
	if !pagecachetest.MemoryFS("/dev/shm") {
		t.Skip("no tmpfs at /dev/shm")
	}
	d, err := os.MkdirTemp("/dev/shm", "strataspec-pagecache-")
	if err != nil {
		t.Fatalf("/dev/shm is a tmpfs but not writable: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	path := filepath.Join(d, "f")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := pagecache.Evict(path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verified || len(res.Reasons) == 0 || res.Reasons[0].Reason != pagecache.ReasonTmpfs {
		t.Errorf("Evict(tmpfs file) = verified %v, reasons %+v; want not verified, tmpfs", res.Verified, res.Reasons)
	}
	if c := pcResidency(t, path); c.Resident != c.Total {
		t.Errorf("tmpfs file after Evict: %v; want all pages still resident", c)
	}
}
