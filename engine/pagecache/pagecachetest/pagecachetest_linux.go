//go:build linux

package pagecachetest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// MemoryFS reports whether dir is on a file system that keeps its files
// only in memory (tmpfs, ramfs, hugetlbfs), where pages cannot be evicted.
// A directory that cannot be examined counts as one: no test should trust it.
func MemoryFS(dir string) bool {
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) != nil {
		return true
	}
	switch uint32(fs.Type) {
	case unix.TMPFS_MAGIC, unix.RAMFS_MAGIC, unix.HUGETLBFS_MAGIC:
		return true
	}
	return false
}

// DiskDir returns a fresh directory on a disk-backed file system, removed
// when the test ends, or skips the test saying why there is none. It tries
// the temporary directory, the user's cache directory, then the working
// directory.
func DiskDir(t testing.TB) string {
	t.Helper()
	bases := []string{os.TempDir()}
	if d, err := os.UserCacheDir(); err == nil {
		bases = append(bases, d)
	}
	if d, err := os.Getwd(); err == nil {
		bases = append(bases, d)
	}
	for _, b := range bases {
		if MemoryFS(b) {
			continue
		}
		d, err := os.MkdirTemp(b, "pagecache-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	t.Skipf("no disk-backed directory among %q: eviction cannot be tested", bases)
	return ""
}

// CachedFile writes size bytes of a non-zero pattern to dir/name and
// fsyncs them, and returns the path. Every page of the file is resident
// (written through the cache) and clean (on disk) afterwards.
func CachedFile(t testing.TB, dir, name string, size int) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i*7 + 1)
	}
	for n := 0; n < size; n += len(buf) {
		if _, err := f.Write(buf[:min(len(buf), size-n)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
