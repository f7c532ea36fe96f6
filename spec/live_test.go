package spec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/live"
	"github.com/strataspec/strataspec/engine/runconf"
	"github.com/strataspec/strataspec/engine/tail"
)

// Live re-runs: the recorded runs of a checkout run again, and their fresh
// metrics are set against the archived ones (deterministic metrics exactly,
// measured ones within a drift). STRATA_CHECKOUT names the checkout on every
// platform (live_checkout_test.go): its llama-cli and llama-bench runs
// re-run wherever their programs are in it, its strata runs and route_parity
// records on an M-series Mac only (live_darwin_arm64_test.go). Everywhere
// the fake engine of engine/live/livetest replays the recorded runs of
// fixtures/m5 and fixtures/llamacpp-real (live_fake_test.go).

// TestLiveClassification insists that every metric the strata and
// route_parity parsers read from fixtures/m5-v3, and the llama-cli and
// llama-bench parsers from fixtures/llamacpp-real, is classified on purpose
// as deterministic (a live re-run must print it exactly) or measured (it
// may drift), so a new metric cannot slip into the live comparison
// unclassified.
func TestLiveClassification(t *testing.T) {
	ctx, err := audit.Load("../fixtures/m5-v3")
	if err != nil {
		t.Fatal(err)
	}
	unknown := map[string]bool{}
	checked := 0
	for _, lr := range liveRuns(ctx, regexp.MustCompile("")) {
		// every metric of the archived output, the runner's included
		key := lr.run.Name
		if lr.parity {
			key = lr.run.Source
		}
		for _, m := range ctx.Metrics[key].List {
			checked++
			if !live.Known(m.Name) {
				unknown[m.Name] = true
			}
		}
	}
	if checked == 0 {
		t.Fatal("fixtures/m5-v3: no strata or route_parity metric parsed; nothing classified")
	}
	real := loadSnap(t, "llamacpp-real")
	llama := 0
	for _, lr := range liveLlamaRuns(t, real, regexp.MustCompile("")) {
		if lr.skip != "" {
			continue
		}
		for _, m := range real.Metrics[lr.run.Name].List {
			llama++
			if !live.Known(m.Name) {
				unknown[m.Name] = true
			}
		}
	}
	if llama == 0 {
		t.Fatal("fixtures/llamacpp-real: no llama-cli or llama-bench metric parsed; nothing classified")
	}
	var names []string
	for n := range unknown {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > 0 {
		t.Errorf("metrics not classified in engine/live (deterministic or measured): %v", names)
	}
}

// liveRun is a recorded run that can be re-run.
type liveRun struct {
	run      *archive.Run
	text     string                                  // the archived output (the record's tail, or the log file's text)
	archived *tail.Metrics                           // the engine's own metrics of the archived output
	parse    func(source, text string) *tail.Metrics // the parser of its output
	parity   bool                                    // a route_parity record, not a strata run
	skip     string                                  // why it is not re-run here ("" when it is)
}

// liveRuns returns the runs of ctx that selected by name can be re-run:
// every strata run (the carried-over llama.cpp runs have no recorded
// environment) and every route_parity record, in archive order.
func liveRuns(ctx *audit.Context, sel *regexp.Regexp) []liveRun {
	var out []liveRun
	for _, r := range ctx.Snap.Runs {
		if r.CarriedOver || r.Env == nil || !r.Strata() || !sel.MatchString(r.Name) {
			continue
		}
		out = append(out, liveRun{run: r, text: r.Tail, archived: live.EngineMetrics(r.Tail, ctx.Metrics[r.Name]), parse: freshParse(ctx.Snap.Spec, r)})
	}
	for _, rec := range ctx.Snap.Parity {
		if !sel.MatchString(rec.Name) {
			continue
		}
		// a record's metrics are by its key: its file, "#k" for block k
		// of a file its format splits (fixtures/m5-shapes' transcript)
		r := &archive.Run{Name: rec.Name, Cmd: rec.Cmd, Env: rec.Env, ExitCode: rec.Exit, Tail: rec.Text, Source: rec.Key()}
		out = append(out, liveRun{run: r, text: rec.Text, archived: live.EngineMetrics(rec.Text, ctx.Metrics[rec.Key()]), parse: tail.ParseRouteParity, parity: true})
	}
	return out
}

// freshParse returns the parser of r's program over a fresh output, in the
// formats of the snapshot's spec (a declared format such as fixtures/
// m5-shapes' glog_strata included): the metrics of a re-run come from what
// the process printed now, never from the log or record r was read from
// (archive.Run.WithOutput).
func freshParse(spec *checkout.Spec, r *archive.Run) func(source, text string) *tail.Metrics {
	return func(source, text string) *tail.Metrics { return facts.ParseRun(spec, r.WithOutput(source, text)) }
}

// liveLlamaRuns returns the llama.cpp runs of ctx that selected by name
// have their environment recorded, in archive order, each with its archived
// output read from its record or log file. llama-cli and llama-bench runs
// re-run; a perplexity or server run is listed with why it is not
// (llamaSkip).
func liveLlamaRuns(t *testing.T, ctx *audit.Context, sel *regexp.Regexp) []liveRun {
	t.Helper()
	var out []liveRun
	for _, r := range ctx.Snap.Runs {
		if r.CarriedOver || r.Env == nil || !sel.MatchString(r.Name) || !audit.IsLlamaCpp(r) {
			continue
		}
		text, err := r.Text()
		if err != nil {
			t.Fatalf("run %s: %v", r.Name, err)
		}
		out = append(out, liveRun{run: r, text: text, archived: live.EngineMetrics(text, ctx.Metrics[r.Name]), parse: freshParse(ctx.Snap.Spec, r), skip: llamaSkip(r.Parser)})
	}
	return out
}

// llamaSkip says why the runs of a llama.cpp program (by parser) are not
// re-run, "" when they are.
func llamaSkip(parser string) string {
	switch parser {
	case format.Perplexity:
		return "llama-perplexity runs are not re-run: with --kl-divergence-base a run writes that file, and a re-run in the checkout would overwrite the archived copy the other runs read"
	case format.Server:
		return "llama-server runs are not re-run: the server's figures come from the requests it answered, and a re-run does not replay them"
	}
	return ""
}

// liveConfig says how a spec re-runs the recorded runs.
type liveConfig struct {
	dir      string                                // the checkout whose programs run
	timeout  time.Duration                         // per run, before fitting it inside go test's -timeout
	minimum  time.Duration                         // the least time a run may be given
	every    time.Duration                         // progress (and memory samples) interval
	wait     time.Duration                         // live.Options.WaitDelay (zero: its default)
	memory   bool                                  // sample the engine's memory (darwin)
	tol      float64                               // measured drift tolerated
	strict   bool                                  // measured drift beyond tol fails (fake engine) instead of being reported
	before   func(t *testing.T, i int, lr liveRun) // called before each re-run (the fake engine's replay)
	progress bool                                  // log progress (-v shows it as the run goes)
	pass     []string                              // live.Options.PassEnv (the fake engine's replay variable)
	bin      []string                              // live.Options.Bin: the spec file's bin folders
	fake     bool                                  // the program is a fake standing in for the recorded build: its other sha256 is logged, not failed
}

// runTimeout fits want inside what go test's -timeout leaves, keeping a
// margin to report; less than minimum left fails with the flag to use.
func runTimeout(t *testing.T, want, minimum time.Duration) time.Duration {
	t.Helper()
	deadline, ok := t.Deadline()
	if !ok {
		return want
	}
	left := time.Until(deadline) - 30*time.Second
	if left < minimum {
		t.Fatalf("go test's -timeout leaves %v for this re-run, less than the %v it needs: run with -timeout 4h (README, On a Mac)", left.Round(time.Second), minimum)
	}
	return min(want, left)
}

// rerun re-runs lr (run i of n) as cfg says and returns the result and the
// drifts of its metrics.
func rerun(t *testing.T, i, n int, lr liveRun, cfg liveConfig) (*live.Result, []live.Drift, error) {
	t.Helper()
	opt := live.Options{
		Dir:           cfg.dir,
		Timeout:       runTimeout(t, cfg.timeout, cfg.minimum),
		TailLines:     live.EngineLines(lr.text),
		ProgressEvery: cfg.every,
		WaitDelay:     cfg.wait,
		Memory:        cfg.memory,
		PassEnv:       cfg.pass,
		Bin:           cfg.bin,
		MetricLine:    func(l string) bool { return len(lr.parse("", l).List) > 0 },
	}
	if cfg.progress {
		opt.Progress = func(p live.Progress) {
			state := "running"
			if p.Done {
				state = "done"
			}
			t.Logf("run %d of %d (%s) %s: %v elapsed, %d lines, last metric line: %s", i, n, lr.run.Name, state, p.Elapsed.Round(time.Millisecond), p.Lines, p.LastMetric)
		}
	}
	res, err := live.Rerun(context.Background(), lr.run, opt)
	if err != nil {
		return nil, nil, err
	}
	fresh := lr.parse(res.Run.Source, res.Run.Tail)
	return res, live.Compare(lr.archived, fresh, live.Classify, cfg.tol), nil
}

// rerunAll re-runs each of runs in a subtest named by the run.
func rerunAll(t *testing.T, runs []liveRun, cfg liveConfig) {
	for i, lr := range runs {
		t.Run(lr.run.Name, func(t *testing.T) {
			if lr.skip != "" {
				t.Skip(lr.skip)
			}
			if cfg.before != nil {
				cfg.before(t, i, lr)
			}
			res, drifts, err := rerun(t, i+1, len(runs), lr, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range envFindings(res) {
				t.Error(f)
			}
			if p := buildProblem(lr, res); p != "" && cfg.fake {
				t.Logf("%s (expected: the fake engine stands in for it)", p)
			} else if p != "" {
				t.Error(p)
			}
			if res.Run.ExitCode != lr.run.ExitCode {
				t.Errorf("exit %d; archived %d", res.Run.ExitCode, lr.run.ExitCode)
			}
			checkDrifts(t, lr.run.Name, drifts, cfg.strict)
			if cfg.memory {
				checkFootprint(t, lr, res, cfg.every)
			}
		})
	}
}

// buildProblem says how the program a re-run ran is not the build its run
// recorded (the sidecar's binary sha256), "" when it is or the run recorded
// none: the figures of another build are not a re-run of the archived ones.
func buildProblem(lr liveRun, res *live.Result) string {
	want := lr.run.BinarySHA256
	if want == "" || res.ProgramSHA256 == want {
		return ""
	}
	return fmt.Sprintf("%s: re-ran %s with sha256 %s, but the run recorded sha256 %s: another build, whose figures are not a re-run of the archived ones",
		lr.run.Name, lr.run.Cmd[0], runconf.ShortHash(res.ProgramSHA256), runconf.ShortHash(want))
}

// envFindings are the findings of a re-run's environment: each recorded
// variable it was started without (a loader or injection variable), named.
func envFindings(res *live.Result) []string {
	var out []string
	for _, r := range res.Refused {
		out = append(out, fmt.Sprintf("%s: the recorded environment sets %s", res.Run.Name, r))
	}
	return out
}

// checkDrifts fails on a deterministic metric of run that changed, and on
// measured drift beyond the tolerance when strict; otherwise it reports the
// drift. Each message is driftMessage's.
func checkDrifts(t *testing.T, run string, drifts []live.Drift, strict bool) {
	t.Helper()
	if len(drifts) == 0 {
		t.Fatal("the archived output has no parsed metric: nothing to compare the re-run with")
	}
	det, bad := 0, 0
	for _, d := range drifts {
		if d.Kind == live.Deterministic {
			det++
		}
		if !d.OK {
			bad++
		}
	}
	t.Logf("%d values of the fresh output set against the archived run (%d deterministic, %d measured): %d not reproduced", len(drifts), det, len(drifts)-det, bad)
	for _, d := range drifts {
		switch {
		case d.OK:
		case d.Kind == live.Deterministic || strict:
			t.Error(driftMessage(run, d))
		default:
			t.Log("drifted: " + driftMessage(run, d))
		}
	}
}

// driftMessage names the run, the metric and its kind, the archived and
// the fresh value, and why they differ.
func driftMessage(run string, d live.Drift) string {
	fresh := d.Fresh
	if fresh == "" {
		fresh = "none"
	}
	return fmt.Sprintf("%s: %s metric %s archived %s, fresh %s: %s", run, d.Kind, d.Metric, d.Archived, fresh, d.Why)
}

// checkFootprint reports the memory sampled during a re-run and fails on
// what footprintProblems finds.
func checkFootprint(t *testing.T, lr liveRun, res *live.Result, every time.Duration) {
	t.Helper()
	if res.MemoryErr != nil {
		t.Logf("memory not sampled: %v", res.MemoryErr)
		return
	}
	t.Logf("sampled every %v: peak phys_footprint %.2f GB, resident_size %.2f GB", every, float64(res.PeakFootprint)/1e9, float64(res.PeakResident)/1e9)
	for _, p := range footprintProblems(lr, res) {
		t.Error(p)
	}
}

// footprintProblems sets the engine's prompt_region(false) phys_footprint,
// printed in its fresh output, against the largest footprint the kernel
// billed the process while it ran (proc_pid_rusage, sampled): the engine may
// not claim more memory than it was ever billed (10 % for sampling). A
// route_parity record prints no footprint; a run not sampled has nothing to
// set it against; a llama.cpp run prints no prompt_region(false) line, and
// only its sampled peak is reported.
func footprintProblems(lr liveRun, res *live.Result) []string {
	if lr.parity || !lr.run.Strata() || res.PeakFootprint == 0 {
		return nil
	}
	fresh := lr.parse(res.Run.Source, res.Run.Tail)
	peakGB := float64(res.PeakFootprint) / 1e9
	var out []string
	for _, name := range []string{tail.PhysFootprintBeforeGB, tail.PhysFootprintAfterGB} {
		m, ok := fresh.Get(name)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("the re-run printed no %s (prompt_region(false))", name))
		case m.Value() > 1.10*peakGB:
			out = append(out, fmt.Sprintf("prompt_region(false) %s = %s GB; the kernel billed the run at most %.2f GB", name, m.Num.Text, peakGB))
		}
	}
	return out
}

