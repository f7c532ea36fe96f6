package metal

import (
	"errors"
	"runtime"
	"testing"
)

func TestProbe(t *testing.T) {
	d, err := Probe()
	switch {
	case runtime.GOOS != "darwin":
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("Probe() on %s = %+v, %v; want ErrUnsupported", runtime.GOOS, d, err)
		}
	case err != nil:
		t.Skipf("no Metal device: %v", err)
	default:
		if d.Name == "" || d.RecommendedMaxWorkingSetSize == 0 {
			t.Errorf("Probe() = %+v; want a named device with a working set", d)
		}
		if runtime.GOARCH == "arm64" && !d.UnifiedMemory {
			t.Errorf("Probe() on Apple silicon = %+v; want unified memory", d)
		}
	}
}
