package spec

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/live"
)

// Live re-runs of the checkout STRATA_CHECKOUT names, on every platform:
//
//	STRATA_CHECKOUT=~/strata go test ./spec/ -run Live -v -timeout 4h
//	STRATA_CHECKOUT=~/llama-logs go test ./spec/ -run Live -v
//
// STRATA_LIVE_RUNS (a regular expression) selects runs by name. Its
// llama-cli and llama-bench runs re-run wherever their programs are in the
// checkout (the recorded argv[0], a bare name looked up in the spec file's
// live.bin folders); one whose program is not there is skipped naming the
// places looked in. Its strata runs and route_parity records re-run on
// darwin/arm64 only, where strata's Metal engine runs (strataEngine); on
// every other platform each is skipped with that reason, never passed.
// Deterministic metrics must reproduce exactly; measured ones report their
// drift; on darwin the engine's printed prompt_region(false) footprint is
// set against the footprint proc_pid_rusage sampled. Each run gets 15
// minutes, less when go test's -timeout leaves less (see runTimeout).

// TestLiveRuns re-runs the recorded runs of the checkout STRATA_CHECKOUT
// names; without it, it skips (the TestLiveFake* tests re-run the fixtures
// against the fake engines).
func TestLiveRuns(t *testing.T) {
	rerunCheckout(t, liveConfig{
		timeout: 15 * time.Minute, minimum: 2 * time.Minute, every: 10 * time.Second,
		memory: runtime.GOOS == "darwin", progress: true, // tol: the spec file's live.tolerance
	})
}

// rerunCheckout re-runs, as cfg says, every run of the checkout
// STRATA_CHECKOUT names that can be re-run here (checkoutRuns); cfg's dir
// and bin are the checkout's, and its tolerance, when cfg gives none, the
// spec file's live.tolerance (default 15 %).
func rerunCheckout(t *testing.T, cfg liveConfig) {
	t.Helper()
	root, ok := checkoutDir(t)
	if !ok {
		t.Skip("STRATA_CHECKOUT is not set: no checkout to re-run")
	}
	ctx, err := audit.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	sel := liveSelection(t)
	runs := checkoutRuns(t, ctx, root, sel, strataEngine)
	if len(runs) == 0 {
		t.Fatalf("STRATA_CHECKOUT=%s: STRATA_LIVE_RUNS=%q selects none of its %d runs and %d route_parity records", root, sel, len(ctx.Snap.Runs), len(ctx.Snap.Parity))
	}
	cfg.dir, cfg.bin = root, ctx.Snap.Spec.Live.Bin
	if cfg.tol == 0 {
		cfg.tol = ctx.Snap.Spec.Live.Tol()
	}
	skipped := 0
	for _, lr := range runs {
		if lr.skip != "" {
			skipped++
		}
	}
	t.Logf("STRATA_CHECKOUT=%s on %s/%s: %d runs, %d of them re-run here, %d skipped with the reason", root, runtime.GOOS, runtime.GOARCH, len(runs), len(runs)-skipped, skipped)
	rerunAll(t, runs, cfg)
}

// checkoutRuns returns the runs of the checkout at root (loaded as ctx)
// that are selected by name: the strata runs and route_parity records,
// skipped with the reason engine gives where strata's engine cannot run (""
// where it can); then the llama.cpp runs, skipped where their program is not
// in the checkout (live.ErrNoProgram, naming the places looked in) or is not
// re-run (llamaSkip); then the runs that recorded no environment and those
// of a program that is neither, each skipped saying so. A program that leads
// out of the checkout is not skipped: its re-run fails, refusing it.
func checkoutRuns(t *testing.T, ctx *audit.Context, root string, sel *regexp.Regexp, engine func(*testing.T) string) []liveRun {
	t.Helper()
	runs := liveRuns(ctx, sel)
	if len(runs) > 0 {
		if why := engine(t); why != "" {
			for i := range runs {
				runs[i].skip = why
			}
		}
	}
	for _, lr := range liveLlamaRuns(t, ctx, sel) {
		if lr.skip != "" || len(lr.run.Cmd) == 0 { // an empty command fails its re-run, naming the run
			runs = append(runs, lr)
			continue
		}
		if _, err := live.ResolveIn(root, ctx.Snap.Spec.Live.Bin, lr.run.Cmd[0]); errors.Is(err, live.ErrNoProgram) {
			lr.skip = fmt.Sprintf("%v: put the llama.cpp build's programs there, or name their folder in strataspec.json live.bin", err)
		}
		runs = append(runs, lr)
	}
	for _, r := range ctx.Snap.Runs {
		switch {
		case !sel.MatchString(r.Name):
		case r.CarriedOver:
			runs = append(runs, liveRun{run: r, skip: fmt.Sprintf("%s: %v", r.Name, live.ErrCarriedOver)})
		case r.Env == nil:
			runs = append(runs, liveRun{run: r, skip: r.Name + ": its environment was not recorded (no env in its record or sidecar), so it cannot re-run as it ran"})
		case !r.Strata() && !audit.IsLlamaCpp(r):
			runs = append(runs, liveRun{run: r, skip: fmt.Sprintf("%s: its program %q is neither strata's engine nor a llama.cpp program (strataspec.json \"programs\"), so a fresh output of it could not be compared", r.Name, first(r.Cmd))})
		}
	}
	return runs
}

// first returns argv[0], "" for an empty command.
func first(cmd []string) string {
	if len(cmd) == 0 {
		return ""
	}
	return cmd[0]
}
