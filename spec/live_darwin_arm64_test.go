//go:build darwin && arm64

package spec

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/live"
	"github.com/strataspec/strataspec/engine/metal"
	"github.com/strataspec/strataspec/engine/tail"
)

// Live re-runs need an M-series Mac with a built strata checkout:
//
//	STRATA_CHECKOUT=~/strata go test ./spec/ -run Live -v
//
// STRATA_LIVE_RUNS (a regular expression) selects runs by name; measured
// metrics are logged with their drift, deterministic ones must reproduce
// exactly. This file was cross-compiled and vetted from Linux
// (GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet ./...), not run.

func liveCheckout(t *testing.T) (string, *regexp.Regexp) {
	t.Helper()
	root := os.Getenv("STRATA_CHECKOUT")
	if root == "" {
		t.Skip("STRATA_CHECKOUT is not set: no strata checkout to re-run")
	}
	if testing.Short() {
		t.Skip("live re-runs take minutes; skipped with -short")
	}
	dev, err := metal.Probe()
	if err != nil {
		t.Skipf("no Metal device: %v", err)
	}
	t.Logf("Metal device %q, unified memory %v, working set %d bytes", dev.Name, dev.UnifiedMemory, dev.RecommendedMaxWorkingSetSize)
	sel := regexp.MustCompile(os.Getenv("STRATA_LIVE_RUNS"))
	return root, sel
}

func liveOptions(root string) live.Options {
	return live.Options{
		Dir:     root,
		Timeout: 15 * time.Minute,
		Resolve: func(argv0 string) (string, error) {
			if filepath.IsAbs(argv0) {
				return argv0, nil
			}
			return filepath.Join(root, argv0), nil
		},
	}
}

func checkDrift(t *testing.T, archived, fresh *tail.Metrics) {
	t.Helper()
	if archived == nil || len(archived.List) == 0 {
		t.Fatal("the archived tail has no parsed metric: nothing to compare the re-run with")
	}
	for _, d := range live.Compare(archived, fresh, live.Classify, 0.15) {
		switch {
		case d.OK:
		case d.Kind == live.Deterministic:
			t.Errorf("%s: %s", d.Metric, d.Why)
		default:
			t.Logf("drift: %s %s → %s: %s", d.Metric, d.Archived, d.Fresh, d.Why)
		}
	}
}

// TestLiveRouteParity re-runs the archived route_parity records: every
// error must reproduce exactly, as the three archived repeats did.
func TestLiveRouteParity(t *testing.T) {
	root, sel := liveCheckout(t)
	ctx, err := audit.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rec := range ctx.Snap.Parity {
		if !sel.MatchString(rec.Name) {
			continue
		}
		n++
		t.Run(rec.Name, func(t *testing.T) {
			run := &archive.Run{Name: rec.Name, Cmd: rec.Cmd, Env: rec.Env, ExitCode: rec.Exit}
			fresh, err := live.Rerun(context.Background(), run, liveOptions(root))
			if err != nil {
				t.Fatal(err)
			}
			if fresh.ExitCode != rec.Exit {
				t.Errorf("exit %d; archived %d", fresh.ExitCode, rec.Exit)
			}
			checkDrift(t, ctx.Metrics[rec.File], tail.ParseRouteParity(fresh.Source, fresh.Tail))
		})
	}
	if n == 0 {
		t.Errorf("STRATA_LIVE_RUNS=%q selects none of the %d route_parity records", sel, len(ctx.Snap.Parity))
	}
}

// TestLiveStrataRuns re-runs the archived strata runs (not the carried-over
// llama.cpp ones) and compares their metrics with the archive.
func TestLiveStrataRuns(t *testing.T) {
	root, sel := liveCheckout(t)
	ctx, err := audit.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range ctx.Snap.Runs {
		if r.CarriedOver || audit.IsLlamaCpp(r) || !sel.MatchString(r.Name) {
			continue
		}
		n++
		t.Run(r.Name, func(t *testing.T) {
			fresh, err := live.Rerun(context.Background(), r, liveOptions(root))
			if err != nil {
				t.Fatal(err)
			}
			if fresh.ExitCode != r.ExitCode {
				t.Errorf("exit %d; archived %d", fresh.ExitCode, r.ExitCode)
			}
			checkDrift(t, ctx.Metrics[r.Name], audit.ParseRun(fresh))
		})
	}
	if n == 0 {
		t.Errorf("STRATA_LIVE_RUNS=%q selects none of the %d archived strata runs", sel, len(ctx.Snap.StrataRuns()))
	}
}
