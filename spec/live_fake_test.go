//go:build unix

package spec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/live"
	"github.com/strataspec/strataspec/engine/live/livetest"
	"github.com/strataspec/strataspec/engine/runconf"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// The live re-runs on every platform: the recorded runs of fixtures/m5 re-run
// against the fake engine (engine/live/livetest), installed in a temporary
// checkout at each run's recorded program path. Each re-run goes through the
// same code as on a Mac (rerunAll); the fake prints every deterministic
// metric as archived and moves every measured one by up to ±3 %.

// fakeCheckout builds the fake engine into a temporary checkout at the
// program path of every run, and returns the checkout and the runs.
func fakeCheckout(t *testing.T) (string, []liveRun) {
	t.Helper()
	runs := liveRuns(loadSnap(t, "m5"), regexp.MustCompile(""))
	if len(runs) == 0 {
		t.Fatal("fixtures/m5 has no run to re-run")
	}
	dir := t.TempDir()
	installFake(t, dir, runs)
	return dir, runs
}

// installFake builds the fake engine and installs it in the checkout dir
// at the recorded program path of every run.
func installFake(t *testing.T, dir string, runs []liveRun) {
	t.Helper()
	fake := livetest.Build(t, t.TempDir())
	installed := map[string]bool{}
	for _, lr := range runs {
		if argv0 := lr.run.Cmd[0]; !installed[argv0] {
			installed[argv0] = true
			livetest.Install(t, fake, dir, argv0)
		}
	}
}

// fakeReplay is the fake engine's replay of lr: its archived output with
// measured metrics jittered, started with its recorded argv and environment
// (or the fake exits 97 and the exit code check fails).
func fakeReplay(i int, lr liveRun) *livetest.Replay {
	parser := livetest.Strata
	switch {
	case lr.parity:
		parser = livetest.RouteParity
	case audit.IsLlamaCpp(lr.run):
		parser = lr.run.Parser // livetest's llama.cpp parsers are checkout's names
	}
	return &livetest.Replay{Output: lr.text, Parser: parser, Jitter: 0.03, Seed: uint64(i + 1),
		Exit: lr.run.ExitCode, WantArgs: lr.run.Cmd[1:], WantEnv: lr.run.Env, LineDelay: time.Millisecond}
}

// TestLiveFakeEngine re-runs every strata run and route_parity record of
// fixtures/m5 against the fake engine: deterministic metrics must come back
// exactly, measured ones within the 15 % drift.
func TestLiveFakeEngine(t *testing.T) {
	dir, runs := fakeCheckout(t)
	rerunAll(t, runs, liveConfig{
		dir: dir, timeout: 2 * time.Minute, minimum: time.Second, every: 20 * time.Millisecond,
		tol: 0.15, strict: true, progress: testing.Verbose(), pass: []string{livetest.EnvReplay},
		before: func(t *testing.T, i int, lr liveRun) { livetest.Use(t, fakeReplay(i, lr)) },
	})
}

