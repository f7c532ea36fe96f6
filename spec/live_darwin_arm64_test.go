//go:build darwin && arm64

package spec

import (
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/metal"
)

// Live re-runs of a strata checkout's recorded runs, on an M-series Mac with
// the checkout built:
//
//	STRATA_CHECKOUT=~/strata go test ./spec/ -run Live -v -timeout 4h
//
// STRATA_LIVE_RUNS (a regular expression) selects runs by name. Deterministic
// metrics must reproduce exactly; measured ones report their drift; the
// engine's printed prompt_region(false) footprint is set against the
// footprint proc_pid_rusage sampled. Each run gets 15 minutes, less when go
// test's -timeout leaves less (see runTimeout). This file is cross-compiled
// and vetted from Linux (GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet, and
// go test -c), not run there; the code it calls (rerunAll) runs on Linux
// against the fake engine (live_fake_test.go).

// liveCheckout returns the checkout to re-run. Without STRATA_CHECKOUT the
// live tests skip; with it, a Mac without a Metal device fails: the user
// asked for live runs, and a broken setup must not report green.
func liveCheckout(t *testing.T) string {
	t.Helper()
	root, ok := checkoutDir(t)
	if !ok {
		t.Skip("STRATA_CHECKOUT is not set: no strata checkout to re-run")
	}
	dev, err := metal.Probe()
	if err != nil {
		t.Fatalf("STRATA_CHECKOUT=%s asks for live re-runs, but this Mac has no usable Metal device: %v", root, err)
	}
	t.Logf("Metal device %q, unified memory %v, working set %d bytes", dev.Name, dev.UnifiedMemory, dev.RecommendedMaxWorkingSetSize)
	return root
}

// TestLiveRuns re-runs the checkout's strata runs and route_parity
// records (not the carried-over llama.cpp runs).
func TestLiveRuns(t *testing.T) {
	root := liveCheckout(t)
	ctx, err := audit.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	sel := liveSelection(t)
	runs := liveRuns(ctx, sel)
	if len(runs) == 0 {
		t.Fatalf("STRATA_LIVE_RUNS=%q selects none of the checkout's %d strata runs and %d route_parity records", sel, len(ctx.Snap.StrataRuns()), len(ctx.Snap.Parity))
	}
	rerunAll(t, runs, liveConfig{
		dir: root, timeout: 15 * time.Minute, minimum: 2 * time.Minute, every: 10 * time.Second,
		memory: true, tol: 0.15, progress: true,
	})
}
