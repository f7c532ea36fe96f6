package tail_test

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/tail"
)

// BenchmarkParseStrata parses a speed-run tail repeated to about 1 MB.
func BenchmarkParseStrata(b *testing.B) {
	text := strings.Repeat(speedTail, 1<<20/len(speedTail))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		ms := tail.ParseStrata("bench", text)
		if len(ms.Errors) > 0 {
			b.Fatal(ms.Errors[0])
		}
	}
}

// BenchmarkParseStrataTail parses one speed-run tail (about 1.3 KB), the
// size of the tails a results file archives.
func BenchmarkParseStrataTail(b *testing.B) {
	b.SetBytes(int64(len(speedTail)))
	for b.Loop() {
		ms := tail.ParseStrata("bench", speedTail)
		if len(ms.Errors) > 0 {
			b.Fatal(ms.Errors[0])
		}
	}
}

// BenchmarkParseRunner parses about 1 MB of tails for the runner's lines,
// which every llama.cpp run's tail is read for.
func BenchmarkParseRunner(b *testing.B) {
	text := strings.Repeat(speedTail, 1<<20/len(speedTail))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if ms := tail.ParseRunner("bench", text); len(ms.List) == 0 {
			b.Fatal("no runner metric")
		}
	}
}
