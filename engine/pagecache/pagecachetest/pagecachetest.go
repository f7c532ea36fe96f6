//go:build linux || darwin

package pagecachetest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

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

// Lock maps n bytes of path from offset off into this process and mlocks
// them, as `vmtouch -l -p` does, until the test ends. off must be a multiple
// of the page size.
func Lock(t testing.TB, path string, off int64, n int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), off, n, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatalf("mmap %s at %d (%d bytes): %v", path, off, n, err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	if err := unix.Mlock(m); err != nil {
		t.Skipf("mlock %s at %d (%d bytes): %v", path, off, n, err)
	}
}
