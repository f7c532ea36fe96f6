//go:build linux || darwin

package spec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkHostileMemory runs the built audit program over the hostile
// inputs of issue 23, each generated into a temporary directory, and
// reports the child's peak resident set size against the bound: at most 2×
// the largest input file + 256 MB. Inputs are the sizes times
// STRATA_BENCH_SCALE (default 0.01, so a default run takes seconds); the
// full figures come from
//
//	STRATA_BENCH_SCALE=1 go test ./spec -run '^$' -bench HostileMemory -benchtime 1x
//
// A case over the bound fails the benchmark.
func BenchmarkHostileMemory(b *testing.B) {
	scale := 0.01
	if v := os.Getenv("STRATA_BENCH_SCALE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f > 1 {
			b.Fatalf("STRATA_BENCH_SCALE=%q: want a number in (0, 1]", v)
		}
		scale = f
	}
	bin, err := auditBin()
	if err != nil {
		b.Fatal(err)
	}
	const llamaLine = "llama_perf_context_print:        eval time =    1234.56 ms /   100 runs   (   12.35 ms per token,    81.00 tokens per second)\n"
	for _, c := range []struct {
		name string
		make func(b *testing.B, root string, scale float64) // writes the snapshot
		// over is the flag of the default limit the input passes at the
		// scale, "" when it passes none: then the audit must not stop
		// (exit 2), else its message must name the flag. It keeps a case
		// honest: an input the audit never parsed would pass the bound.
		over func(scale float64) string
	}{
		{"llamacpp_504MB_metric_lines", func(b *testing.B, root string, s float64) {
			writeRepeated(b, filepath.Join(root, "runs", "big.log"), llamaLine, int(504e6*s))
		}, func(s float64) string {
			return overIf(int(504e6*s)/len(llamaLine)*3 > 1_000_000 /* ms, ms/tok, tok/s a line */, "-max-metrics")
		}},
		{"declared_format_50MB_every_line", func(b *testing.B, root string, s float64) {
			spec := `{"programs": [{"match": "mytool", "parser": "mine"}], "formats": {"mine": [{"pattern": "^v=(?P<v>[0-9.]+)$", "metrics": {"v": {"name": "v", "unit": "ms"}}}]}}`
			writeFile(b, filepath.Join(root, "strataspec.json"), spec)
			writeFile(b, filepath.Join(root, "runs", "x.json"), `{"cmd": ["./mytool"]}`)
			writeRepeated(b, filepath.Join(root, "runs", "x.log"), "v=1.25\n", int(50e6*s))
		}, func(s float64) string { return overIf(int(50e6*s)/7 > 1_000_000, "-max-metrics") }},
		{"run_records_1e6", func(b *testing.B, root string, s float64) {
			writeStream(b, filepath.Join(root, "results", "r.json"), func(w *bufio.Writer) {
				w.WriteString(`{"runs": [`)
				for i := range int(1e6 * s) {
					if i > 0 {
						w.WriteByte(',')
					}
					rec, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("r%07d", i), "cmd": []string{"./llama-cli", "-m", "m.gguf", "-n", "64"},
						"env": map[string]string{}, "exit_code": 0, "duration_s": 1.5, "output_tail": "llama_perf_context_print:        eval time =    1234.56 ms /   100 runs"})
					w.Write(rec)
				}
				w.WriteString("]}")
			})
			writeFile(b, filepath.Join(root, "strataspec.json"), `{"results": [{"file": "results/r.json", "runs": "runs"}]}`)
		}, func(s float64) string { return overIf(int(1e6*s) > 100_000, "-max-runs") }},
		{"claims_rows_1e6", func(b *testing.B, root string, s float64) {
			writeFile(b, filepath.Join(root, "PLAN.md"), "# Plan\n\n## §1 Results\n\nDecode reaches 32.74 tok/s.\n")
			writeStream(b, filepath.Join(root, "PLAN.claims"), func(w *bufio.Writer) {
				w.WriteString("section §1\n")
				for i := range int(1e6 * s) {
					fmt.Fprintf(w, "§1 | 32.74 tok/s | r%07d:eval_tok_s\n", i)
				}
			})
		}, func(s float64) string { return overIf(int(1e6*s) > 10_000, "-max-claims-rows") }},
		{"newlines_511MB", func(b *testing.B, root string, s float64) {
			writeRepeated(b, filepath.Join(root, "runs", "nl.log"), "\n", int(511e6*s))
		}, func(float64) string { return "" }},
		{"six_sparse_logs_511MB", func(b *testing.B, root string, s float64) {
			for i := range 6 {
				p := filepath.Join(root, "runs", fmt.Sprintf("s%d.log", i))
				writeFile(b, p, "")
				if err := os.Truncate(p, int64(511e6*s)); err != nil {
					b.Fatal(err)
				}
			}
		}, func(s float64) string { return overIf(6*int64(511e6*s) > 2<<30, "-max-bytes") }},
	} {
		b.Run(c.name, func(b *testing.B) {
			root := b.TempDir()
			c.make(b, root, scale)
			largest := largestFile(b, root)
			bound := 2*largest + 256<<20
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				cmd := exec.Command(bin, "-root", root, "-format", "json")
				var errb bytes.Buffer
				cmd.Stderr = &errb
				err := cmd.Run()
				took := time.Since(start)
				var ee *exec.ExitError
				if err != nil && !errors.As(err, &ee) {
					b.Fatal(err)
				}
				ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
				if !ok {
					b.Fatal("no rusage for the audit process")
				}
				peak := rusageMaxRSS(ru)
				b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
				b.ReportMetric(float64(bound)/(1<<20), "bound-MiB")
				b.ReportMetric(float64(cmd.ProcessState.ExitCode()), "exit")
				b.ReportMetric(took.Seconds(), "s")
				b.Logf("largest input %d bytes; exit %d; %s", largest, cmd.ProcessState.ExitCode(), firstLine(errb.String()))
				want := c.over(scale)
				if code := cmd.ProcessState.ExitCode(); want == "" && code == 2 || want != "" && (code != 2 || !strings.Contains(errb.String(), want)) {
					b.Errorf("exit %d, stderr %q; want %s", code, firstLine(errb.String()), map[bool]string{true: "no limit reached", false: "exit 2 naming " + want}[want == ""])
				}
				if peak > bound {
					b.Errorf("peak RSS %d MiB > bound %d MiB (2 × largest input %d MiB + 256 MiB)", peak>>20, bound>>20, largest>>20)
				}
			}
		})
	}
}

