// Package live re-runs a recorded engine run and compares its fresh metrics
// with the archived ones. Deterministic metrics (slot counts, parity errors,
// sizes, token counts) must reproduce exactly as printed; measured ones
// (timings, rates) report their drift against a tolerance.
//
// The package is portable (os/exec, no shell): the recorded argv runs as an
// argv, its program resolved inside the checkout only (ResolveIn: a bare
// name in the checkout's declared bin folders, never on $PATH). A run is
// started in its own process group and the whole group is killed at its
// timeout, so a hung engine and anything it started end with it. Its output
// is kept as the runner archives it: the last TailLines lines; the fresh run
// holds that output alone (archive.Run.WithOutput), never the archived log,
// with the sha256 of the program that ran. Re-running strata needs its
// binaries, which exist only on an M-series Mac; llama.cpp's run wherever
// they are built. The tests run the same code on every platform against a
// fake engine (testdata/fakeengine) that replays a recorded strata run or
// llama.cpp output.
package live

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/rusage"
	"github.com/strataspec/strataspec/engine/tail"
)

// ErrCarriedOver is returned for a run whose environment was not recorded
// (env: null): it cannot be re-run as it ran.
var ErrCarriedOver = errors.New("live: run was carried over (env: null); its environment is unknown")

// ErrOutsideCheckout is returned by Resolve for a program outside the checkout.
var ErrOutsideCheckout = errors.New("outside the checkout")

// DefaultTimeout bounds a re-run whose Options name no timeout.
const DefaultTimeout = 10 * time.Minute

// Options control a re-run.
type Options struct {
	// Dir is the checkout: the run's working directory, and the only place
	// its program may be (see Resolve). Required.
	Dir string
	// Timeout bounds the run; zero means DefaultTimeout. At the timeout the
	// run's whole process group is killed.
	Timeout time.Duration
	// TailLines keeps the last N lines of output, as the runner archives
	// them (see EngineLines); zero keeps everything.
	TailLines int
	// Progress, when set, is called every ProgressEvery while the run goes
	// on, and once more when it ends (Done set).
	Progress func(Progress)
	// ProgressEvery is the interval between Progress calls; zero means 30 s.
	ProgressEvery time.Duration
	// MetricLine reports whether an output line carries a metric; Progress
	// shows the last such line. Nil: every non-empty line counts.
	MetricLine func(line string) bool
	// WaitDelay is how long the run's output may stay open after the run
	// ended or was killed (held by a process that left its group) before
	// it is closed; zero means 2 s.
	WaitDelay time.Duration
	// Memory, when set, samples the process's memory (engine/rusage) every
	// ProgressEvery and at the end, for Result's peaks.
	Memory bool
	// PassEnv names variables of this process passed to the run besides
	// the allow-list Environ builds (the fake engine's replay file).
	PassEnv []string
	// Bin are the checkout's folders a program recorded by a bare name is
	// found in (ResolveIn), in order; none: the checkout's root.
	Bin []string
}

// Progress is a running re-run's state, for a person watching it.
type Progress struct {
	Elapsed    time.Duration
	Lines      int    // lines printed so far
	LastMetric string // the last line that carried a metric ("" for none yet)
	Done       bool   // the run has ended
}

// Result is a re-run.
type Result struct {
	// Run is a copy of the archived run whose output (Tail, Text),
	// ExitCode, DurationS and Source are the fresh ones.
	Run *archive.Run
	// Lines counts every line the run printed, kept or not.
	Lines int
	// PeakFootprint and PeakResident are the largest phys_footprint and
	// resident_size sampled (bytes; Options.Memory), 0 when not sampled.
	PeakFootprint, PeakResident uint64
	// MemoryErr says why memory was not sampled (rusage.ErrUnsupported off
	// darwin), nil when it was or was not asked for.
	MemoryErr error
	// Refused lists the recorded variables the run was started without
	// (Environ): loader and injection variables, each a finding.
	Refused []Refused
	// Program is the program run (ResolveIn), and ProgramSHA256 the sha256
	// (hex) of its bytes as read before it started: set against the hash a
	// run's sidecar recorded (archive.Run.BinarySHA256), it says whether the
	// re-run ran the recorded build.
	Program, ProgramSHA256 string
}

