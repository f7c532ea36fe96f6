package live_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/live"
	"github.com/strataspec/strataspec/engine/live/livetest"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/rusage"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/engine/tail"
)

// fakeEngine is the fake engine built once for the package's tests.
var fakeEngine = struct {
	once sync.Once
	path string
}{}

// checkout returns a fresh checkout directory holding the fake engine at
// argv0 (the recorded program, relative to the checkout).
func checkout(t *testing.T, argv0 string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake engine's process-group tests need Unix")
	}
	fakeEngine.once.Do(func() {
		dir, err := os.MkdirTemp("", "fakeengine")
		if err != nil {
			t.Fatalf("MkdirTemp: %v", err)
		}
		fakeEngine.path = livetest.Build(t, dir)
	})
	if fakeEngine.path == "" {
		t.Fatal("the fake engine did not build")
	}
	dir := t.TempDir()
	livetest.Install(t, fakeEngine.path, dir, argv0)
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeEngine.path != "" {
		os.RemoveAll(filepath.Dir(fakeEngine.path))
	}
	os.Exit(code)
}

// recorded returns the first strata run of fixtures/m5 and its parsed tail.
func recorded(t *testing.T) (*archive.Run, *tail.Metrics) {
	t.Helper()
	snap, err := archive.Load(snaptest.Fixture(t, "m5"), format.For)
	if err != nil {
		t.Fatalf("archive.Load(fixtures/m5, format.For): %v", err)
	}
	runs := snap.StrataRuns()
	if len(runs) == 0 {
		t.Fatal("fixtures/m5 has no strata run")
	}
	r := runs[0]
	return r, tail.ParseStrata(r.Source, r.Tail)
}

// replay is the fake engine's replay of r, checking it is started with r's
// argv and environment.
func replay(r *archive.Run) *livetest.Replay {
	return &livetest.Replay{Output: r.Tail, Parser: livetest.Strata, WantArgs: r.Cmd[1:], WantEnv: r.Env, Seed: 1}
}

// rerun re-runs r in dir against the fake engine playing rp.
func rerun(t *testing.T, r *archive.Run, dir string, rp *livetest.Replay, opt live.Options) (*live.Result, error) {
	t.Helper()
	livetest.Use(t, rp)
	opt.Dir = dir
	opt.PassEnv = append(opt.PassEnv, livetest.EnvReplay)
	if opt.Timeout == 0 {
		opt.Timeout = 5 * time.Second
	}
	return live.Rerun(context.Background(), r, opt)
}

// drifts compares the engine's own metrics of the archived tail with the
// fresh run's.
func drifts(r *archive.Run, archived *tail.Metrics, res *live.Result) []live.Drift {
	fresh := tail.ParseStrata(res.Run.Source, res.Run.Tail)
	return live.Compare(live.EngineMetrics(r.Tail, archived), fresh, live.Classify, 0.15)
}

// jittered re-runs the first strata run of fixtures/m5 against the fake
// engine with measured metrics moved by up to ±jitter, its output cut as the
// archived tail was, and returns the run, the result and the drifts.
func jittered(t *testing.T, jitter float64) (*archive.Run, *live.Result, []live.Drift) {
	t.Helper()
	r, archived := recorded(t)
	before := r.Tail
	dir := checkout(t, r.Cmd[0])
	rp := replay(r)
	rp.Jitter = jitter
	res, err := rerun(t, r, dir, rp, live.Options{TailLines: live.EngineLines(r.Tail)})
	if err != nil {
		t.Fatalf("Rerun(%s, jitter %v): %v", r.Name, jitter, err)
	}
	if res.Run.ExitCode != 0 {
		t.Fatalf("Rerun(%s) exit = %d; want 0; tail:\n%s", r.Name, res.Run.ExitCode, res.Run.Tail)
	}
	if r.Tail != before {
		t.Errorf("Rerun changed the archived run's tail")
	}
	return r, res, drifts(r, archived, res)
}

