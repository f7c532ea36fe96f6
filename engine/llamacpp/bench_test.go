package llamacpp

import (
	"fmt"
	"strings"
	"testing"
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