// ErrNoProgram is returned by ResolveIn for a recorded program that is not
// in the checkout (not built there, or its bin folder not declared).
var ErrNoProgram = errors.New("not in the checkout")

// Resolve returns the program to run for a recorded argv[0]: a path inside
// the checkout at root, as the recorded one is relative to the checkout. It
// is ResolveIn with no bin folder.
func Resolve(root, argv0 string) (string, error) { return ResolveIn(root, nil, argv0) }

// ResolveIn returns the program to run for a recorded argv[0], a path
// inside the checkout at root. An absolute argv[0], one that climbs out with
// "..", and one that leads out through a symbolic link are refused
// (ErrOutsideCheckout) with the path: a results file is input, and a re-run
// never runs a program it names elsewhere on the machine. A bare name, one
// without a folder ("llama-bench", "./llama-cli": found on $PATH or in the
// working directory when it was recorded), is looked up in the bin folders
// of the checkout in order (the spec file's live.bin), or at the root when none
// is given; never on $PATH. A program that is not there is ErrNoProgram,
// naming every place looked in.
func ResolveIn(root string, bin []string, argv0 string) (string, error) {
	if root == "" {
		return "", errors.New("no checkout directory to resolve the program in")
	}
	if argv0 == "" {
		return "", errors.New("argv[0] is empty")
	}
	if filepath.IsAbs(argv0) {
		return "", fmt.Errorf("argv[0] %s is an absolute path, %w %s", argv0, ErrOutsideCheckout, root)
	}
	clean := filepath.Clean(argv0)
	if climbs(clean) {
		return "", fmt.Errorf("argv[0] %s climbs %w %s", argv0, ErrOutsideCheckout, root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("checkout: %w", err)
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return "", fmt.Errorf("checkout: %w", err)
	}
	places := []string{clean}
	if !strings.ContainsRune(clean, filepath.Separator) && len(bin) > 0 {
		places = places[:0]
		for _, b := range bin {
			b = filepath.Clean(filepath.FromSlash(b))
			if filepath.IsAbs(b) || climbs(b) {
				return "", fmt.Errorf("bin folder %s: %w %s", b, ErrOutsideCheckout, root)
			}
			places = append(places, filepath.Join(b, clean))
		}
	}
	for _, p := range places {
		real, err := filepath.EvalSymlinks(filepath.Join(realRoot, p))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("argv[0] %s: %w", argv0, err)
		}
		if rel, err := filepath.Rel(realRoot, real); err != nil || climbs(rel) {
			return "", fmt.Errorf("argv[0] %s leads through a symbolic link to %s, %w %s", argv0, real, ErrOutsideCheckout, root)
		}
		if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
			return "", fmt.Errorf("argv[0] %s is not a regular file in the checkout %s", argv0, root)
		}
		return real, nil
	}
	return "", fmt.Errorf("argv[0] %s: %s is %w %s", argv0, strings.Join(places, " or "), ErrNoProgram, root)
}

// climbs reports whether a cleaned relative path leads out with "..".
func climbs(clean string) bool {
	return clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator))
}