// TestLiveFootprint checks the footprint check on a recorded run of
// fixtures/m5 (phys_footprint 4.71 GB -> 4.66 GB) as if sampled, and that a
// llama-cli run is not held to strata's footprint lines: it runs here,
// though only darwin samples a real one.
func TestLiveFootprint(t *testing.T) {
	runs := liveRuns(loadSnap(t, "m5"), regexp.MustCompile("^strata_q2_0_moce0_short_43tok$"))
	if len(runs) != 1 {
		t.Fatalf("liveRuns(fixtures/m5, ^strata_q2_0_moce0_short_43tok$) = %d runs; want 1", len(runs))
	}
	lr := runs[0]
	for _, tt := range []struct {
		peak uint64 // bytes
		tail string
		want []string
	}{
		{5_000_000_000, lr.run.Tail, nil},
		{4_300_000_000, lr.run.Tail, nil}, // within 10 % of 4.71 GB
		{4_000_000_000, lr.run.Tail, []string{"phys_footprint_before_gb = 4.71 GB; the kernel billed the run at most 4.00 GB", "phys_footprint_after_gb = 4.66 GB"}},
		{0, lr.run.Tail, nil}, // not sampled
		{5_000_000_000, strings.Replace(lr.run.Tail, "prompt_region(false)", "prompt_region", 1), []string{"no phys_footprint_before_gb", "no phys_footprint_after_gb"}},
	} {
		res := &live.Result{Run: &archive.Run{Source: "fresh", Tail: tt.tail}, PeakFootprint: tt.peak}
		got := footprintProblems(lr, res)
		if len(got) != len(tt.want) {
			t.Errorf("footprintProblems(peak %d) = %q; want %d problems", tt.peak, got, len(tt.want))
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], tt.want[i]) {
				t.Errorf("footprintProblems(peak %d)[%d] = %q; want it to contain %q", tt.peak, i, got[i], tt.want[i])
			}
		}
	}
	// A llama-cli run re-run on a Mac is sampled too; it prints no
	// prompt_region(false) footprint, which is not a problem of its own.
	llama := liveLlamaRuns(t, loadSnap(t, "llamacpp-real"), regexp.MustCompile("^cli_a_01$"))
	if len(llama) != 1 {
		t.Fatalf("liveLlamaRuns(fixtures/llamacpp-real, ^cli_a_01$) = %d runs; want 1", len(llama))
	}
	res := &live.Result{Run: &archive.Run{Source: "fresh", Tail: llama[0].text}, PeakFootprint: 200_000_000}
	if got := footprintProblems(llama[0], res); len(got) != 0 {
		t.Errorf("footprintProblems(cli_a_01, peak 200 MB) = %q; want none: llama-cli prints no prompt_region(false) footprint", got)
	}
}

