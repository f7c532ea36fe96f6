//go:build darwin && arm64

// Mac-only: cross-compiled and vetted from Linux, not run there.

package pagecache

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDarwinEvictWarm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 64<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mincoreSym(); err != nil {
		t.Fatalf("resolving libSystem's mincore: %v", err)
	}
	if ps := os.Getpagesize(); ps != 16384 {
		t.Errorf("page size %d; Apple silicon pages are 16 KiB", ps)
	}
	if res, err := Warm(path); err != nil || !res.Verified || res.After.Resident != res.After.Total {
		t.Fatalf("Warm = %+v, %v; want every page resident", res, err)
	}
	res, err := Evict(path)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified || res.After.Fraction() > EvictTolerance {
		t.Errorf("Evict = verified %v, %v → %v, reasons %+v; want ≤ 1 %% resident", res.Verified, res.Before.Count, res.After.Count, res.Reasons)
	}
	if r, err := Residency(path); err != nil || r.Fraction() > EvictTolerance {
		t.Errorf("after Evict: %v, %v; want ≤ 1 %% resident", r.Count, err)
	}
}
