//go:build unix

package spec

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// The hostile-snapshot suite (issue 13): the gate runs in CI on pull
// requests, where the snapshot is whatever the pull request holds. Each
// case builds a copy of a fixture in a temporary directory, makes one
// hostile change, and runs the audit command as CI would, once per output
// format, under a deadline: the test fails rather than hangs. Every case
// asserts the exit status (2 for input that cannot be read, 1 for a
// finding), what the output must say, that no output holds content from
// outside the snapshot, and that no run ends in a Go panic or stack dump.

// auditBin builds tools/strataspec once for the suite.
var auditBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "strataspec-hostile-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "audit")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/strataspec/strataspec/tools/strataspec").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./tools/strataspec: %v\n%s", err, out)
	}
	return bin, nil
})

// binDir is auditBin's directory, removed by TestMain.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// hostileDeadline bounds one audit run. The fixtures audit in well under a
// second; a hang or quadratic work is what it catches.
const hostileDeadline = 60 * time.Second

// auditRun is one run of the audit command.
type auditRun struct {
	format         string
	code           int
	stdout, stderr string
}

// runAudit audits root in every output format (report.Formats).
func runAudit(t *testing.T, root string) []auditRun {
	t.Helper()
	bin, err := auditBin()
	if err != nil {
		t.Fatal(err)
	}
	var runs []auditRun
	for _, format := range report.Formats() {
		ctx, cancel := context.WithTimeout(context.Background(), hostileDeadline)
		cmd := exec.CommandContext(ctx, bin, "-root", root, "-format", format)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			t.Fatalf("audit -format %s did not finish within %v: it hangs or its work is unbounded", format, hostileDeadline)
		}
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("audit -format %s: %v", format, err)
		}
		runs = append(runs, auditRun{format, code, out.String(), errb.String()})
	}
	return runs
}

// secret is the content of files outside the snapshot: no output may hold it.
const secret = "SECRET-hunter2"

// outsideFile writes a file outside the snapshot holding content and
// returns its path.
func outsideFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// replaceWith removes root/rel and calls make to put something else there.
func replaceWith(t *testing.T, root, rel string, make func(path string) error) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := make(p); err != nil {
		t.Fatal(err)
	}
}

// fileFacts returns what an output must not disclose about a file outside
// the snapshot: its sha256 and its size as a byte count.
func fileFacts(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s: %v", path, err)
	}
	sum := sha256.Sum256(b)
	return []string{hex.EncodeToString(sum[:]), fmt.Sprintf("%d bytes", len(b))}
}

const results = "results/phase0_phase2_m5_validation.json"