func TestLiveReplay(t *testing.T) {
	r, res, ds := jittered(t, 0.03)
	if r.Tail == res.Run.Tail {
		t.Fatalf("Rerun(%s) printed the archived tail unchanged; want jittered measured metrics", r.Name)
	}
	det, meas := 0, 0
	for _, d := range ds {
		if !d.OK {
			t.Errorf("Rerun(%s): %s %s (%s → %s): %s", r.Name, d.Kind, d.Metric, d.Archived, d.Fresh, d.Why)
		}
		if d.Kind == live.Deterministic {
			det++
			if d.Fresh != d.Archived {
				t.Errorf("Rerun(%s): deterministic %s = %q; want %q", r.Name, d.Metric, d.Fresh, d.Archived)
			}
		} else if d.Rel > 0 {
			meas++
		}
	}
	if det == 0 || meas == 0 {
		t.Errorf("Rerun(%s): %d deterministic metrics compared, %d measured ones moved; want both", r.Name, det, meas)
	}
}

func TestLiveDrift(t *testing.T) {
	_, _, ds := jittered(t, 0.6)
	beyond := 0
	for _, d := range ds {
		switch {
		case d.Kind == live.Deterministic && !d.OK:
			t.Errorf("Rerun(jitter 60%%): deterministic %s: %s", d.Metric, d.Why)
		case d.Kind == live.Measured && !d.OK:
			beyond++
			if !strings.Contains(d.Why, "drift") {
				t.Errorf("Rerun(jitter 60%%): %s not OK for %q; want a drift", d.Metric, d.Why)
			}
		}
	}
	if beyond == 0 {
		t.Error("Rerun(jitter 60%): no measured metric beyond 15% drift; want some")
	}
}

func TestLiveExitCode(t *testing.T) {
	r, _ := recorded(t)
	dir := checkout(t, r.Cmd[0])
	rp := replay(r)
	rp.Exit = 3
	res, err := rerun(t, r, dir, rp, live.Options{})
	if err != nil {
		t.Fatalf("Rerun(exit 3) = %v; want no error: a non-zero exit is the run's, not an error", err)
	}
	if res.Run.ExitCode != 3 {
		t.Errorf("Rerun(exit 3) exit = %d; want 3", res.Run.ExitCode)
	}
}

func TestLiveWrongStart(t *testing.T) {
	r, _ := recorded(t)
	dir := checkout(t, r.Cmd[0])
	rp := replay(r)
	rp.WantEnv = map[string]string{"STRATA_METAL_ARENA_GB": "9.9"}
	res, err := rerun(t, r, dir, rp, live.Options{})
	if err != nil {
		t.Fatalf("Rerun(env differs from the replay's): %v", err)
	}
	// The fake engine's own check: it proves the recorded env reaches it.
	if res.Run.ExitCode != 97 || !strings.Contains(res.Run.Tail, "STRATA_METAL_ARENA_GB") {
		t.Errorf("Rerun(env differs from the replay's) = exit %d, tail %q; want exit 97 naming the variable", res.Run.ExitCode, res.Run.Tail)
	}
}

// TestLiveFlood floods the output before the recorded lines: cut to the
// archived length, the tail compares occurrence by occurrence; kept whole,
// the n-th occurrence of a metric is the flood's and the comparison fails.
func TestLiveFlood(t *testing.T) {
	r, archived := recorded(t)
	dir := checkout(t, r.Cmd[0])
	const flood = 5000
	for _, tt := range []struct {
		tailLines int
		wantOK    bool
	}{
		{live.EngineLines(r.Tail), true},
		{0, false},
	} {
		rp := replay(r)
		rp.Flood = flood
		res, err := rerun(t, r, dir, rp, live.Options{TailLines: tt.tailLines})
		if err != nil {
			t.Fatalf("Rerun(flood %d, TailLines %d): %v", flood, tt.tailLines, err)
		}
		if want := flood + live.EngineLines(r.Tail); res.Lines != want {
			t.Errorf("Rerun(flood %d).Lines = %d; want %d", flood, res.Lines, want)
		}
		if got := strings.Count(res.Run.Tail, "\n"); tt.tailLines > 0 && got != tt.tailLines {
			t.Errorf("Rerun(TailLines %d) kept %d lines", tt.tailLines, got)
		}
		ok := true
		for _, d := range drifts(r, archived, res) {
			ok = ok && d.OK
		}
		if ok != tt.wantOK {
			t.Errorf("Rerun(flood, TailLines %d): every metric OK = %v; want %v", tt.tailLines, ok, tt.wantOK)
		}
	}
}