// TestLiveFakeEngineFails shows the re-runs fail as they should: a hung run
// is killed with its process group at its timeout, a program outside the
// checkout is refused with its path, and a deterministic metric that changed
// or a measured one beyond the drift is named.
func TestLiveFakeEngineFails(t *testing.T) {
	dir, runs := fakeCheckout(t)
	// The runs that finish get a generous timeout: they return as soon as
	// the fake engine exits, and a loaded machine cannot make them miss it
	// (400 ms once did). Only the hung run is timed out, and it hangs
	// whatever the load.
	cfg := liveConfig{dir: dir, timeout: 2 * time.Minute, minimum: time.Second, every: time.Second, tol: 0.15, pass: []string{livetest.EnvReplay}}
	lr := runs[0]

	t.Run("hang", func(t *testing.T) {
		rp := fakeReplay(0, lr)
		rp.Hang = true
		rp.ChildPIDFile = filepath.Join(t.TempDir(), "child.pid")
		livetest.Use(t, rp)
		// A WaitDelay far past the timeout: a hung engine's child holds
		// the output open, and only the kill of its process group lets the
		// re-run return before it. The bound below sits halfway, far from
		// the timeout on either side, so load cannot decide it.
		// A machine too loaded for the engine to start its child within
		// the timeout gets the run again with a longer one (a signal, the
		// child's pid file, not the clock, says the hang was reached).
		hang := cfg
		hang.timeout, hang.minimum, hang.wait = 400*time.Millisecond, 100*time.Millisecond, 2*time.Minute
		var err error
		var start time.Time
		for try := 0; ; try++ {
			os.Remove(rp.ChildPIDFile)
			start = time.Now()
			_, _, err = rerun(t, 1, 1, lr, hang)
			if _, serr := os.Stat(rp.ChildPIDFile); serr == nil || try == 3 {
				break
			}
			hang.timeout *= 4
		}
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "process group") {
			t.Fatalf("re-run of a hanging engine = %v; want killed with its process group at the timeout", err)
		}
		if took := time.Since(start); took > time.Minute {
			t.Errorf("re-run of a hanging engine (timeout %v, WaitDelay 2m) took %v: the output stayed open until the WaitDelay", hang.timeout, took)
		}
		if pid, gone := livetest.ChildGone(t, rp.ChildPIDFile, 30*time.Second); !gone {
			t.Errorf("the hung engine's child (pid %d) is still alive: its process group was not killed", pid)
		}
	})

	t.Run("outside", func(t *testing.T) {
		livetest.Use(t, fakeReplay(0, lr))
		abs := *lr.run
		abs.Cmd = append([]string{filepath.Join(dir, lr.run.Cmd[0])}, lr.run.Cmd[1:]...)
		out := lr
		out.run = &abs
		_, _, err := rerun(t, 1, 1, out, cfg)
		if !errors.Is(err, live.ErrOutsideCheckout) || !strings.Contains(err.Error(), abs.Cmd[0]) {
			t.Errorf("re-run of argv[0] %s = %v; want refused naming the path", abs.Cmd[0], err)
		}
	})

	t.Run("drift", func(t *testing.T) {
		rp := fakeReplay(0, lr)
		rp.Jitter = 0.6
		livetest.Use(t, rp)
		_, drifts, err := rerun(t, 1, 1, lr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var det, meas []string
		for _, d := range drifts {
			if d.OK {
				continue
			}
			if d.Kind == live.Deterministic {
				det = append(det, d.Metric)
			} else {
				meas = append(meas, d.Metric)
			}
		}
		if len(det) != 0 || len(meas) == 0 {
			t.Errorf("re-run with ±60%% jitter: deterministic not OK %v, measured not OK %v; want none and some", det, meas)
		}
	})

	t.Run("deterministic", func(t *testing.T) {
		rp := fakeReplay(0, lr)
		// one slot fewer: a deterministic metric the engine must reproduce
		rp.Output = strings.Replace(lr.run.Tail, ": 2441 slots", ": 2440 slots", 1)
		if rp.Output == lr.run.Tail {
			t.Fatal("fixtures/m5's first run prints no arena slot count")
		}
		livetest.Use(t, rp)
		_, drifts, err := rerun(t, 1, 1, lr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var changed []string
		for _, d := range drifts {
			if !d.OK && d.Kind == live.Deterministic {
				changed = append(changed, d.Metric+": "+d.Why)
			}
		}
		if want := "arena_slots: deterministic metric changed: 2441 → 2440"; len(changed) != 1 || changed[0] != want {
			t.Errorf("re-run printing 2440 slots: deterministic failures %q; want [%q]", changed, want)
		}
	})
}

// fakeLlamaCheckout copies fixtures/llamacpp-real into a temporary
// checkout and installs the fake engine, as the fake llama.cpp engine, at
// the program path of every llama-cli and llama-bench run
// (./bin/llama-cli, ./bin/llama-bench); it returns the checkout and those
// runs, as read from it.
func fakeLlamaCheckout(t *testing.T) (string, []liveRun) {
	t.Helper()
	dir := snaptest.CopyFixture(t, "llamacpp-real")
	ctx, err := audit.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var runs []liveRun
	for _, lr := range liveLlamaRuns(t, ctx, regexp.MustCompile("")) {
		if lr.skip == "" {
			runs = append(runs, lr)
		}
	}
	if len(runs) == 0 {
		t.Fatal("fixtures/llamacpp-real has no run to re-run")
	}
	installFake(t, dir, runs)
	return dir, runs
}

// fakeLlamaRun is fakeLlamaCheckout's checkout and its run named name.
func fakeLlamaRun(t *testing.T, name string) (string, liveRun) {
	t.Helper()
	dir, runs := fakeLlamaCheckout(t)
	for _, lr := range runs {
		if lr.run.Name == name {
			return dir, lr
		}
	}
	t.Fatalf("fixtures/llamacpp-real has no run %s to re-run", name)
	return "", liveRun{}
}

// fakeLlamaConfig re-runs against the fake llama.cpp engine: each run's
// replay written before it starts, drift beyond the checkout's tolerance
// failing (rerunCheckout sets it); count, when set, counts the re-runs that
// started by parser.
func fakeLlamaConfig(count map[string]int) liveConfig {
	return liveConfig{
		timeout: 2 * time.Minute, minimum: time.Second, every: 20 * time.Millisecond,
		// no tol: rerunCheckout takes the checkout's live.tolerance
		strict: true, progress: testing.Verbose(), pass: []string{livetest.EnvReplay}, fake: true,
		before: func(t *testing.T, i int, lr liveRun) {
			if count != nil {
				count[lr.run.Parser]++
			}
			livetest.Use(t, fakeReplay(i, lr))
		},
	}
}

// TestLiveFakeLlamaCpp re-runs the recorded llama-cli and llama-bench runs
// of fixtures/llamacpp-real, a real build's outputs, against the fake
// llama.cpp engine, through the path STRATA_CHECKOUT takes (rerunCheckout,
// as TestLiveRuns): the checkout is a copy of the fixture with the fake at
// ./bin/llama-cli and ./bin/llama-bench. The fake prints each run's
// recorded output in its real format (a llama-cli log, llama-bench JSON,
// JSONL, CSV and markdown) with every timing and rate moved by up to ±3 %,
// started with the recorded argv and environment. Token counts and the
// other deterministic metrics (a bench row's printed model size and
// parameter count among them) must come back exactly, the measured ones
// within the 15 % drift (the default live.tolerance); every llama-cli and
// llama-bench run must have been re-run, none skipped.
func TestLiveFakeLlamaCpp(t *testing.T) {
	dir, _ := fakeLlamaCheckout(t)
	t.Setenv(envCheckout, dir)
	t.Setenv("STRATA_LIVE_RUNS", "")
	count := map[string]int{}
	rerunCheckout(t, fakeLlamaConfig(count))
	if cli, bench := count[livetest.LlamaCpp], count[livetest.Bench]; cli < 10 || bench < 5 {
		t.Errorf("STRATA_CHECKOUT=%s: %d llama-cli and %d llama-bench runs re-run; want ≥ 10 and ≥ 5", dir, cli, bench)
	}
	if n := count[livetest.Perplexity] + count[livetest.Server]; n != 0 {
		t.Errorf("%d llama-perplexity or llama-server runs re-run; want them skipped (llamaSkip)", n)
	}
}

// TestLiveFakeLlamaCppDrift: a re-run is judged on what the fresh process
// printed. The fake prints a load time and a decode rate far from the
// archived ones, a prompt token count one short, and a bench row with
// another parameter count or model size: each is reported, alone, with the
// fresh value (the archived log cannot stand in for the output).
func TestLiveFakeLlamaCppDrift(t *testing.T) {
	dir, runs := fakeLlamaCheckout(t)
	cfg := liveConfig{dir: dir, timeout: 2 * time.Minute, minimum: time.Second, every: time.Second, tol: 0.15, pass: []string{livetest.EnvReplay}}
	byName := map[string]liveRun{}
	for _, lr := range runs {
		byName[lr.run.Name] = lr
	}
	tests := []struct {
		run, old, new string
		metric, fresh string
		kind          live.Kind
	}{
		{"cli_a_01", "load time =     102.16 ms", "load time =    1150.23 ms", "load_ms", "1150.23", live.Measured},
		{"cli_a_01", "123 tokens (    0.08 ms per token, 12879.58 tokens per second)", "122 tokens (    0.08 ms per token, 12879.58 tokens per second)", "prompt_eval_tokens", "122", live.Deterministic},
		{"bench_r5_json", `"avg_ts": 18930.337674`, `"avg_ts": 9465.168837`, "tg32", "9465.168837", live.Measured},
		{"bench_r5_json", `"model_n_params": 129984,`, `"model_n_params": 129985,`, "pp16[model_n_params]", "129985", live.Deterministic},
		{"bench_r5_csv", `"139048","129984"`, `"139050","129984"`, "pp16[model_size]", "139050", live.Deterministic},
		{"bench_r5_md", "|     0.13 M | CPU", "|     0.14 M | CPU", "pp16[params]", "0.14 M", live.Deterministic},
	}
	for _, tt := range tests {
		t.Run(tt.run+"/"+tt.metric, func(t *testing.T) {
			lr, ok := byName[tt.run]
			if !ok {
				t.Fatalf("fixtures/llamacpp-real has no run %s", tt.run)
			}
			rp := fakeReplay(0, lr)
			rp.Jitter = 0
			rp.Output = strings.Replace(lr.text, tt.old, tt.new, 1)
			if rp.Output == lr.text {
				t.Fatalf("%s prints no %q", tt.run, tt.old)
			}
			livetest.Use(t, rp)
			_, drifts, err := rerun(t, 1, 1, lr, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var bad []string
			found := false
			for _, d := range drifts {
				if !d.OK {
					bad = append(bad, d.Metric+" "+d.Archived+" → "+d.Fresh)
				}
				if d.Metric == tt.metric && !d.OK && d.Fresh == tt.fresh && d.Kind == tt.kind {
					found = true
				}
			}
			if !found || len(bad) != 1 {
				t.Errorf("re-run of %s printing %q: not OK %q; want only %s (%s) reported, fresh %s", tt.run, tt.new, bad, tt.metric, tt.kind, tt.fresh)
			}
		})
	}
}

// TestLiveCheckoutSkips: STRATA_CHECKOUT is honoured on every platform, and
// what cannot re-run here is skipped with the reason, never passed. Off
// darwin/arm64 a strata checkout's runs and route_parity records (a copy of
// fixtures/m5 with the fake engine at every program, so nothing is missing)
// are each skipped naming darwin/arm64, and none starts (its carried-over
// llama.cpp runs are skipped saying their environment is unknown); a llama.cpp log
// folder without its binaries (a copy of fixtures/llamacpp-real, as
// committed) skips each llama-cli and llama-bench run naming the program
// looked for, but not one recording a program outside it
// (/usr/local/bin/llama-cli): that one's re-run fails, refusing it; a run of
// a program no parser knows is skipped naming it.
func TestLiveCheckoutSkips(t *testing.T) {
	t.Setenv("STRATA_LIVE_RUNS", "")
	t.Run("strata", func(t *testing.T) {
		if runtime.GOOS == "darwin" && runtime.GOARCH == "arm64" {
			t.Skip("strata runs re-run on darwin/arm64 (TestLiveRuns with STRATA_CHECKOUT)")
		}
		dir := snaptest.CopyFixture(t, "m5")
		installFake(t, dir, liveRuns(loadSnap(t, "m5"), regexp.MustCompile("")))
		t.Setenv(envCheckout, dir)
		ctx, err := audit.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		runs := checkoutRuns(t, ctx, dir, regexp.MustCompile(""), strataEngine)
		strata := 0
		for _, lr := range runs {
			if lr.run.CarriedOver {
				if !strings.Contains(lr.skip, "carried over (env: null)") {
					t.Errorf("checkoutRuns(copy of fixtures/m5): carried-over %s skip = %q; want it to say so", lr.run.Name, lr.skip)
				}
				continue
			}
			strata++
			if !strings.Contains(lr.skip, "darwin/arm64 only, not on "+runtime.GOOS) {
				t.Errorf("checkoutRuns(copy of fixtures/m5): %s skip = %q; want the reason naming darwin/arm64", lr.run.Name, lr.skip)
			}
		}
		if strata != 20 {
			t.Errorf("checkoutRuns(copy of fixtures/m5) = %d strata runs and route_parity records; want its 14 and 6", strata)
		}
		cfg := fakeLlamaConfig(nil)
		cfg.before = func(t *testing.T, _ int, lr liveRun) {
			t.Errorf("%s re-ran on %s/%s; want it skipped", lr.run.Name, runtime.GOOS, runtime.GOARCH)
		}
		rerunCheckout(t, cfg)
	})
	t.Run("llama.cpp without binaries", func(t *testing.T) {
		dir := snaptest.CopyFixture(t, "llamacpp-real")
		// a program outside the checkout is refused by its re-run, not skipped
		snaptest.Edit(t, filepath.Join(dir, "runs", "cli_a_02.json"), `"./bin/llama-cli",`, `"/usr/local/bin/llama-cli",`)
		// a program no parser knows cannot be compared: skipped saying so
		snaptest.Edit(t, filepath.Join(dir, "runs", "cli_a_03.json"), `"./bin/llama-cli",`, `"./bin/my-engine",`)
		ctx, err := audit.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, lr := range checkoutRuns(t, ctx, dir, regexp.MustCompile(""), strataEngine) {
			if llamaSkip(lr.run.Parser) != "" {
				continue
			}
			n++
			if lr.run.Name == "cli_a_03" {
				if !strings.Contains(lr.skip, `program "./bin/my-engine" is neither strata's engine nor a llama.cpp program`) {
					t.Errorf("cli_a_03 recording ./bin/my-engine: skip %q; want it skipped naming the program no parser knows", lr.skip)
				}
				continue
			}
			if lr.run.Name == "cli_a_02" {
				cfg := fakeLlamaConfig(nil)
				cfg.dir = dir
				if _, _, err := rerun(t, 1, 1, lr, cfg); lr.skip != "" || !errors.Is(err, live.ErrOutsideCheckout) {
					t.Errorf("cli_a_02 recording /usr/local/bin/llama-cli: skip %q, re-run %v; want not skipped, refused as outside the checkout", lr.skip, err)
				}
				continue
			}
			if want := lr.run.Cmd[0][2:] + " is " + live.ErrNoProgram.Error(); !strings.Contains(lr.skip, want) {
				t.Errorf("checkoutRuns(copy of fixtures/llamacpp-real): %s skip = %q; want it to name %q", lr.run.Name, lr.skip, want)
			}
		}
		if n < 15 {
			t.Errorf("checkoutRuns(copy of fixtures/llamacpp-real): %d llama-cli and llama-bench runs; want 16", n)
		}
	})
}

// TestLiveBareProgram: a run recorded with a bare argv[0] (llama-bench as
// found on $PATH, ./llama-cli run from its build folder) re-runs the
// program in the folder the spec file's live.bin declares: without it the
// same run is skipped naming the root's file.
func TestLiveBareProgram(t *testing.T) {
	t.Setenv("STRATA_LIVE_RUNS", "^(cli_a_01|bench_r5_json)$")
	for _, tt := range []struct {
		name  string
		spec  string // the spec file's live setting, "" for none
		reran int
	}{
		{"bin declared", `"live": {"bin": ["build/bin"]},`, 2},
		{"no bin", "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := snaptest.CopyFixture(t, "llamacpp-real")
			snaptest.Edit(t, filepath.Join(dir, "runs", "cli_a_01.json"), `"./bin/llama-cli",`, `"./llama-cli",`)
			snaptest.Edit(t, filepath.Join(dir, "runs", "bench_r5_json.json"), `"./bin/llama-bench",`, `"llama-bench",`)
			snaptest.Edit(t, filepath.Join(dir, "strataspec.json"), `"rules": {`, tt.spec+`"rules": {`)
			ctx, err := audit.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			runs := liveLlamaRuns(t, ctx, regexp.MustCompile("^(cli_a_01|bench_r5_json)$"))
			installFake(t, filepath.Join(dir, "build", "bin"), runs)
			t.Setenv(envCheckout, dir)
			count := map[string]int{}
			rerunCheckout(t, fakeLlamaConfig(count))
			if got := count[livetest.LlamaCpp] + count[livetest.Bench]; got != tt.reran {
				t.Errorf("re-runs of ./llama-cli and llama-bench with the fake in build/bin, spec %q: %d; want %d", tt.spec, got, tt.reran)
			}
		})
	}
}

// TestLiveOtherBuild: a re-run says whether it ran the build its run
// recorded. fixtures/llamacpp-real's sidecars record the real llama-cli's
// sha256 (fd04a2c6…); the fake engine at ./bin/llama-cli is another build,
// and is named as such with both hashes; with the sidecar recording the
// fake's own sha256 (as a sidecar written beside a run of the fake would),
// the re-run ran the recorded build.
func TestLiveOtherBuild(t *testing.T) {
	dir, lr := fakeLlamaRun(t, "cli_a_01")
	cfg := fakeLlamaConfig(nil)
	cfg.dir = dir
	livetest.Use(t, fakeReplay(0, lr))
	res, _, err := rerun(t, 1, 1, lr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := buildProblem(lr, res)
	for _, want := range []string{"cli_a_01", "./bin/llama-cli", runconf.ShortHash(res.ProgramSHA256), "fd04a2c6e47a", "another build"} {
		if !strings.Contains(got, want) {
			t.Errorf("buildProblem(cli_a_01 against the fake) = %q; want it to name %q", got, want)
		}
	}
	same := *lr.run
	same.BinarySHA256 = res.ProgramSHA256
	lr.run = &same
	if got := buildProblem(lr, res); got != "" {
		t.Errorf("buildProblem(cli_a_01 recording the fake's sha256) = %q; want none", got)
	}
}

// TestLiveTolerance: the drift a measured metric may show is the checkout's
// declared live.tolerance. The fake moves cli_a_01's timings and rates by up
// to ±30 %: beyond the default 15 % some are reported drifted, each message
// naming run, metric, archived and fresh value; with "live": {"tolerance":
// 0.5} declared, the same re-run through STRATA_CHECKOUT passes (strict).
func TestLiveTolerance(t *testing.T) {
	dir, lr := fakeLlamaRun(t, "cli_a_01")
	rp := fakeReplay(0, lr)
	rp.Jitter = 0.3
	livetest.Use(t, rp)
	cfg := fakeLlamaConfig(nil)
	cfg.dir, cfg.tol = dir, checkout.DefaultTolerance
	_, drifts, err := rerun(t, 1, 1, lr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var beyond []string
	for _, d := range drifts {
		if !d.OK {
			if d.Kind != live.Measured {
				t.Errorf("±30 %% jitter changed a deterministic metric: %s", driftMessage(lr.run.Name, d))
			}
			beyond = append(beyond, driftMessage(lr.run.Name, d))
		}
	}
	if len(beyond) == 0 {
		t.Fatalf("cli_a_01 with ±30 %% jitter at the default %v: no drift reported; want some beyond it", checkout.DefaultTolerance)
	}
	want := regexp.MustCompile(`^cli_a_01: measured metric [a-z_]+ archived [0-9.]+, fresh [0-9.]+: drift [0-9.]+% > 15\.0%$`)
	for _, m := range beyond {
		if !want.MatchString(m) {
			t.Errorf("drift message %q; want it to match %s", m, want)
		}
	}

	snaptest.Edit(t, filepath.Join(dir, "strataspec.json"), `"rules": {`, `"live": {"tolerance": 0.5}, "rules": {`)
	t.Setenv(envCheckout, dir)
	t.Setenv("STRATA_LIVE_RUNS", "^cli_a_01$")
	declared := fakeLlamaConfig(nil)
	declared.before = func(t *testing.T, _ int, _ liveRun) { livetest.Use(t, rp) }
	rerunCheckout(t, declared)
}
