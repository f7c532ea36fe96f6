package metal

import (
	"errors"
	"os"
	"runtime"
	"testing"
)

// TestProbe reports the Metal device this machine has. Where live re-runs
// were asked for (STRATA_CHECKOUT set) a missing or unfit device fails: a
// Mac that cannot run the engine must not report green. Elsewhere it only
// reports what it found: hosted macOS runners are virtual machines whose
// paravirtual device is no guide to an M-series Mac.
func TestProbe(t *testing.T) {
	d, err := Probe()
	required := os.Getenv("STRATA_CHECKOUT") != ""
	switch {
	case runtime.GOOS != "darwin":
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("Probe() on %s = %+v, %v; want ErrUnsupported", runtime.GOOS, d, err)
		}
		return
	case err != nil && required:
		t.Fatalf("Probe() = %v; live re-runs were asked for (STRATA_CHECKOUT=%s) and need a Metal device", err, os.Getenv("STRATA_CHECKOUT"))
	case err != nil:
		t.Skipf("no Metal device: %v (reported only: STRATA_CHECKOUT is not set)", err)
	}
	t.Logf("Metal device %q, unified memory %v, recommendedMaxWorkingSetSize %d bytes", d.Name, d.UnifiedMemory, d.RecommendedMaxWorkingSetSize)
	report := t.Logf
	if required {
		report = t.Errorf
	}
	if d.Name == "" || d.RecommendedMaxWorkingSetSize == 0 {
		report("Probe() = %+v; the engine needs a named device with a working set", d)
	}
	if runtime.GOARCH == "arm64" && !d.UnifiedMemory {
		report("Probe() on Apple silicon = %+v; the engine needs unified memory", d)
	}
}