// TestLiveTimeout hangs the engine with a child in its process group: at
// the timeout both are killed, and Rerun returns promptly with the last line.
func TestLiveTimeout(t *testing.T) {
	r, _ := recorded(t)
	dir := checkout(t, r.Cmd[0])
	rp := replay(r)
	rp.Hang = true
	rp.ChildPIDFile = filepath.Join(t.TempDir(), "child.pid")
	start := time.Now()
	// A long WaitDelay: without the group kill, the child would hold the
	// output open and Rerun would return only after it.
	_, err := rerun(t, r, dir, rp, live.Options{Timeout: 500 * time.Millisecond, WaitDelay: 30 * time.Second})
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Rerun(hang) = %v; want a deadline error", err)
	}
	for _, want := range []string{r.Name, "process group", "done."} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Rerun(hang) error %q lacks %q", err, want)
		}
	}
	if took > 15*time.Second {
		t.Errorf("Rerun(hang, timeout 500ms, WaitDelay 30s) returned after %v; want it back once the group is killed, long before WaitDelay", took)
	}
	if pid, gone := livetest.ChildGone(t, rp.ChildPIDFile, 2*time.Second); !gone {
		t.Errorf("the engine's child (pid %d) outlived the timeout: its process group was not killed", pid)
	}
}

func TestLiveProgress(t *testing.T) {
	r, _ := recorded(t)
	dir := checkout(t, r.Cmd[0])
	rp := replay(r)
	rp.LineDelay = 5 * time.Millisecond
	var mu sync.Mutex
	var ps []live.Progress
	isMetric := func(l string) bool { return len(tail.ParseStrata("", l).List) > 0 }
	_, err := rerun(t, r, dir, rp, live.Options{
		ProgressEvery: 20 * time.Millisecond,
		MetricLine:    isMetric,
		Progress:      func(p live.Progress) { mu.Lock(); ps = append(ps, p); mu.Unlock() },
	})
	if err != nil {
		t.Fatalf("Rerun(progress every 20 ms): %v", err)
	}
	if len(ps) < 3 {
		t.Fatalf("Rerun(~150 ms, progress every 20 ms) reported %d times; want at least 3", len(ps))
	}
	last := ps[len(ps)-1]
	if !last.Done || last.Lines != live.EngineLines(r.Tail) || !isMetric(last.LastMetric) {
		t.Errorf("Rerun's last progress = %+v; want Done, %d lines and a metric line", last, live.EngineLines(r.Tail))
	}
	for i := 1; i < len(ps); i++ {
		if ps[i].Elapsed < ps[i-1].Elapsed || ps[i].Lines < ps[i-1].Lines {
			t.Errorf("progress %d = %+v after %+v; want elapsed and lines non-decreasing", i, ps[i], ps[i-1])
		}
	}
}

func TestLiveMemory(t *testing.T) {
	r, _ := recorded(t)
	dir := checkout(t, r.Cmd[0])
	rp := replay(r)
	rp.LineDelay = 2 * time.Millisecond
	res, err := rerun(t, r, dir, rp, live.Options{Memory: true, ProgressEvery: 10 * time.Millisecond})
	if err != nil {
		t.Fatalf("Rerun(Memory): %v", err)
	}
	if runtime.GOOS != "darwin" {
		if !errors.Is(res.MemoryErr, rusage.ErrUnsupported) || res.PeakFootprint != 0 {
			t.Errorf("Rerun(Memory) on %s = peak %d, %v; want rusage.ErrUnsupported", runtime.GOOS, res.PeakFootprint, res.MemoryErr)
		}
		return
	}
	if res.MemoryErr != nil || res.PeakFootprint == 0 || res.PeakResident == 0 {
		t.Errorf("Rerun(Memory) = footprint %d, resident %d, %v; want both sampled", res.PeakFootprint, res.PeakResident, res.MemoryErr)
	}
}

