package plan

import "testing"

// sentenceTests place a position in a plan and name the sentence that
// holds it, by its first and last line and column.
var sentenceTests = []struct {
	plan string
	at   Pos
	want Sentence
}{
	// a sentence wrapped over two lines is one
	{"# P\n\nAt -ub 1024 the decode\nran at 14.3 tok/s.\n", Pos{3, 4}, Sentence{Pos{3, 1}, Pos{4, 19}}},
	{"# P\n\nAt -ub 1024 the decode\nran at 14.3 tok/s.\n", Pos{4, 8}, Sentence{Pos{3, 1}, Pos{4, 19}}},
	// two sentences on one line are two
	{"# P\n\nA ran 1.5 s. B ran 2.5 s.\n", Pos{3, 7}, Sentence{Pos{3, 1}, Pos{3, 13}}},
	{"# P\n\nA ran 1.5 s. B ran 2.5 s.\n", Pos{3, 20}, Sentence{Pos{3, 13}, Pos{3, 26}}},
	// decimals, abbreviations and code spans end no sentence
	{"# P\n\nE.g. at `-t 1. -n 2` vs. 0.85 it ran.\n", Pos{3, 30}, Sentence{Pos{3, 1}, Pos{3, 38}}},
	// a list item is its own prose; the next item starts another sentence
	{"# P\n\n- at -ub 1024\n  14.3 tok/s\n- 21.7 tok/s\n", Pos{4, 3}, Sentence{Pos{3, 1}, Pos{4, 13}}},
	{"# P\n\n- at -ub 1024\n  14.3 tok/s\n- 21.7 tok/s\n", Pos{5, 3}, Sentence{Pos{5, 1}, Pos{5, 13}}},
	// a table row is no prose: its line is the unit
	{"# P\n\n| a | b |\n|---|---|\n| -ub 1024 | 14.3 tok/s |\n", Pos{5, 14}, Sentence{Pos{5, 1}, Pos{5, 26}}},
}

func TestSentenceAt(t *testing.T) {
	for _, tt := range sentenceTests {
		d := Parse("PLAN.md", []byte(tt.plan))
		if got := d.SentenceAt(tt.at); got != tt.want {
			t.Errorf("SentenceAt(%v) of %q = %v; want %v", tt.at, tt.plan, got, tt.want)
		}
	}
}
