package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
)

func TestParseCodeBlanksStringsAndComments(t *testing.T) {
	tests := []struct {
		file, src string
		line      int    // 1-based
		blank     string // want the blanked line, trimmed
		strs      []string
	}{
		{"a.py", `x = round(d["disk0_mb"] / 65.0, 1)  # per 65 tok`, 1, `x = round(d[          ] / 65.0, 1)`, []string{"disk0_mb"}},
		{"a.py", "s = \"scratch 1.36 GB\"\ny = 2", 1, "s =", []string{"scratch 1.36 GB"}},
		{"a.py", "d = '''doc 1.36\nmore'''\nz = 3 / 7", 3, "z = 3 / 7", nil},
		{"a.py", `s = "a \" b" / 9`, 1, `s =          / 9`, []string{`a \" b`}},
		{"w.cpp", "n = 16; // 1.36 * gb\n/* 65.0\n */ m = 2;", 3, "m = 2;", nil},
		{"w.cpp", `log("in the expert arena %d", x / 4);`, 1, `log(                        , x / 4);`, []string{"in the expert arena %d"}},
		{"w.cpp", `char c = '/'; int d = a / 3;`, 1, `char c =    ; int d = a / 3;`, []string{"/"}},
		{"u.py", "s = \"unterminated\nx = 1 / 5", 2, "x = 1 / 5", nil},
	}
	for _, tt := range tests {
		f := parseCode(tt.file, tt.src)
		if got := strings.TrimSpace(f.blank[tt.line-1]); got != tt.blank {
			t.Errorf("parseCode(%q).blank[%d] = %q; want %q", tt.src, tt.line, got, tt.blank)
		}
		if tt.strs != nil && !reflect.DeepEqual(f.strs[0], tt.strs) {
			t.Errorf("parseCode(%q).strs[0] = %q; want %q", tt.src, f.strs[0], tt.strs)
		}
		if len(f.lines) != len(f.blank) {
			t.Errorf("parseCode(%q): %d lines, %d blanked lines", tt.src, len(f.lines), len(f.blank))
		}
	}
}

func TestNumberLiterals(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"x * 1.36 + 65.0 / 3", []string{"1.36", "65.0", "3"}},
		{"v1.2.3 K256 x86_64 0x1f", nil},
		{"a[12] = 3.", []string{"12", "3."}},
		{"1.36GB", nil},
	}
	for _, tt := range tests {
		if got := numberLiterals(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("numberLiterals(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

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

func TestLiteralDivisors(t *testing.T) {
	f := parseCode("r.py", "a = b / 65.0\nc = d / 1000\ne = \"x / 7\"  # / 9\nm = ((n + 16 - 1) / 16) * 16\ng = h / count")
	fs := literalDivisors([]*codeFile{f})
	if len(fs) != 1 || fs[0].Line != 1 || fs[0].Raw != "/ 65.0" || fs[0].Severity != finding.Fail {
		t.Errorf("literalDivisors = %v; want one fail at line 1 for / 65.0", fs)
	}
}

func TestHardCodedMirrors(t *testing.T) {
	const make = "Gemm *Gemm::make(const Params &p) {\n    size_t rows = ((p.C + p.TM - 1) / p.TM) * p.TM;\n}\n"
	const mirror = "size_t W::need_bytes() const {\n    size_t rows = ((p.C + 16 - 1) / 16) * 16;\n    return rows;\n}\n"
	tests := []struct {
		name string
		src  string
		sev  finding.Severity
		want string
	}{
		{"hard-coded", make + mirror, finding.Warn, "hard-code 16 (L5)"},
		{"asserted", make + mirror + "void W::init() {\n    assert(bytes == need_bytes());\n}\n", finding.Pass, "asserts the plan's need equals"},
		{"uses the field", make + strings.ReplaceAll(mirror, "16", "p.TM"), finding.Pass, "hard-code no round-up literal"},
	}
	for _, tt := range tests {
		fs := hardCodedMirrors([]*codeFile{parseCode("w.cpp", tt.src)})
		if len(fs) != 1 || fs[0].Severity != tt.sev || !strings.Contains(fs[0].Message, tt.want) {
			t.Errorf("%s: hardCodedMirrors = %v; want one %v finding saying %q", tt.name, fs, tt.sev, tt.want)
		}
	}
	if fs := hardCodedMirrors([]*codeFile{parseCode("r.py", "x = 1")}); len(fs) != 1 || fs[0].Severity != finding.Warn {
		t.Errorf("hardCodedMirrors(no C sources) = %v; want one warning that the check did not run", fs)
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
		cFuncs(c)
		hardCodedMirrors([]*codeFile{c})
	})
}