func TestLiveCarriedOver(t *testing.T) {
	r := &archive.Run{Name: "llama", Cmd: []string{"llama-cli"}, CarriedOver: true}
	if _, err := live.Rerun(context.Background(), r, live.Options{Dir: t.TempDir()}); !errors.Is(err, live.ErrCarriedOver) {
		t.Errorf("Rerun(carried over) = %v; want ErrCarriedOver", err)
	}
}

// TestLiveResolve: a program runs only from inside the checkout.
func TestLiveResolve(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need Unix")
	}
	root := t.TempDir()
	outside := t.TempDir()
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "build", "strata_window_cli"))
	write(filepath.Join(root, "engine"))
	write(filepath.Join(outside, "evil"))
	for _, l := range []struct{ target, name string }{
		{filepath.Join(outside, "evil"), filepath.Join(root, "build", "escape")},
		{"strata_window_cli", filepath.Join(root, "build", "alias")},
		{outside, filepath.Join(root, "out")},
	} {
		if err := os.Symlink(l.target, l.name); err != nil {
			t.Fatal(err)
		}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		argv0   string
		want    string // the resolved path, relative to the checkout
		refused bool   // ErrOutsideCheckout
		errHas  string
	}{
		{argv0: "build/strata_window_cli", want: "build/strata_window_cli"},
		{argv0: "./build/strata_window_cli", want: "build/strata_window_cli"},
		{argv0: "build/alias", want: "build/strata_window_cli"},
		{argv0: "engine", want: "engine"}, // a bare name is the checkout's file, not $PATH's
		{argv0: filepath.Join(outside, "evil"), refused: true, errHas: filepath.Join(outside, "evil")},
		{argv0: "/Users/m5/strata/build/strata_window_cli", refused: true, errHas: "/Users/m5/strata/build/strata_window_cli"},
		{argv0: "../evil", refused: true, errHas: "../evil"},
		{argv0: "build/../../evil", refused: true, errHas: "build/../../evil"},
		{argv0: "build/escape", refused: true, errHas: "evil"},
		{argv0: "out/evil", refused: true, errHas: "out/evil"},
		{argv0: "build/missing", errHas: "build/missing"},
		{argv0: "build", errHas: "not a regular file"},
		{argv0: "", errHas: "empty"},
	} {
		got, err := live.Resolve(root, tt.argv0)
		switch {
		case tt.want != "":
			if want := filepath.Join(realRoot, tt.want); err != nil || got != want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.argv0, got, err, want)
			}
		case err == nil:
			t.Errorf("Resolve(%q) = %q; want an error", tt.argv0, got)
		case errors.Is(err, live.ErrOutsideCheckout) != tt.refused || !strings.Contains(err.Error(), tt.errHas):
			t.Errorf("Resolve(%q) = %v; want refused=%v naming %q", tt.argv0, err, tt.refused, tt.errHas)
		}
	}
}

