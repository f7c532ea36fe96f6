package plan

import "testing"

// TestSpanIn: a code span is in a tail as a sequence of its whole words.
func TestSpanIn(t *testing.T) {
	const tail = "llama_perf_context_print:        eval time =       0.00 ms /     1 runs   (    0.00 ms per token)\nnext"
	tests := []struct {
		span string
		want bool
	}{
		{"eval time = 0.00 ms / 1 runs", true},
		{"eval time =       0.00 ms /     1 runs", true},
		{"eval time = 0.10 ms / 1 runs", false},
		{"eval time = 0.00 ms / 1 runs (", true},
		{"evaltime = 0.00 ms", false},
		{"token) next", false}, // white space within a line only
		{"token)", true},
		{"00 ms / 1 runs", false}, // starts inside 0.00
		{"eval time = 0", false},  // ends inside 0.00
		{"0.00 ms per token)", true},
		{"", false},
	}
	for _, tt := range tests {
		if got := SpanIn(tt.span, tail); got != tt.want {
			t.Errorf("SpanIn(%q, tail) = %v; want %v", tt.span, got, tt.want)
		}
	}
}
