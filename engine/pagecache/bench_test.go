//go:build linux

package pagecache

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/strataspec/strataspec/engine/pagecache/pagecachetest"
)

// BenchmarkResidency measures a whole-file count of a 256 MiB file, cached
// and evicted, with the default method (cachestat where the kernel has it)
// and with mincore page by page.
func BenchmarkResidency(b *testing.B) {
	path := pagecachetest.CachedFile(b, pagecachetest.DiskDir(b), "f", 256<<20)
	for _, state := range []string{"cached", "evicted"} {
		if state == "evicted" {
			if res, err := Evict(path); err != nil || !res.Verified {
				b.Fatalf("Evict = %+v, %v", res, err)
			}
		}
		for _, o := range []Options{{}, {Mincore: true}} {
			name := state + "/default"
			if o.Mincore {
				name = state + "/mincore"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(256 << 20)
				for b.Loop() {
					if _, err := o.Residency(path); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDirtySpans finds the dirty pages of a 64 MiB file, the search an
// eviction without Sync makes before it advises anything: clean (one
// cachestat call), one dirty run of 2 MiB, and the worst case, every other
// page dirty (the bisection visits every range: about two calls a page).
func BenchmarkDirtySpans(b *testing.B) {
	const size = 64 << 20
	ps := int64(os.Getpagesize())
	for _, tc := range []struct {
		name  string
		dirty func(f *os.File) error
	}{
		{"clean", func(*os.File) error { return nil }},
		{"one-run", func(f *os.File) error { _, err := f.WriteAt(make([]byte, 2<<20), 8<<20); return err }},
		{"alternate", func(f *os.File) error {
			// Page-sized folios first: drop the file's (possibly large)
			// folios and read it back a page at a time without read-ahead,
			// so that a write dirties one page, not a whole folio.
			if err := sys.evict(f, size, true); err != nil {
				return err
			}
			if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_RANDOM); err != nil {
				return err
			}
			page := make([]byte, ps)
			for off := int64(0); off < size; off += ps {
				if _, err := f.ReadAt(page, off); err != nil {
					return err
				}
			}
			for off := int64(0); off < size; off += 2 * ps {
				if _, err := f.WriteAt([]byte{1}, off); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		path := pagecachetest.CachedFile(b, pagecachetest.DiskDir(b), "f", size)
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			b.Fatal(err)
		}
		if err := tc.dirty(f); err != nil {
			b.Fatal(err)
		}
		count, err := sys.counter(f)
		if err != nil {
			f.Close()
			b.Skipf("no cachestat: %v", err)
		}
		b.Run(tc.name, func(b *testing.B) {
			var spans []Span
			for b.Loop() {
				if spans, err = dirtySpans(count, size/ps); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(spans)), "runs")
		})
		f.Close()
	}
}
