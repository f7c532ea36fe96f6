package input

import "testing"

func TestLongestContainedPrefix(t *testing.T) {
	tests := []struct{ s, f, want string }{
		{"Termina + generated", "You are solving a Termina", "Termina"},
		{"abc", "xxabcxx", "abc"},
		{"zzz", "abc", ""},
		{"", "abc", ""},
	}
	for _, tt := range tests {
		if got := longestContainedPrefix(tt.s, tt.f); got != tt.want {
			t.Errorf("longestContainedPrefix(%q, %q) = %q; want %q", tt.s, tt.f, got, tt.want)
		}
	}
}

func TestRelation(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"abc", "abcdef", "exactly its first 3 bytes"},
		{"cd", "abcdef", "a part of it"},
		{"xy", "abcdef", "different content"},
	}
	for _, tt := range tests {
		if got := relation([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("relation(%q, %q) = %q; want %q", tt.a, tt.b, got, tt.want)
		}
	}
}
