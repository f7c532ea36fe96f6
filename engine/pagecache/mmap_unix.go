//go:build linux || darwin

package pagecache

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// window is the largest mapping made at once, so that files larger than the
// address space a process can spare are measured and evicted in pieces. It is
// a multiple of every page size (4 KiB, 16 KiB, 64 KiB).
const window = 1 << 30

// eachWindow maps f read-only and shared, window by window, and calls fn with
// each mapping and the offset it starts at. An empty file is never mapped
// (mmap rejects a zero length).
func eachWindow(f *os.File, size int64, fn func(m []byte, off int64) error) error {
	fd := int(f.Fd())
	for off := int64(0); off < size; off += window {
		n := min(int64(window), size-off)
		m, err := unix.Mmap(fd, off, int(n), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return fmt.Errorf("pagecache: mmap %s at offset %d (%d bytes): %w", f.Name(), off, n, err)
		}
		err = fn(m, off)
		if uerr := unix.Munmap(m); err == nil && uerr != nil {
			err = fmt.Errorf("pagecache: munmap %s at offset %d: %w", f.Name(), off, uerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mincoreFile returns one byte per page of f, bit 0 set when the page is
// resident, calling mincore (the system's) on each window.
func mincoreFile(f *os.File, size int64, pageSize int, mincore func(m, vec []byte) error) ([]byte, error) {
	ps := int64(pageSize)
	vec := make([]byte, (size+ps-1)/ps)
	err := eachWindow(f, size, func(m []byte, off int64) error {
		// The kernel looks pages up one by one; split the window across
		// CPUs (each call takes the mapping lock shared).
		workers := min(runtime.GOMAXPROCS(0), (len(m)+parallelMin-1)/parallelMin)
		chunk := (len(m)/workers + pageSize - 1) / pageSize * pageSize
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			lo, hi := w*chunk, min((w+1)*chunk, len(m))
			if lo >= hi {
				continue
			}
			first := (off + int64(lo)) / ps
			v := vec[first : first+(int64(hi-lo)+ps-1)/ps]
			wg.Go(func() {
				if err := mincore(m[lo:hi], v); err != nil {
					errs[w] = fmt.Errorf("pagecache: mincore %s at offset %d: %w", f.Name(), off+int64(lo), err)
				}
			})
		}
		wg.Wait()
		return errors.Join(errs...)
	})
	return vec, err
}

// parallelMin is the smallest piece of a window worth its own goroutine.
const parallelMin = 64 << 20
