//go:build darwin && arm64

package spec

import (
	"testing"

	"github.com/strataspec/strataspec/engine/metal"
)

// strataEngine says why strata's runs cannot re-run here: on an M-series
// Mac they can (""), once a Metal device is found. With STRATA_CHECKOUT set
// a Mac without one fails: the user asked for live runs, and a broken setup
// must not report green. This file is cross-compiled and vetted from Linux
// (GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet, and go test -c), not run
// there; the code it serves (rerunCheckout, live_checkout_test.go) runs on
// Linux for llama.cpp runs and against the fake engine.
func strataEngine(t *testing.T) string {
	t.Helper()
	dev, err := metal.Probe()
	if err != nil {
		t.Fatalf("STRATA_CHECKOUT asks for live re-runs of strata runs, but this Mac has no usable Metal device: %v", err)
	}
	t.Logf("Metal device %q, unified memory %v, working set %d bytes", dev.Name, dev.UnifiedMemory, dev.RecommendedMaxWorkingSetSize)
	return ""
}