// TestLiveRefusesOutside: an absolute argv[0] is refused before anything
// runs, even when the program exists and would run.
func TestLiveRefusesOutside(t *testing.T) {
	r, _ := recorded(t)
	dir := checkout(t, r.Cmd[0])
	other := checkout(t, r.Cmd[0])
	abs := *r
	abs.Cmd = append([]string{filepath.Join(other, r.Cmd[0])}, r.Cmd[1:]...)
	rp := replay(r)
	rp.ChildPIDFile = filepath.Join(t.TempDir(), "ran")
	rp.Hang = true // would write ChildPIDFile had it run
	_, err := rerun(t, &abs, dir, rp, live.Options{Timeout: time.Second})
	if !errors.Is(err, live.ErrOutsideCheckout) || !strings.Contains(err.Error(), abs.Cmd[0]) {
		t.Errorf("Rerun(argv[0] %s) = %v; want refused naming the path", abs.Cmd[0], err)
	}
	if _, err := os.Stat(rp.ChildPIDFile); err == nil {
		t.Errorf("Rerun ran the refused program")
	}
}

func TestLiveEngineLines(t *testing.T) {
	text := "init: 3.00 ms\n# cmd: x\n[runner] min_avail 3.21 GiB (vm_stat free+inactive+purgeable, 0.25 s samples)\n  fill  25% 0.82 GB\n"
	if got := live.EngineLines(text); got != 2 {
		t.Errorf("EngineLines(%q) = %d; want 2", text, got)
	}
	ms := &tail.Metrics{}
	ms.Add(tail.Metric{Name: "init_ms", Num: num.MustParse("3.00"), Line: 1})
	ms.Add(tail.Metric{Name: "min_avail_gib", Num: num.MustParse("3.21"), Line: 3})
	ms.Add(tail.Metric{Name: "pure_gpu_ms_per_tok", Num: num.MustParse("1.0")})
	// a run record's field read as a metric: no re-run writes the record
	ms.Add(tail.Metric{Name: "swapout_mib", Num: num.MustParse("0.0"), At: &tail.Place{File: "runs/runs.jsonl", Path: "vm.swapout_mib", Line: 1}})
	var got []string
	for _, m := range live.EngineMetrics(text, ms).List {
		got = append(got, m.Name)
	}
	if want := "[init_ms pure_gpu_ms_per_tok]"; fmt.Sprint(got) != want {
		t.Errorf("EngineMetrics = %v; want %s", got, want)
	}
}

func ms(pairs ...string) *tail.Metrics {
	m := &tail.Metrics{}
	for i := 0; i < len(pairs); i += 2 {
		m.Add(tail.Metric{Name: pairs[i], Num: num.MustParse(pairs[i+1])})
	}
	return m
}

func TestLiveCompare(t *testing.T) {
	classify := func(name string) live.Kind {
		if name == "slots" {
			return live.Deterministic
		}
		return live.Measured
	}
	for _, tt := range []struct {
		name     string
		archived *tail.Metrics
		fresh    *tail.Metrics
		wantOK   []bool
	}{
		{"same", ms("slots", "2441", "tok_s", "13.52"), ms("slots", "2441", "tok_s", "13.52"), []bool{true, true}},
		{"drift within", ms("tok_s", "13.52"), ms("tok_s", "13.90"), []bool{true}},
		{"drift beyond", ms("tok_s", "13.52"), ms("tok_s", "9.51"), []bool{false}},
		{"slots changed", ms("slots", "2441"), ms("slots", "2440"), []bool{false}},
		{"printed differently", ms("slots", "2441"), ms("slots", "2,441"), []bool{false}},
		{"missing", ms("slots", "2441"), ms(), []bool{false}},
		{"second occurrence", ms("slots", "2441", "slots", "1550"), ms("slots", "2441", "slots", "1551"), []bool{true, false}},
	} {
		ds := live.Compare(tt.archived, tt.fresh, classify, 0.05)
		if len(ds) != len(tt.wantOK) {
			t.Fatalf("Compare(%s) = %d drifts; want %d", tt.name, len(ds), len(tt.wantOK))
		}
		for i, d := range ds {
			if d.OK != tt.wantOK[i] {
				t.Errorf("Compare(%s)[%d] = %+v; want OK=%v", tt.name, i, d, tt.wantOK[i])
			}
			if !d.OK && d.Why == "" {
				t.Errorf("Compare(%s)[%d] not OK without a reason", tt.name, i)
			}
		}
	}
}
