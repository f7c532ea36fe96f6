package metric

import (
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name string
		unit string
		kind Kind
		ok   bool
	}{
		{"decode_tok_s", "tok/s", Measured, true},
		{"arena_slots", "slots", Deterministic, true},
		{"k512.max_abs_err", "", Deterministic, true}, // a family's member
		{"k512.decode_tok_s", "", 0, false},           // only families take a prefix
		{"pp512", "tok/s", Measured, true},            // llama-bench tests
		{"tg128", "tok/s", Measured, true},
		{"pp512_tg128", "tok/s", Measured, true},
		{"pp512_d1024", "tok/s", Measured, true},
		{"tg32_stddev", "tok/s", Measured, true},
		{"pp512_tg128_d4096_stddev", "tok/s", Measured, true},
		{"pp", "", 0, false},
		{"pp512x", "", 0, false},
		{"tg128_pp512", "", 0, false},
		{"pp512_stddev_stddev", "", 0, false},
		{"ppl", "", Deterministic, true}, // perplexity, not a bench test
		{"decode_tok", "", 0, false},
		{"", "", 0, false},
	}
	for _, tt := range tests {
		d, ok := Lookup(tt.name)
		if ok != tt.ok || d.Unit != tt.unit || d.Kind != tt.kind {
			t.Errorf("Lookup(%q) = %+v, %v; want unit %q, kind %v, %v", tt.name, d, ok, tt.unit, tt.kind, tt.ok)
		}
	}
}

// TestVocabulary: names are unique and well formed, every entry has a kind
// and a meaning, and Vocabulary hands out a copy.
func TestVocabulary(t *testing.T) {
	seen := map[string]bool{}
	v := Vocabulary()
	for _, d := range v {
		if seen[d.Name] {
			t.Errorf("metric %q defined twice", d.Name)
		}
		seen[d.Name] = true
		base := strings.TrimPrefix(strings.TrimPrefix(d.Name, family), benchFamily)
		if d.Name == benchFamily {
			base = "test"
		}
		if base == "" || strings.Trim(base, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Errorf("metric name %q: want lower-case letters, digits and _ (after an optional %s)", d.Name, family)
		}
		if d.Kind != Deterministic && d.Kind != Measured || d.Meaning == "" {
			t.Errorf("metric %q: kind %v, meaning %q; want a kind and a meaning", d.Name, d.Kind, d.Meaning)
		}
	}
	v[0].Name = "changed"
	if Vocabulary()[0].Name == "changed" {
		t.Error("Vocabulary returned the table itself; want a copy")
	}
}

func TestMarkdown(t *testing.T) {
	md := Markdown()
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	if got, want := len(lines), len(Vocabulary())+2; got != want {
		t.Errorf("Markdown() has %d lines; want %d (header, rule, one per metric)", got, want)
	}
	if !strings.Contains(md, "| `decode_tok_s` | tok/s | measured | decode rate |") {
		t.Errorf("Markdown() lacks the decode_tok_s row:\n%s", md)
	}
}
