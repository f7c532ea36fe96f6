package pagecache

import (
	"os"
	"path/filepath"
	"testing"
)

// reclaimingPlatform counts a file as partly resident after its first read
// pass, as when the kernel reclaims pages under memory pressure before they
// are counted, and fully resident after later passes. It counts the passes
// through the reads' effect: each measure after the first sees one more pass.
type reclaimingPlatform struct {
	measures int
	partial  int // how many post-read measures report missing pages
}

func (p *reclaimingPlatform) measure(f *os.File, size int64, _ []Range, _ bool) (Reading, error) {
	p.measures++
	total := (size + 4095) / 4096
	r := Reading{Path: f.Name(), Size: size, PageSize: 4096, Count: Count{Total: total}, Method: "fake"}
	switch {
	case p.measures == 1: // before: cold
	case p.measures-1 <= p.partial:
		r.Resident = total - 16
	default:
		r.Resident = total
	}
	return r, nil
}
func (*reclaimingPlatform) noPageCache(*os.File) string       { return "" }
func (*reclaimingPlatform) evict(*os.File, int64, bool) error { return nil }
func (*reclaimingPlatform) adviseSequential(*os.File)         {}
func (*reclaimingPlatform) explain(*os.File, int64, Reading) (Reading, []Stay, error) {
	return Reading{}, nil, nil
}

func TestWarmReadsAgainAfterReclaim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	const size = 3 << 20
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		partial   int
		verified  bool
		wantBytes int64
	}{
		{0, true, size},                        // resident after one pass
		{1, true, 2 * size},                    // one pass lost pages: read again
		{warmPasses, false, warmPasses * size}, // still short after every pass: not verified, says so
	} {
		p := &reclaimingPlatform{partial: tt.partial}
		res, err := warm(p, path, true)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verified != tt.verified || res.Bytes != tt.wantBytes {
			t.Errorf("warm with %d short passes = verified %v, %d bytes; want %v, %d", tt.partial, res.Verified, res.Bytes, tt.verified, tt.wantBytes)
		}
		if !tt.verified && len(res.Reasons) == 0 {
			t.Errorf("warm with %d short passes: unverified without a reason", tt.partial)
		}
	}
}