// liveSelection returns STRATA_LIVE_RUNS, the regular expression selecting
// runs by name ("" selects all).
func liveSelection(t *testing.T) *regexp.Regexp {
	t.Helper()
	sel, err := regexp.Compile(os.Getenv("STRATA_LIVE_RUNS"))
	if err != nil {
		t.Fatalf("STRATA_LIVE_RUNS: %v", err)
	}
	return sel
}

// TestCIWorkflow keeps the CI workflow, the Makefile and the README's "On a
// Mac" section in step: the ubuntu job runs the test command, the macos-14
// job runs go test natively, the self-hosted job runs the live re-runs with
// the -timeout the README gives, and the test command lints the workflow.
func TestCIWorkflow(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ci, mk, readme := read(".github/workflows/ci.yml"), read("Makefile"), read("README.md")
	const timeout = "-timeout 4h"
	for _, tt := range []struct{ file, text, want string }{
		{"ci.yml", ci, "runs-on: ubuntu-latest"},
		{"ci.yml", ci, "run: make test"},
		{"ci.yml", ci, "runs-on: macos-14"},
		{"ci.yml", ci, "run: go test ./...\n"},
		{"ci.yml", ci, "runs-on: [self-hosted, macOS, ARM64]"},
		{"ci.yml", ci, "workflow_dispatch:"},
		{"ci.yml", ci, "go test ./spec/ -run Live -v -count=1 " + timeout},
		{"README.md", readme, "## On a Mac"},
		{"README.md", readme, "STRATA_CHECKOUT=~/strata go test ./spec/ -run Live -v " + timeout},
	} {
		if !strings.Contains(tt.text, tt.want) {
			t.Errorf("%s lacks %q", tt.file, tt.want)
		}
	}
	const lint = "\t$(GO) tool actionlint .github/workflows/ci.yml"
	if !makeRuns(t, mk, "test", lint) {
		t.Errorf("Makefile: make test does not run %q", lint)
	}
}

// TestLiveFreshParse: a re-run that prints exactly the archived output
// reproduces every compared value, for a snapshot whose runs are in a
// declared format and whose records give metrics (fixtures/m5-shapes:
// glog_strata, the runner's vm and io fields; its route_parity records are
// blocks of one transcript). The fresh output is parsed in the snapshot's
// formats, a record field, which no re-run prints, is not compared, and a
// route_parity record's archived metrics are found by its key.
func TestLiveFreshParse(t *testing.T) {
	ctx := loadSnap(t, "m5-shapes")
	runs := 0
	for _, lr := range liveRuns(ctx, regexp.MustCompile("")) {
		runs++
		ds := live.Compare(lr.archived, lr.parse("live re-run of "+lr.run.Name, lr.text), live.Classify, 0)
		if len(ds) == 0 {
			t.Errorf("run %s: no archived metric compared", lr.run.Name)
		}
		for _, d := range ds {
			if !d.OK {
				t.Errorf("run %s re-printing its archived output: %s", lr.run.Name, driftMessage(lr.run.Name, d))
			}
		}
	}
	if runs == 0 {
		t.Fatal("fixtures/m5-shapes: no strata run to re-run")
	}
}
