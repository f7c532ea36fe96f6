//go:build linux

package pagecache

import (
	"testing"

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
