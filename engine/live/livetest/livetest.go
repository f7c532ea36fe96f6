// Package livetest builds and drives a fake strata engine, so live re-runs
// (engine/live) are tested on every platform without strata's binaries. The
// fake engine (engine/live/testdata/fakeengine) replays a recorded run as
// the engine would print it: the deterministic metrics exactly as archived,
// the measured ones with jitter, the runner's own lines left out; it can
// also exit with a given code, wait before printing, pace its lines, flood
// its output, or hang with a child in its process group.
//
// It is a test helper, imported by _test.go files and by the fake engine.
package livetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/live"
	"github.com/strataspec/strataspec/engine/tail"
)

// EnvReplay names the variable that gives the fake engine its replay file.
const EnvReplay = "STRATA_FAKEENGINE_REPLAY"

// envChild marks the fake engine's own child (Replay.Hang).
const envChild = "STRATA_FAKEENGINE_CHILD"

// Parsers that Replay.Parser names, by their format's name (engine/format):
// strata's, route_parity's, and llama.cpp's programs (the fake llama.cpp
// engine: a recorded llama-cli log, llama-bench file, perplexity or server
// log, printed in its real format with its timings drifted). Metrics reads
// them with the built-in formats as printed (ParseAsPrinted), so that each
// number is found as printed, in the unit printed, before any
// conversion to the vocabulary's.
const (
	Strata      = format.Strata
	RouteParity = format.RouteParity
	LlamaCpp    = format.LlamaCpp   // llama-cli and the other summary printers
	Bench       = format.Bench      // any of its output formats
	Perplexity  = format.Perplexity // perplexity and KL divergence
	Server      = format.Server     // its log, or a /completion response
)

// Replay is what the fake engine prints and how.
type Replay struct {
	Output    string        // the recorded output (an archived tail or record)
	Parser    string        // one of the names above, the parser that finds its metrics ("": Strata)
	Jitter    float64       // relative jitter of each measured metric (0.03 = ±3 %)
	Seed      uint64        // seed of the jitter
	Exit      int           // exit code
	Delay     time.Duration // wait before the first line
	LineDelay time.Duration // wait after each line
	// Flood prints this many lines before the output: copies of its first
	// line with a measured metric, figures tripled (an earlier pass's
	// progress), so a tail not cut to the archived length compares the
	// wrong occurrences.
	Flood int
	// Hang, after printing, starts a child in the engine's process group
	// (holding its output open), writes the child's pid to ChildPIDFile and
	// sleeps until killed.
	Hang         bool
	ChildPIDFile string
	// WantArgs and WantEnv, when set, are the argv[1:] and environment the
	// engine must be started with; otherwise it exits 97 saying what differs.
	WantArgs []string
	WantEnv  map[string]string
	// EnvFile, when set, is where the engine writes the environment it was
	// started with, one variable a line, before anything else.
	EnvFile string
}

// Metrics parses an output with the replay's parser, the built-in format
// of that name (strata's when Parser is ""), each number as printed
// (format.Format.ParseAsPrinted). A name no built-in format has parses
// nothing: Use and Load refuse it, so that a misnamed parser cannot leave
// the replay's metrics unjittered and its re-run trivially reproduced.
func (r *Replay) Metrics(output string) *tail.Metrics {
	f, err := r.format()
	if err != nil {
		return &tail.Metrics{Source: "replay"}
	}
	return f.ParseAsPrinted("replay", output)
}

// format returns the built-in format Parser names, strata's for "".
func (r *Replay) format() (*format.Format, error) {
	name := r.Parser
	if name == "" {
		name = Strata
	}
	f, ok := format.Builtin().Get(name)
	if !ok {
		return nil, fmt.Errorf("replay parser %q is no built-in format (%s)", r.Parser, strings.Join(format.Builtins(), ", "))
	}
	return f, nil
}

// Render returns the lines the fake engine prints: the flood, then the
// recorded output without the runner's lines (live.RunnerLine), each
// measured metric moved by up to ±Jitter and printed at its recorded
// decimals, deterministic metrics untouched.
func Render(r *Replay) (flood, lines []string) {
	src := strings.Split(strings.TrimSuffix(r.Output, "\n"), "\n")
	jittered := scale(r, src, func(rng *rand.Rand) float64 { return 1 + r.Jitter*(2*rng.Float64()-1) })
	tripled := scale(r, src, func(*rand.Rand) float64 { return 3 })
	first := -1
	for i, l := range src {
		if live.RunnerLine(l) {
			continue
		}
		lines = append(lines, jittered[i])
		if first < 0 && tripled[i] != src[i] {
			first = i
		}
	}
	for k := 0; k < r.Flood && first >= 0; k++ {
		flood = append(flood, tripled[first])
	}
	return flood, lines
}

