//go:build unix

package spec

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/strataspec/strataspec/engine/snaptest"
)

// runBin runs the built audit program with args under the hostile deadline
// and returns its exit code, stdout and stderr.
func runBin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	bin, err := auditBin()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostileDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("audit %q did not finish within %v", args, hostileDeadline)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestHostileOutputEscaped: a snapshot's file names reach stderr, -metrics
// and -suggest escaped (report.Clean), in every case: a log named to forge
// a workflow command and a terminal escape prints neither.
func TestHostileOutputEscaped(t *testing.T) {
	const forged = "x\n::error file=PWNED.md,line=1::forged\x1b[31m-fifo.log"
	for _, tt := range []struct {
		name  string
		fifo  bool     // the forged log is a FIFO (exit 2, named on stderr), else a log
		args  []string // after -root
		code  int
		named bool // the output names the forged log
	}{
		{"exit-2 error, -format github", true, []string{"-format", "github"}, 2, true},
		// the forged run joins @all, so rows over @all lose their source:
		// plan.stale's fails, exit 1 under -metrics and -suggest as in the audit
		{"-metrics", false, []string{"-metrics"}, 1, true},
		{"-suggest", false, []string{"-suggest"}, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // its own copy, audited in a child process
			root := snaptest.CopyFixture(t, "m5")
			p := filepath.Join(root, "runs", forged)
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			if tt.fifo {
				must(t, unix.Mkfifo(p, 0o644))
			} else {
				must(t, os.WriteFile(p, []byte("llama_perf_context_print:        eval time =    1234.56 ms /   100 runs   (   12.35 ms per token,    81.00 tokens per second)\n"), 0o644))
			}
			code, stdout, stderr := runBin(t, append([]string{"-root", root}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d; want %d\nstderr: %s", code, tt.code, stderr)
			}
			for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(l, "::error file=PWNED") {
						t.Errorf("%s prints a forged workflow command at column 0: %q", name, l)
					}
				}
				if strings.ContainsRune(out, 0x1b) {
					t.Errorf("%s holds a raw ESC", name)
				}
			}
			if all := stdout + stderr; tt.named && !strings.Contains(all, `x\n::error file=PWNED.md`) {
				t.Errorf("no output names the forged log escaped (x\\n::error…):\nstdout: %.500s\nstderr: %s", stdout, stderr)
			}
		})
	}
}

// TestHostileLimits: past each limit the audit stops with exit 2 naming
// the file, the limit and the flag raising it; raised, the same snapshot
// audits.
func TestHostileLimits(t *testing.T) {
	root := snaptest.Fixture(t, "m5")
	for _, tt := range []struct {
		flag, want string
	}{
		{"-max-runs", "more than 2 runs: over the limit (raise it with -max-runs N)"},
		{"-max-claims-rows", "PLAN.claims: more than 2 claims rows: over the limit (raise it with -max-claims-rows N)"},
		{"-max-metrics", "more than 2 metrics in one run's output: over the limit (raise it with -max-metrics N)"},
		{"-max-bytes", "more than 2 bytes read from the snapshot in all: over the limit (raise it with -max-bytes N)"},
	} {
		code, _, stderr := runBin(t, "-root", root, tt.flag, "2")
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("audit %s 2: exit %d, stderr %q; want exit 2 and %q", tt.flag, code, stderr, tt.want)
		}
	}
	logs := t.TempDir()
	for _, n := range []string{"a.log", "b.log", "c.log"} {
		must(t, os.MkdirAll(filepath.Join(logs, "runs"), 0o755))
		must(t, os.WriteFile(filepath.Join(logs, "runs", n), []byte("llama_perf_context_print:        eval time =    1234.56 ms /   100 runs   (   12.35 ms per token,    81.00 tokens per second)\n"), 0o644))
	}
	if code, _, stderr := runBin(t, "-root", logs, "-max-logs", "2"); code != 2 || !strings.Contains(stderr, "runs/*.log: more than 2 log files: over the limit (raise it with -max-logs N)") {
		t.Errorf("audit -max-logs 2 over 3 logs: exit %d, stderr %q; want exit 2 naming -max-logs", code, stderr)
	}
	if code, _, stderr := runBin(t, "-root", root, "-max-runs", "1000"); code != 0 {
		t.Errorf("audit -max-runs 1000 on fixtures/m5: exit %d (%s); want 0", code, stderr)
	}
}
