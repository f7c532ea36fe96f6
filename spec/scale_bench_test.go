//go:build linux || darwin

package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// BenchmarkAuditLargeSnapshot audits a synthetic folder of 10,000 llama.cpp
// logs holding 1 GB of output in all (a real llama-cli output from the
// corpus, padded with generated text to 100 kB), written by the benchmark
// into a temporary directory, never committed. It reports the process's
// peak resident set size: the logs are read one at a time and let go, so it
// does not grow with the snapshot. Run it alone:
//
//	go test ./spec -run '^$' -bench AuditLargeSnapshot -benchtime 1x
func BenchmarkAuditLargeSnapshot(b *testing.B) {
	for _, size := range []struct {
		runs int
		each int // bytes a log
	}{{10000, 100_000}, {1, 200_000_000}} {
		b.Run(fmt.Sprintf("%d_runs_%dMB", size.runs, size.runs*size.each/1_000_000), func(b *testing.B) {
			root := largeSnapshot(b, size.runs, size.each)
			b.SetBytes(int64(size.runs * size.each))
			b.ResetTimer()
			for range b.N {
				rep, err := audit.Audit(root, "")
				if err != nil {
					b.Fatal(err)
				}
				if rep.Summary.Pass == 0 {
					b.Fatal("the audit checked nothing")
				}
			}
			b.StopTimer()
			var ru unix.Rusage
			if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err == nil {
				b.ReportMetric(float64(maxRSSBytes(ru))/(1<<20), "peak-RSS-MiB")
			}
		})
	}
}

// largeSnapshot writes the synthetic snapshot into a temporary directory.
func largeSnapshot(b *testing.B, runs, each int) string {
	src, err := os.ReadFile(filepath.Join(snaptest.Root(), "engine", "llamacpp", "testdata", "corpus", "ci-2024-09-b3761-llama-cli.log"))
	if err != nil {
		b.Fatal(err)
	}
	log := string(src)
	i := strings.Index(log, "llama_perf")
	if i < 0 {
		b.Fatal("corpus log without perf lines")
	}
	line := "the model wrote this line while generating text for the benchmark\n"
	pad := strings.Repeat(line, max(0, each-len(log))/len(line))
	body := []byte(log[:i] + pad + log[i:])
	root := b.TempDir()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "runs"), 0o755))
	for k := range runs {
		must(os.WriteFile(filepath.Join(root, "runs", fmt.Sprintf("r%05d.log", k)), body, 0o644))
	}
	must(os.WriteFile(filepath.Join(root, "PLAN.md"), []byte("# Plan\n\n## §1 Results\n\nDecode on r00000 reaches 32.74 tok/s.\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "PLAN.claims"), []byte("section §1\n§1 | 32.74 tok/s | r00000:eval_tok_s\n"), 0o644))
	return root
}

// maxRSSBytes is getrusage's peak resident set size in bytes: Linux counts
// it in kilobytes, darwin in bytes.
func maxRSSBytes(ru unix.Rusage) int64 {
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