// overIf is flag when over holds, else "".
func overIf(over bool, flag string) string {
	if over {
		return flag
	}
	return ""
}

// rusageMaxRSS is a child's peak resident set size in bytes: Linux counts
// it in kilobytes, darwin in bytes.
func rusageMaxRSS(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}

// writeFile writes content to path, creating its folder.
func writeFile(b *testing.B, path, content string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}

// writeRepeated writes line repeated up to size bytes to path.
func writeRepeated(b *testing.B, path, line string, size int) {
	b.Helper()
	chunk := strings.Repeat(line, max(1, (1<<20)/len(line)))
	writeStream(b, path, func(w *bufio.Writer) {
		for n := max(1, size/len(line)); n > 0; {
			k := min(n, len(chunk)/len(line))
			w.WriteString(chunk[:k*len(line)])
			n -= k
		}
	})
}

// writeStream creates path (and its folder) and writes it through write.
// Inputs are written in pieces, never held whole: the child's peak RSS, as
// Linux counts it, includes the parent's own high-water mark (the child is
// forked with the parent's memory until it execs), so a benchmark that
// built a 511 MB input in memory would charge it to every audit after.
func writeStream(b *testing.B, path string, write func(w *bufio.Writer)) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	write(w)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// largestFile is the size of the largest file under root.
func largestFile(b *testing.B, root string) int64 {
	var n int64
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := d.Info()
		if err == nil {
			n = max(n, st.Size())
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// firstLine is s up to its first line end.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