// scale returns src with every measured metric multiplied by factor().
func scale(r *Replay, src []string, factor func(*rand.Rand) float64) []string {
	out := append([]string(nil), src...)
	rng := rand.New(rand.NewPCG(r.Seed, 0x5eed))
	from := map[int]int{} // per line, where the next metric's text is looked for
	for _, m := range r.Metrics(strings.Join(src, "\n") + "\n").List {
		if m.Line < 1 || m.Line > len(out) || live.Classify(m.Name) != live.Measured {
			continue
		}
		// The value is printed on the metric's line, or, for a record
		// spread over lines (a llama-bench JSON object), on one of the
		// lines after it.
		n, i := m.Line, -1
		for ; n <= len(out) && n < m.Line+maxRecordLines; n++ {
			if i = numberAt(out[n-1], m.Num.Text, from[n]); i >= 0 {
				break
			}
		}
		if i < 0 {
			continue // derived, not printed (pure_gpu_ms_per_tok)
		}
		l := out[n-1]
		s := strconv.FormatFloat(m.Num.Value*factor(rng), 'f', m.Num.Decimals, 64)
		if m.Num.Sci {
			s = strconv.FormatFloat(m.Num.Value*factor(rng), 'e', m.Num.Decimals, 64)
		}
		out[n-1] = l[:i] + s + l[i+len(m.Num.Text):]
		from[n] = i + len(s)
	}
	return out
}

// maxRecordLines bounds how far after a metric's line its printed value is
// looked for: a llama-bench JSON row prints avg_ts about 30 lines below
// the "{" its metric is placed on.
const maxRecordLines = 40

// numberAt finds text in line at or after from as a whole number (no digit,
// '.' or ',' either side), or -1.
func numberAt(line, text string, from int) int {
	for i := from; i <= len(line)-len(text); {
		j := strings.Index(line[i:], text)
		if j < 0 {
			return -1
		}
		at := i + j
		end := at + len(text)
		if (at == 0 || !numberByte(line[at-1])) && (end == len(line) || !numberByte(line[end])) {
			return at
		}
		i = at + 1
	}
	return -1
}

func numberByte(c byte) bool { return c >= '0' && c <= '9' || c == '.' || c == ',' }

// Main is the fake engine's main function: it replays the file named by
// EnvReplay and returns the exit code.
func Main() int {
	if os.Getenv(envChild) != "" {
		time.Sleep(time.Hour)
		return 0
	}
	r, err := Load(os.Getenv(EnvReplay))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeengine:", err)
		return 98
	}
	if r.EnvFile != "" {
		if err := os.WriteFile(r.EnvFile, []byte(strings.Join(os.Environ(), "\n")+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fakeengine:", err)
			return 96
		}
	}
	if msg := r.checkStart(); msg != "" {
		fmt.Fprintln(os.Stderr, "fakeengine:", msg)
		return 97
	}
	time.Sleep(r.Delay)
	flood, lines := Render(r)
	for _, l := range append(flood, lines...) {
		fmt.Println(l)
		time.Sleep(r.LineDelay)
	}
	if r.Hang {
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), envChild+"=1")
		child.Stdout = os.Stdout
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "fakeengine: start child:", err)
			return 96
		}
		if err := os.WriteFile(r.ChildPIDFile, []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fakeengine:", err)
			return 96
		}
		time.Sleep(time.Hour)
	}
	return r.Exit
}

// checkStart says how the engine's argv and environment differ from the
// replay's WantArgs and WantEnv ("" when they do not).
func (r *Replay) checkStart() string {
	if r.WantArgs != nil && strings.Join(os.Args[1:], "\x00") != strings.Join(r.WantArgs, "\x00") {
		return fmt.Sprintf("argv[1:] = %q; want %q", os.Args[1:], r.WantArgs)
	}
	for k, v := range r.WantEnv {
		if got, ok := os.LookupEnv(k); !ok || got != v {
			return fmt.Sprintf("$%s = %q; want %q", k, got, v)
		}
	}
	return ""
}

// Load reads a replay file.
func Load(path string) (*Replay, error) {
	if path == "" {
		return nil, fmt.Errorf("$%s is not set", EnvReplay)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &Replay{}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := r.format(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Use writes r to a file of the test's and points EnvReplay at it for the
// rest of the test (t.Setenv: the test must not be parallel).
func Use(t testing.TB, r *Replay) {
	t.Helper()
	if _, err := r.format(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "replay.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvReplay, p)
}

// Build compiles the fake engine with the go command into dir and returns
// its path. The module root is found from this file's place in the tree.
func Build(t testing.TB, dir string) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("livetest: cannot find the module root")
	}
	src := filepath.Join(filepath.Dir(file), "..", "testdata", "fakeengine")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, "fakeengine")
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	cmd := exec.Command(goCmd, "build", "-o", out, ".")
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("livetest: go build the fake engine: %v\n%s", err, b)
	}
	return out
}

// Install copies the fake engine to argv0 inside the checkout dir, as the
// recorded program would be there (a copy, not a symbolic link: a link out of
// the checkout is refused, as it should be).
func Install(t testing.TB, fake, dir, argv0 string) {
	t.Helper()
	b, err := os.ReadFile(fake)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(argv0))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// ChildGone reads the pid a hung fake engine wrote (Replay.ChildPIDFile)
// and waits up to within for that child to be gone; it returns the pid and
// whether the child is gone.
func ChildGone(t testing.TB, pidFile string, within time.Duration) (int, bool) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("livetest: the fake engine wrote no child pid: %v", err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatalf("livetest: %s: %v", pidFile, err)
	}
	for end := time.Now().Add(within); Alive(pid) && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	return pid, !Alive(pid)
}
