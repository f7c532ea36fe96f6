// Package live re-runs a recorded engine run and compares its fresh metrics
// with the archived ones. Deterministic metrics (slot counts, parity errors,
// sizes, token counts) must reproduce exactly as printed; measured ones
// (timings, rates) report their drift against a tolerance.
//
// The package itself is portable (os/exec); re-running strata needs its
// binaries, which exist only on an M-series Mac, so the spec's live tests are
// behind `//go:build darwin && arm64` and skip unless a checkout is named.
package live

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/tail"
)

// ErrCarriedOver is returned for a run whose environment was not recorded
// (env: null): it cannot be re-run as it ran.
var ErrCarriedOver = errors.New("live: run was carried over (env: null); its environment is unknown")

// Options control a re-run.
type Options struct {
	// Dir is the working directory, normally the strata checkout.
	Dir string
	// Resolve maps the recorded argv[0] (a path on the audited machine) to
	// the program to run here. Nil runs argv[0] as recorded.
	Resolve func(argv0 string) (string, error)
	// Timeout bounds the run; zero means 10 minutes.
	Timeout time.Duration
	// TailLines keeps the last N lines of output as the runner archives
	// them; zero keeps everything.
	TailLines int
}

// Rerun executes r's recorded command again with its recorded environment
// laid over this process's, and returns a copy of r whose Tail, ExitCode and
// DurationS are the fresh ones. A non-zero exit is not an error: it is in the
// returned run, as the runner records it.
func Rerun(ctx context.Context, r *archive.Run, opt Options) (*archive.Run, error) {
	if r.CarriedOver || r.Env == nil {
		return nil, fmt.Errorf("%s: %w", r.Name, ErrCarriedOver)
	}
	if len(r.Cmd) == 0 {
		return nil, fmt.Errorf("live: %s: recorded command is empty", r.Name)
	}
	prog := r.Cmd[0]
	if opt.Resolve != nil {
		p, err := opt.Resolve(prog)
		if err != nil {
			return nil, fmt.Errorf("live: %s: resolve %s: %w", r.Name, prog, err)
		}
		prog = p
	}
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, r.Cmd[1:]...)
	cmd.Dir = opt.Dir
	cmd.Env = os.Environ()
	keys := make([]string, 0, len(r.Env))
	for k := range r.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+r.Env[k])
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	dur := time.Since(start)
	code := 0
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("live: %s: %w after %v", r.Name, ctx.Err(), dur.Round(time.Millisecond))
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return nil, fmt.Errorf("live: %s: %w", r.Name, err)
	}
	fresh := *r
	fresh.Tail = lastLines(out.String(), opt.TailLines)
	fresh.ExitCode = code
	fresh.DurationS = dur.Seconds()
	fresh.Source = "live re-run of " + r.Name
	return &fresh, nil
}

// lastLines returns the last n lines of s (all of s when n <= 0).
func lastLines(s string, n int) string {
	if n <= 0 {
		return s
	}
	trimmed := strings.TrimSuffix(s, "\n")
	lines := strings.Split(trimmed, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[len(lines)-n:], "\n") + "\n"
}

// Kind says how a metric may differ between two runs of one command.
type Kind int

// Kinds.
const (
	// Measured metrics (timings, rates) drift; they are compared against a tolerance.
	Measured Kind = iota
	// Deterministic metrics must reproduce exactly as printed.
	Deterministic
)

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
// archived order; the n-th occurrence of a name is compared with the n-th.
// Deterministic metrics must print the same text; measured metrics must be
// within tol relative drift. A metric missing from the fresh tail is never OK.
func Compare(archived, fresh *tail.Metrics, classify func(name string) Kind, tol float64) []Drift {
	seen := map[string]int{}
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
	}
	return out
}