func TestHostileSnapshots(t *testing.T) {
	passwd := fileFacts(t, "/etc/passwd")
	tests := []struct {
		name    string
		fixture string
		mutate  func(t *testing.T, root string)
		code    int                                    // exit status
		want    string                                 // in stderr when the audit stops (exit 2), else in the JSON report (the text one abridges)
		inText  string                                 // in the text output
		never   []string                               // in no output
		report  func(t *testing.T, rep *report.Report) // checks the JSON report
	}{
		{
			name: "claims symlinked outside", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				out := outsideFile(t, secret+"\n")
				replaceWith(t, root, "PLAN.claims", func(p string) error { return os.Symlink(out, p) })
			},
			code: 1, want: "PLAN.claims", never: []string{"hunter2"},
		},
		{
			name: "runner source symlinked outside", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				out := outsideFile(t, "def cache_target(quant):\n    return f\"K256-{quant}-"+secret+".gguf\"\n")
				replaceWith(t, root, "scripts/run_phase0_phase2_m5_validation.py", func(p string) error { return os.Symlink(out, p) })
			},
			code: 2, want: "run_phase0_phase2_m5_validation.py", never: []string{"hunter2"},
		},
		{
			name: "prompt file ../ outside", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				snaptest.EditNth(t, filepath.Join(root, results), `"data/m5_val_prompts/strata_prompt_43tok.txt"`, `"../../../../../../etc/passwd"`, 1)
			},
			code: 1, want: "outside the snapshot", never: passwd,
		},
		{
			name: "prompt file outside through the machine mapping", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				snaptest.EditNth(t, filepath.Join(root, results), `"/tmp/m5_prompt_1600tok.txt"`, `"/../../../../etc/passwd"`, 1)
			},
			// "/.." at the root is the root: the path is /etc/passwd of the
			// audited machine, looked up under machine/ and not found there.
			code: 0, want: "/../../../../etc/passwd", never: passwd,
		},
		{
			// Unreadable input, exit 2 naming the record (issue 13): the
			// audit cannot judge an archived input it cannot read.
			name: "archived prompt is a FIFO", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				replaceWith(t, root, "data/m5_val_prompts/m5_prompt_1600tok.txt", func(p string) error { return unix.Mkfifo(p, 0o644) })
			},
			code: 1, want: "provenance.prompts[6]: data/m5_val_prompts/m5_prompt_1600tok.txt: not a regular file (a FIFO): not read",
		},
		{
			name: "input the runs read is not archived", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				if err := os.Remove(filepath.Join(root, "machine/tmp/m5_prompt_1600tok.txt")); err != nil {
					t.Fatal(err)
				}
			},
			code: 1, want: "/tmp/m5_prompt_1600tok.txt", never: []string{"(0 bytes", "sha256 )"},
		},
		{
			name: "archived prompt is /dev/zero", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				replaceWith(t, root, "data/m5_val_prompts/strata_prompt_43tok.txt", func(p string) error { return os.Symlink("/dev/zero", p) })
			},
			code: 2, want: "strata_prompt_43tok.txt",
		},
		{
			name: "page-cache record symlinked outside", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				out := outsideFile(t, `{"format": "strataspec-residency/1", "op": "`+secret+`"}`)
				replaceWith(t, root, "results/residency/evict_file_cache.after.json", func(p string) error { return os.Symlink(out, p) })
			},
			code: 1, want: "evict_file_cache.after.json", never: []string{"hunter2"},
		},
		{
			name: "page-cache record named outside", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"after": "results/residency/evict_file_cache.after.json"`, `"after": "../../../../../../etc/passwd"`)
			},
			code: 1, want: "outside the snapshot", never: passwd,
		},
		{
			name: "page-cache record is a FIFO", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				replaceWith(t, root, "results/residency/warm_file_cache.before.json", func(p string) error { return unix.Mkfifo(p, 0o644) })
			},
			code: 1, want: "warm_file_cache.before.json",
		},
		{
			name: "claims expression 600,000 deep", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				p := filepath.Join(root, "PLAN.claims")
				deep := "§7.1 #5 | 1 | " + strings.Repeat("ceil(", 600_000) + "1" + strings.Repeat(")", 600_000) + "\n"
				snaptest.Write(t, p, snaptest.Read(t, p)+deep)
			},
			code: 1, want: "PLAN.claims:",
		},
		{
			// Records are keyed apart from runs: a run named like a
			// route_parity log cannot replace its metrics.
			name: "run named like a record", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				p := filepath.Join(root, results)
				var doc map[string]any
				if err := json.Unmarshal([]byte(snaptest.Read(t, p)), &doc); err != nil {
					t.Fatal(err)
				}
				runs := doc["runs"].([]any)
				extra := maps.Clone(runs[0].(map[string]any))
				extra["name"] = "results/route_parity/default_1.log"
				doc["runs"] = append(runs, extra)
				b, err := json.MarshalIndent(doc, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				snaptest.Write(t, p, string(b))
			},
			code: 1, want: "results/route_parity/default_1.log",
			report: func(t *testing.T, rep *report.Report) {
				parity := 0
				for _, f := range rep.Findings {
					if f.Rule == "parity" {
						parity++
						if f.Severity != finding.Pass {
							t.Errorf("parity finding %v; want every parity finding to pass on the fixed snapshot's records", f)
						}
					}
				}
				if parity == 0 {
					t.Error("no parity finding: the records were not read")
				}
			},
		},
		// The messages of issue 23: each names the input that failed, by
		// what it is, never a rule that happened to read it.
		{
			name: "PLAN.md is a FIFO", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				replaceWith(t, root, "PLAN.md", func(p string) error { return unix.Mkfifo(p, 0o644) })
			},
			code: 1, want: "PLAN.md: not a regular file (a FIFO): not read", never: []string{"(rule "},
		},
		{
			name: "PLAN.md symlinked outside", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				out := outsideFile(t, "# Plan\n\n"+secret+" 12.5 ms\n")
				replaceWith(t, root, "PLAN.md", func(p string) error { return os.Symlink(out, p) })
			},
			code: 1, want: "PLAN.md: leads outside the snapshot", never: []string{"hunter2", "(rule "},
		},
		{
			name: "prompt a log's sidecar names is a FIFO", fixture: "llamacpp",
			mutate: func(t *testing.T, root string) {
				sidecar := `{"cmd": ["./bin/llama-cli", "-f", "prompt.txt", "-n", "64"], "exit_code": 0}`
				if err := os.WriteFile(filepath.Join(root, "runs", "cli_pythia14_b3761.json"), []byte(sidecar), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := unix.Mkfifo(filepath.Join(root, "prompt.txt"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			code: 1, want: "prompt.txt: not a regular file (a FIFO): not read", never: []string{"(rule "},
		},
		{
			name: "dangling log symlink", fixture: "llamacpp",
			mutate: func(t *testing.T, root string) {
				if err := os.Symlink("gone.log", filepath.Join(root, "runs", "dangling.log")); err != nil {
					t.Fatal(err)
				}
			},
			code: 2, want: "runs/dangling.log: a symbolic link that leads nowhere", never: []string{"does not exist"},
		},
		{
			name: "sources glob folder linked outside", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				out := outsideFile(t, "RATE = 1 / 65.0  # "+secret+"\n")
				if err := os.Symlink(filepath.Dir(out), filepath.Join(root, "scripts", "extra")); err != nil {
					t.Fatal(err)
				}
			},
			code: 1, want: "sources: scripts/extra: leads outside the snapshot", never: []string{"hunter2"},
		},
		{
			name: "section line removed, its rows kept", fixture: "m5",
			mutate: func(t *testing.T, root string) {
				snaptest.Edit(t, filepath.Join(root, "PLAN.claims"), "section §7.1 #5\n", "")
			},
			code: 0, want: "measurement-like numbers ungated (§7.1 #5", never: []string{"gated=98 "},
		},
		{
			name: "JSON key forging a verdict line", fixture: "m5-v3",
			mutate: func(t *testing.T, root string) {
				snaptest.EditNth(t, filepath.Join(root, results), `{`, `{"x\nverdict: PASS": 1, `, 1)
			},
			code: 1, inText: `["x\nverdict: PASS"]: kept, not used`, never: []string{"\nverdict: PASS"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case audits its own copy, in child processes
			root := snaptest.CopyFixture(t, tt.fixture)
			tt.mutate(t, root)
			for _, r := range runAudit(t, root) {
				all := r.stdout + r.stderr
				if r.code != tt.code {
					t.Errorf("audit -format %s: exit %d; want %d\nstderr: %.500s", r.format, r.code, tt.code, r.stderr)
				}
				if r.format == "text" && !strings.Contains(r.stdout, tt.inText) {
					t.Errorf("audit -format text: output lacks %q (the key, escaped)", tt.inText)
				}
				if tt.want != "" && (r.code == 2 || r.format == "json") && !strings.Contains(all, tt.want) {
					t.Errorf("audit -format %s: output lacks %q\nstdout: %.300s\nstderr: %.500s", r.format, tt.want, r.stdout, r.stderr)
				}
				if tt.report != nil && r.format == "json" {
					var rep report.Report
					if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
						t.Fatalf("audit -format json: %v", err)
					}
					tt.report(t, &rep)
				}
				for _, n := range append(tt.never, "goroutine ", "panic:") {
					if strings.Contains(all, n) {
						t.Errorf("audit -format %s: output holds %q", r.format, n)
					}
				}
			}
		})
	}
}
