package llamacpp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/tail"
)

// syntheticLog returns a llama.cpp-like log of at least size bytes: runs of
// loader output, generated text and one performance summary each, cycling
// through the summary generations.
func syntheticLog(size int) string {
	var b strings.Builder
	b.Grow(size + 8192)
	summaries := []string{sampleOld, sampleNewer, sampleNewestZero, sampleCLI}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "build: %d (deadbeef) with Apple clang version 17.0.0 for arm64-apple-darwin25.0.0\n", 7000+i%100)
		for l := 0; l < 40; l++ {
			fmt.Fprintf(&b, "llama_model_loader: - kv %3d:                       general.field_%d str              = value %d\n", l, l, i)
		}
		b.WriteString("load_tensors: offloading 40 repeating layers to GPU\nllama_context: n_ctx         = 4096\n")
		b.WriteString("system_info: n_threads = 8 (n_threads_batch = 8) / 10 | Metal : EMBED_LIBRARY = 1 | CPU : NEON = 1 | ARM_FMA = 1 |\n")
		for l := 0; l < 20; l++ {
			b.WriteString("The quick brown fox reads the prompt and writes a long answer about page caches and experts.\n")
		}
		b.WriteString(summaries[i%len(summaries)])
	}
	return b.String()
}

// BenchmarkParse measures Parse on a synthetic log of about 100 MB. Run:
//
//	go test -run '^$' -bench BenchmarkParse -benchtime 3x ./engine/llamacpp/
func BenchmarkParse(b *testing.B) {
	log := syntheticLog(100 << 20)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ms := Parse("synthetic", log)
		if len(ms.Errors) != 0 || len(ms.List) == 0 {
			b.Fatalf("Parse: %d errors, %d metrics", len(ms.Errors), len(ms.List))
		}
	}
}

// corpusRepeated returns the named corpus files concatenated and repeated
// to at least size bytes, with a run of loader log lines between copies as
// a real tail has.
func corpusRepeated(b *testing.B, size int, names ...string) string {
	b.Helper()
	var one strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(corpusDir, n))
		if err != nil {
			b.Fatal(err)
		}
		one.Write(data)
		one.WriteString("\n")
		for l := 0; l < 20; l++ {
			fmt.Fprintf(&one, "llama_model_loader: - kv %3d:                       general.field_%d str              = value\n", l, l)
		}
	}
	return strings.Repeat(one.String(), size/one.Len()+1)
}

// measure measures one parser on text; every copy must parse without
// an error.
func measure(b *testing.B, text string, parse func(string) *tail.Metrics) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ms := parse(text)
		if len(ms.Errors) != 0 || len(ms.List) == 0 {
			b.Fatalf("%d metrics, errors %v", len(ms.List), ms.Errors[:min(3, len(ms.Errors))])
		}
	}
}

// The parsers on about 8 MB of corpus outputs each. Run:
//
//	go test -run '^$' -bench . -benchtime 5x ./engine/llamacpp/ ./engine/tail/
func BenchmarkParseBenchJSON(b *testing.B) {
	measure(b, corpusRepeated(b, 8<<20, "bench-readme-b5163.json"), func(s string) *tail.Metrics { return ParseBench("b", s).Metrics() })
}

func BenchmarkParseBenchJSONL(b *testing.B) {
	measure(b, corpusRepeated(b, 8<<20, "bench-readme-b5163.jsonl"), func(s string) *tail.Metrics { return ParseBench("b", s).Metrics() })
}

func BenchmarkParseBenchCSV(b *testing.B) {
	measure(b, corpusRepeated(b, 8<<20, "bench-readme-b5163.csv"), func(s string) *tail.Metrics { return ParseBench("b", s).Metrics() })
}

func BenchmarkParseBenchMarkdown(b *testing.B) {
	measure(b, corpusRepeated(b, 8<<20, "bench-readme-2023-md-threads.log", "bench-readme-2025-md-depth.log"), func(s string) *tail.Metrics { return ParseBench("b", s).Metrics() })
}

func BenchmarkParseServer(b *testing.B) {
	measure(b, corpusRepeated(b, 8<<20, "pr-23269-2026-llama-server.log", "issue-9013-2024-08-llama-server.log", "server-timings-2025-09.log", "issue-25121-llama-server-progress.log"),
		func(s string) *tail.Metrics { return ParseServer("s", s) })
}

func BenchmarkParsePerplexity(b *testing.B) {
	measure(b, corpusRepeated(b, 8<<20, "ci-2024-09-b3761-llama-perplexity.log", "pr-19661-kld-new.log", "pr-5081-2024-01-kld-old.log"),
		func(s string) *tail.Metrics { return ParsePerplexity("p", s) })
}

func BenchmarkParseSummaries(b *testing.B) {
	measure(b, corpusRepeated(b, 8<<20, "ci-2024-09-b3761-llama-cli.log", "pr-17382-2025-11-common-perf-print.log", "ci-2023-07-b893-main.log", "pr-1773-2023-09-decimal-comma.log"),
		func(s string) *tail.Metrics { return Parse("c", s) })
}
