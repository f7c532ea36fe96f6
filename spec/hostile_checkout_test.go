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

// The checkout's own spec against a hostile checkout (issue 23): the golden
// reports a checkout keeps in strataspec/golden are read through snapfs, so
// a link out of the checkout or a FIFO there fails the spec naming it,
// without its content and without a hang, and -update writes nothing through
// a link or outside the checkout. Each case runs this test binary's
// TestCheckout/golden as a user would (STRATA_CHECKOUT at a copy of
// fixtures/m5, -update with CI unset where the case says), under the hostile
// suite's deadline.

// checkoutSpecRun is one run of TestCheckout/golden over a checkout.
type checkoutSpecRun struct {
	failed bool
	output string
}

// runCheckoutSpec runs TestCheckout/golden over checkout in a child of this
// test binary, with -update when update is set.
func runCheckoutSpec(t *testing.T, checkout string, update bool) checkoutSpecRun {
	t.Helper()
	args := []string{"-test.run", "^TestCheckout$/^golden$", "-test.count", "1", "-test.v"}
	if update {
		args = append(args, "-update")
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostileDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(withoutEnv(os.Environ(), "CI", envCheckout), envCheckout+"="+checkout)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("TestCheckout/golden over %s did not finish within %v: it blocks on the checkout", checkout, hostileDeadline)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running TestCheckout/golden: %v", err)
	}
	return checkoutSpecRun{failed: err != nil, output: out.String()}
}

// withoutEnv returns env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && name != n
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

func TestHostileCheckoutGolden(t *testing.T) {
	if os.Getenv(envCheckout) != "" {
		t.Skipf("%s is set: this test makes its own checkouts", envCheckout)
	}
	tests := []struct {
		name   string
		update bool
		// mutate makes the checkout hostile; outside is a folder outside it
		// holding secret.txt (SECRET-hunter2).
		mutate func(t *testing.T, golden, outside string)
		failed bool
		want   []string // in the output
	}{
		{
			name: "report.json links outside",
			mutate: func(t *testing.T, golden, outside string) {
				must(t, os.MkdirAll(golden, 0o755))
				must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(golden, "report.json")))
			},
			failed: true, want: []string{"strataspec/golden/report.json: leads outside the snapshot (through a symbolic link or ..): not read"},
		},
		{
			name: "report.json is a FIFO",
			mutate: func(t *testing.T, golden, outside string) {
				must(t, os.MkdirAll(golden, 0o755))
				must(t, unix.Mkfifo(filepath.Join(golden, "report.json"), 0o644))
			},
			failed: true, want: []string{"strataspec/golden/report.json: not a regular file (a FIFO): not read"},
		},
		{
			name: "golden folder links outside",
			mutate: func(t *testing.T, golden, outside string) {
				must(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				must(t, os.Symlink(outside, golden))
			},
			failed: true, want: []string{"strataspec/golden: leads outside the snapshot"},
		},
		{
			name: "-update, golden folder links outside", update: true,
			mutate: func(t *testing.T, golden, outside string) {
				must(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				must(t, os.Symlink(outside, golden))
			},
			failed: true, want: []string{"strataspec/golden: leads outside the snapshot"},
		},
		{
			name: "-update, report.json links outside", update: true,
			mutate: func(t *testing.T, golden, outside string) {
				must(t, os.MkdirAll(golden, 0o755))
				must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(golden, "report.json")))
			},
			failed: true, want: []string{"strataspec/golden/report.json: a symbolic link: not written through"},
		},
		{
			name: "-update, report.txt links inside the checkout", update: true,
			mutate: func(t *testing.T, golden, outside string) {
				must(t, os.MkdirAll(golden, 0o755))
				must(t, os.Symlink("../../PLAN.md", filepath.Join(golden, "report.txt")))
			},
			failed: true, want: []string{"strataspec/golden/report.txt: a symbolic link: not written through"},
		},
		{
			// The control: an ordinary checkout's reports are written, in it.
			name: "-update, no golden reports yet", update: true,
			mutate: func(t *testing.T, golden, outside string) {},
			want:   []string{"golden: rewrote", "strataspec/golden/report.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // its own copy, audited in a child process
			checkout := snaptest.CopyFixture(t, "m5")
			outside := t.TempDir()
			must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(secret+"\n"), 0o644))
			plan := snaptest.Read(t, filepath.Join(checkout, "PLAN.md"))
			golden := filepath.Join(checkout, "strataspec", "golden")
			tt.mutate(t, golden, outside)

			got := runCheckoutSpec(t, checkout, tt.update)
			if got.failed != tt.failed {
				t.Errorf("TestCheckout/golden failed = %v; want %v\n%s", got.failed, tt.failed, got.output)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.output, w) {
					t.Errorf("output lacks %q:\n%s", w, got.output)
				}
			}
			if strings.Contains(got.output, "hunter2") {
				t.Errorf("output holds the content of a file outside the checkout:\n%s", got.output)
			}
			ents, err := os.ReadDir(outside)
			must(t, err)
			if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); len(ents) != 1 || string(b) != secret+"\n" {
				t.Errorf("the folder outside the checkout changed: %d entries, secret.txt = %q", len(ents), b)
			}
			if now := snaptest.Read(t, filepath.Join(checkout, "PLAN.md")); now != plan {
				t.Errorf("PLAN.md changed: -update wrote through a link to it")
			}
			if !tt.failed {
				for _, f := range []string{"report.txt", "report.json"} {
					if st, err := os.Lstat(filepath.Join(golden, f)); err != nil || !st.Mode().IsRegular() {
						t.Errorf("-update did not write %s as a regular file in the checkout: %v", f, err)
					}
				}
			}
		})
	}
}

// must fails the test on an error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