// Rerun executes r's recorded command again in the checkout opt.Dir with the
// environment Environ builds (an allow-list of this process's variables and
// the recorded ones, loader and injection variables refused and listed in
// Result.Refused), and returns the fresh run.
// A non-zero exit is not an error: it is in the returned run, as the runner
// records it. A run that outlives its timeout is killed with its process
// group; the error wraps context.DeadlineExceeded and shows the last line.
func Rerun(ctx context.Context, r *archive.Run, opt Options) (*Result, error) {
	if r.CarriedOver || r.Env == nil {
		return nil, fmt.Errorf("%s: %w", r.Name, ErrCarriedOver)
	}
	if len(r.Cmd) == 0 {
		return nil, fmt.Errorf("live: %s: recorded command is empty", r.Name)
	}
	prog, err := ResolveIn(opt.Dir, opt.Bin, r.Cmd[0])
	if err != nil {
		return nil, fmt.Errorf("live: %s: %w", r.Name, err)
	}
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	every := opt.ProgressEvery
	if every == 0 {
		every = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, r.Cmd[1:]...)
	cmd.Dir = opt.Dir
	env, refused := Environ(r.Env, os.Getenv, opt.PassEnv)
	cmd.Env = env
	inGroup(cmd)
	// Output still held open by a process that left the group must not
	// hold up the result forever.
	cmd.WaitDelay = opt.WaitDelay
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 2 * time.Second
	}
	out := newTailWriter(opt.TailLines, opt.MetricLine)
	cmd.Stdout = out
	cmd.Stderr = out

	sum, err := fileSHA256(prog)
	if err != nil {
		return nil, fmt.Errorf("live: %s: %w", r.Name, err)
	}
	res := &Result{Refused: refused, Program: prog, ProgramSHA256: sum}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("live: %s: %w", r.Name, err)
	}
	pid := cmd.Process.Pid
	sample := func(done bool) {
		if opt.Memory && res.MemoryErr == nil && !done {
			res.MemoryErr = res.sample(pid)
		}
		if opt.Progress != nil {
			lines, last := out.state()
			opt.Progress(Progress{Elapsed: time.Since(start), Lines: lines, LastMetric: last, Done: done})
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		sample(false) // the first memory reading, as soon as the process exists
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				sample(false)
			}
		}
	}()
	err = cmd.Wait()
	close(stop)
	wg.Wait()
	killGroup(pid) // whatever the run left behind in its group
	dur := time.Since(start)
	sample(true)
	code := 0
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		why := fmt.Sprintf("at its timeout (%v)", timeout)
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = "as the test was cancelled"
		}
		_, last := out.lastLine()
		return nil, fmt.Errorf("live: %s: killed with its process group (pid %d) %s: %w after %v; last line: %q",
			r.Name, pid, why, ctx.Err(), dur.Round(time.Millisecond), last)
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return nil, fmt.Errorf("live: %s: %w", r.Name, err)
	}
	// The fresh run's output is what the process printed now, never the
	// archived log the recorded run was read from.
	fresh := r.WithOutput("live re-run of "+r.Name, out.String())
	fresh.ExitCode = code
	fresh.DurationS = dur.Seconds()
	res.Run = fresh
	res.Lines, _ = out.state()
	return res, nil
}

// fileSHA256 returns the sha256 (hex) of the file at p.
func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sample reads pid's memory once and keeps the peaks; the error says why
// it could not (then no further reading is tried).
func (res *Result) sample(pid int) error {
	info, err := Footprint(pid)
	if errors.Is(err, rusage.ErrNoProcess) {
		return nil // the run ended between the tick and the reading
	}
	if err != nil {
		return err
	}
	res.PeakFootprint = max(res.PeakFootprint, info.PhysFootprint)
	res.PeakResident = max(res.PeakResident, info.ResidentSize)
	return nil
}

// Footprint reads a running child's memory as the kernel bills it: its
// phys_footprint and resident_size, the two figures the engine's
// prompt_region(false) lines print. It is rusage.Of; off darwin it returns
// rusage.ErrUnsupported.
func Footprint(pid int) (rusage.Info, error) { return rusage.Of(pid) }

// Kind says how a metric may differ between two runs of one command.
type Kind int

// Kinds.
const (
	// Measured metrics (timings, rates) drift; they are compared against a tolerance.
	Measured Kind = iota
	// Deterministic metrics must reproduce exactly as printed.
	Deterministic
)

// String returns "measured" or "deterministic".
func (k Kind) String() string {
	if k == Deterministic {
		return "deterministic"
	}
	return "measured"
}

// Drift is one metric of a re-run set against the archived value.
type Drift struct {
	Metric   string
	Kind     Kind
	Archived string  // as printed in the archived tail
	Fresh    string  // as printed in the re-run's tail; "" if missing
	Rel      float64 // |fresh − archived| / |archived|; 0 when archived is 0 and both are equal
	OK       bool
	Why      string // why it is not OK
}

