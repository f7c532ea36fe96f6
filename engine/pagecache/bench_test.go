//go:build linux

package pagecache

import "testing"

// BenchmarkResidencyOf measures a mincore scan of a 256 MiB file, cached and
// evicted (the scan cost does not depend on residency much; both are shown).
func BenchmarkResidencyOf(b *testing.B) {
	path := writeFile(b, diskDir(b), "f", 256<<20)
	for _, state := range []string{"cached", "evicted"} {
		if state == "evicted" {
			if res, err := Evict(path); err != nil || !res.Verified {
				b.Fatalf("Evict = %+v, %v", res, err)
			}
		}
		b.Run(state, func(b *testing.B) {
			b.SetBytes(256 << 20)
			for b.Loop() {
				if _, err := ResidencyOf(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
