package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/format"
)

// -metrics lists every run of the snapshot with its metrics, each with its
// printed text, unit and tail line.
func TestRunMetrics(t *testing.T) {
	root := fixtures + "/m5-v3"
	snap, err := archive.Load(root, format.For)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-metrics", "-root", root, "-format", "json"}); code != 0 {
		t.Fatalf("run(-metrics) = %d; want 0\n%s", code, stderr.String())
	}
	var got struct {
		Runs []struct {
			Run     string
			Metrics []struct {
				Name, Text, Unit string
				Value            *float64
				Line             int
			}
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("-metrics -format json: %v\n%s", err, stdout.String())
	}
	listed := map[string]int{}
	for _, r := range got.Runs {
		listed[r.Run] = len(r.Metrics)
	}
	if len(snap.Runs) != 22 {
		t.Fatalf("fixture has %d runs; want 22", len(snap.Runs))
	}
	for _, r := range snap.Runs {
		if listed[r.Name] == 0 {
			t.Errorf("-metrics lists run %s with %d metrics; want it listed with its metrics", r.Name, listed[r.Name])
		}
	}
	// The carried-over llama-cli run: its "[ Prompt: 14.3 t/s | …" line.
	for _, r := range got.Runs {
		if r.Run != "llama_unpatched_step2_ub1024" {
			continue
		}
		m := r.Metrics[0]
		if m.Name != "cli_prompt_tok_s" || m.Text != "14.3" || m.Unit != "tok/s" || m.Value == nil || *m.Value != 14.3 || m.Line != 39 {
			t.Errorf("first metric of %s = %+v; want cli_prompt_tok_s 14.3 tok/s line 39", r.Run, m)
		}
	}

	// Text: a header, then run, metric, value, text, unit and line.
	stdout.Reset()
	if code := run(&stdout, &stderr, []string{"-metrics", "-root", root, "llama_unpatched_step2_ub1024"}); code != 0 {
		t.Fatalf("run(-metrics RUN) = %d\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if f := strings.Fields(lines[1]); len(f) != 6 || f[0] != "llama_unpatched_step2_ub1024" || f[1] != "cli_prompt_tok_s" || f[3] != "14.3" || f[5] != "39" {
		t.Errorf("-metrics text line = %q; want run, metric, value, text, unit, line", lines[1])
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "llama_unpatched_step2_ub1024 ") {
			t.Errorf("-metrics RUN printed another run's line %q", l)
		}
	}
}

func TestRunMetricsErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown run", []string{"-metrics", "-root", fixtures + "/m5-v3", "nosuch"}, `no run "nosuch"`},
		{"format", []string{"-metrics", "-root", fixtures + "/m5-v3", "-format", "markdown"}, "text or json"},
		{"root", []string{"-metrics", "-root", fixtures + "/nosuch"}, "nosuch"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, tt.args); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("run(%s) = %d, %q; want 2 and %q", tt.name, code, stderr.String(), tt.want)
		}
	}
}

// -metrics over an output with a malformed metric line lists the error and
// exits 1, as the audit's runs.parse fails it: a listing that prints
// "error:" must not look like a clean one to a script (it exited 0).
func TestRunMetricsParseErrorExits1(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".log", ".json"} {
		b, err := os.ReadFile(fixtures + "/llamacpp/runs/cli_pythia14_b3761" + ext)
		if err != nil {
			t.Fatal(err)
		}
		if ext == ".log" {
			b = append(b, "llama_perf_context_print:        eval time\n"...)
		}
		if err := os.WriteFile(filepath.Join(dir, "runs", "cli"+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"-metrics", "-root", dir})
	if code != 1 || !strings.Contains(stdout.String(), "error: ") || !strings.Contains(stderr.String(), "parse error") {
		t.Errorf("run(-metrics) on a malformed log = %d, stdout %q, stderr %q; want 1, an error line and a parse-error count", code, stdout.String(), stderr.String())
	}
	// the error is at its tail line, without the run's source again
	const wantErr = `error: cli: 26: llama.cpp timing line without "=": "eval time"`
	if !strings.Contains(stdout.String(), wantErr+"\n") {
		t.Errorf("run(-metrics) on a malformed log: stdout %q; want the line %q", stdout.String(), wantErr)
	}
	stdout.Reset()
	if code := run(&stdout, io.Discard, []string{"-metrics", "-root", dir, "-format", "json"}); code != 1 ||
		!strings.Contains(stdout.String(), `"errors": [`+"\n"+`        "26: llama.cpp timing line without \"=\": \"eval time\""`) {
		t.Errorf("run(-metrics -format json) on a malformed log = %d, %q; want 1 and the error at its tail line", code, stdout.String())
	}
	// The same snapshot without the bad line lists cleanly.
	b, _ := os.ReadFile(fixtures + "/llamacpp/runs/cli_pythia14_b3761.log")
	if err := os.WriteFile(filepath.Join(dir, "runs", "cli.log"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"-metrics", "-root", dir}); code != 0 {
		t.Errorf("run(-metrics) on the clean log = %d, %q; want 0", code, stderr.String())
	}
}