// Compare sets every metric of the archived tail against the fresh one, in
// archived order; the n-th occurrence of a name is compared with the n-th,
// so both tails must be cut alike (Options.TailLines = EngineLines of the
// archived tail). Deterministic metrics must print the same text; measured
// metrics must be within tol relative drift. A metric missing from the fresh
// tail is never OK. A value printed with its configuration (a llama-bench
// row's model size, parameter count, token counts) has each field compared
// too, once a row (compareConfig).
func Compare(archived, fresh *tail.Metrics, classify func(name string) Kind, tol float64) []Drift {
	seen := map[string]int{}
	rows := map[string]bool{} // the printed configurations compared, by line and fields
	var out []Drift
	for _, a := range archived.List {
		i := seen[a.Name]
		seen[a.Name]++
		d := Drift{Metric: a.Name, Kind: classify(a.Name), Archived: a.Num.Text}
		fs := fresh.All(a.Name)
		if i >= len(fs) {
			d.Why = "missing from the re-run"
			out = append(out, d)
			continue
		}
		f := fs[i]
		d.Fresh = f.Num.Text
		switch {
		case a.Num.Value == f.Num.Value:
			d.Rel = 0
		case a.Num.Value == 0:
			d.Rel = math.Inf(1)
		default:
			d.Rel = math.Abs(f.Num.Value-a.Num.Value) / math.Abs(a.Num.Value)
		}
		switch d.Kind {
		case Deterministic:
			d.OK = a.Num.Text == f.Num.Text
			if !d.OK {
				d.Why = fmt.Sprintf("deterministic metric changed: %s → %s", a.Num.Text, f.Num.Text)
			}
		default:
			d.OK = d.Rel <= tol
			if !d.OK {
				d.Why = fmt.Sprintf("drift %.1f%% > %.1f%%", 100*d.Rel, 100*tol)
			}
		}
		out = append(out, d)
		if a.Detail != nil && len(a.Detail.Config) > 0 {
			// a row's values (pp16, pp16_stddev) share its fields: once a row
			if row := fmt.Sprint(a.Line, a.Detail.Config); !rows[row] {
				rows[row] = true
				out = append(out, compareConfig(a, f)...)
			}
		}
	}
	return out
}

// compareConfig sets the configuration an archived summary value was
// measured under (once a row, named by its first value) (a llama-bench row's printed fields: model_size,
// model_n_params, n_prompt, n_gen, threads, …) against the fresh one's, a
// Drift per field named metric[field]. What the command and the model file
// decide is deterministic and must print the same; the machine's own
// description (ConfigKind) is measured: another machine prints another, and
// its figures are then not the archived ones' to compare.
func compareConfig(a, f tail.Metric) []Drift {
	fresh := map[string]string{}
	if f.Detail != nil {
		for _, c := range f.Detail.Config {
			fresh[c.Key] = c.Value
		}
	}
	var out []Drift
	for _, c := range a.Detail.Config {
		d := Drift{Metric: a.Name + "[" + c.Key + "]", Kind: ConfigKind(c.Key), Archived: c.Value}
		v, ok := fresh[c.Key]
		d.Fresh = v
		switch {
		case !ok:
			d.Why = "printed field missing from the re-run"
		case v != c.Value && d.Kind == Deterministic:
			d.Why = fmt.Sprintf("printed configuration changed: %s → %s", c.Value, v)
		case v != c.Value:
			d.Why = fmt.Sprintf("printed on another machine: %s → %s", c.Value, v)
		default:
			d.OK = true
		}
		out = append(out, d)
	}
	return out
}

// ConfigKind says how a printed configuration field of a summary value
// (a llama-bench row's) may differ between two runs of one command on one
// binary and model: the machine's description (cpu_info, gpu_info) is
// measured, every other field deterministic.
func ConfigKind(key string) Kind {
	switch key {
	case "cpu_info", "gpu_info":
		return Measured
	}
	return Deterministic
}
