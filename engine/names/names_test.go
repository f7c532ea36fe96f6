package names

import "testing"

var known = []string{"plan.unsourced", "plan.stale", "plan.range", "prefill_tok_s", "prefill_ms", "decode_tok_s", "arena", "code", "q2_0", "iq3_s"}

func TestClosest(t *testing.T) {
	for _, tt := range []struct {
		name string
		want string
		ok   bool
	}{
		{"plan.unsorced", "plan.unsourced", true}, // a letter left out
		{"prefil_tok_s", "prefill_tok_s", true},   // the typo
		{"plan.satle", "plan.stale", true},        // two letters swapped: one edit
		{"Decode_Tok_S", "decode_tok_s", true},    // case folded
		{"arean", "arena", true},                  // swap
		{"q2_1", "q2_0", true},                    // one substitution in a short name
		{"xyz", "", false},                        // nothing near
		{"cod", "code", true},                     // one letter of four
		{"zz", "", false},                         // a short name allows one edit only
		{"completely_different", "", false},       // too far
		{"", "", false},                           // nothing asked
		{"arena", "", false},                      // the name itself is no suggestion
	} {
		got, ok := Closest(tt.name, known)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestClosestTieIsOrderIndependent(t *testing.T) {
	a, _ := Closest("ab", []string{"ac", "ad"})
	b, _ := Closest("ab", []string{"ad", "ac"})
	if a != b || a != "ac" {
		t.Errorf("Closest(%q) = %q and %q by order; want %q both times", "ab", a, b, "ac")
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"ab", "ba", 1}, {"ca", "abc", 3}, {"§7.1", "§7.2", 1}, {"日本語", "日本", 1},
	} {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	if got, want := DidYouMean("plan.unsorced", known), `; did you mean "plan.unsourced"?`; got != want {
		t.Errorf("DidYouMean(%q) = %q; want %q", "plan.unsorced", got, want)
	}
	if got := DidYouMean("xyz", known); got != "" {
		t.Errorf("DidYouMean(%q) = %q; want \"\"", "xyz", got)
	}
}
