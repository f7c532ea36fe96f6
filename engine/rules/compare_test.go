package rules

import (
	"testing"
)

func TestDerivation(t *testing.T) {
	src := `results["llama_cpp_unpatched"] = {
    "per_tok":
        round(u["disk0_mb"] / 65.0, 1),
}
results["llama_cpp_patched"] = {
    "per_tok": round(p["disk0_mb"] / n_tokens(p), 1),
    "copied": p["x"],
}`
	f := parseCode("r.py", src)
	tests := []struct {
		scope, key string
		line       int
	}{
		{"llama_cpp_unpatched", "per_tok", 3},
		{"llama_cpp_patched", "per_tok", 6},
		{"llama_cpp_patched", "copied", -7},
		{"llama_cpp_patched", "absent", 0},
		{"no_such_block", "per_tok", 0},
	}
	for _, tt := range tests {
		if got, _ := f.derivation(tt.scope, tt.key); got != tt.line {
			t.Errorf("derivation(%q, %q) = line %d; want %d", tt.scope, tt.key, got, tt.line)
		}
	}
}

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

// FuzzParseCode checks that the source lexer (and the scanners over its
// output and over tails) never panics and keeps one blanked line, of the
// same length, per line.
func FuzzParseCode(f *testing.F) {
	for _, s := range []string{`x = "a" / 65.0  # c`, "'''\n", "/* x", `"\`, "char c = '\\'';", "a // b\n\"c\nd\""} {
		f.Add("a.py", s)
		f.Add("a.cpp", s)
	}
	f.Fuzz(func(t *testing.T, name, src string) {
		c := parseCode(name, src)
		if len(c.lines) != len(c.blank) || len(c.strs) != len(c.lines) {
			t.Fatalf("parseCode: %d lines, %d blanked, %d string lists", len(c.lines), len(c.blank), len(c.strs))
		}
		for i := range c.lines {
			if len(c.lines[i]) != len(c.blank[i]) {
				t.Fatalf("parseCode: line %d is %d bytes, blanked %d", i+1, len(c.lines[i]), len(c.blank[i]))
			}
		}
		numberLiterals(src)
		c.derivation("", "k")
	})
}
