package metal

import (
	"errors"
	"os"
	"runtime"
	"testing"
)

// TestProbe reports the Metal device this machine has. Where live re-runs
// were asked for (STRATA_CHECKOUT set) a missing device fails: a Mac that
// cannot run the engine must not report green. Elsewhere (hosted macOS
// runners are virtual machines without a usable Metal device) it reports
// what it found and skips.
func TestProbe(t *testing.T) {
	d, err := Probe()
	switch {
	case runtime.GOOS != "darwin":
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("Probe() on %s = %+v, %v; want ErrUnsupported", runtime.GOOS, d, err)
		}
	case err != nil && os.Getenv("STRATA_CHECKOUT") != "":
		t.Fatalf("Probe() = %v; live re-runs were asked for (STRATA_CHECKOUT=%s) and need a Metal device", err, os.Getenv("STRATA_CHECKOUT"))
	case err != nil:
		t.Skipf("no Metal device: %v (reported only: STRATA_CHECKOUT is not set)", err)
	default:
		t.Logf("Metal device %q, unified memory %v, recommendedMaxWorkingSetSize %d bytes", d.Name, d.UnifiedMemory, d.RecommendedMaxWorkingSetSize)
		if d.Name == "" || d.RecommendedMaxWorkingSetSize == 0 {
			t.Errorf("Probe() = %+v; want a named device with a working set", d)
		}
		if runtime.GOARCH == "arm64" && !d.UnifiedMemory {
			t.Errorf("Probe() on Apple silicon = %+v; want unified memory", d)
		}
	}
}
