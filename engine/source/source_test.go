package source

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/checkout"
)

func TestParseBlanksStringsAndComments(t *testing.T) {
	tests := []struct {
		file, src string
		line      int    // 1-based
		code      string // want the blanked line, trimmed
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
		{"notes.txt", `a "b" # c`, 1, `a "b" # c`, nil},
	}
	for _, tt := range tests {
		f := Parse(tt.file, []byte(tt.src), LangOf(tt.file))
		if got := strings.TrimSpace(f.Code[tt.line-1]); got != tt.code {
			t.Errorf("Parse(%q).Code[%d] = %q; want %q", tt.src, tt.line-1, got, tt.code)
		}
		if tt.strs != nil {
			if diff := cmp.Diff(tt.strs, f.Strings[0]); diff != "" {
				t.Errorf("Parse(%q).Strings[0] mismatch (-want +got):\n%s", tt.src, diff)
			}
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
		if got := NumberLiterals(tt.in); !cmp.Equal(got, tt.want) {
			t.Errorf("NumberLiterals(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

const cSrc = `// window.cpp
struct PromptGemm {
  static PromptGemm make(const Cfg& cfg, bool measure) {
    PromptGemm p;
    if (measure) {
      p.TM = cfg.tm ? cfg.tm : 16;
    }
    auto take = [&](size_t b) { off += b; };
    return p;
  }
};

size_t Window::prompt_gemm_need_bytes() const
{
  size_t need = 0;
  size_t maxrows = (C + 16 - 1) / 16 * 16;
  return need / 4;
}

static inline int pad_rows(int n) { return (n / 4 + 1024) * 2; }
`

func TestCFuncs(t *testing.T) {
	f := Parse("w.cpp", []byte(cSrc), C)
	want := []Func{
		{Name: "make", Qualified: "make", Start: 3, End: 10},
		{Name: "prompt_gemm_need_bytes", Qualified: "Window::prompt_gemm_need_bytes", Start: 13, End: 18},
		{Name: "pad_rows", Qualified: "pad_rows", Start: 20, End: 20},
	}
	if diff := cmp.Diff(want, f.Funcs); diff != "" {
		t.Fatalf("Parse(w.cpp).Funcs mismatch (-want +got):\n%s", diff)
	}
	for _, name := range []string{"Window::prompt_gemm_need_bytes", "prompt_gemm_need_bytes"} {
		if got := f.FuncsNamed(name); len(got) != 1 {
			t.Errorf("FuncsNamed(%q) = %+v; want one function", name, got)
		}
	}
	var divs []string
	for _, l := range f.Divisors(13, 18) {
		divs = append(divs, l.Text)
	}
	if want := []string{"16", "4"}; !cmp.Equal(divs, want) {
		t.Errorf("Divisors(13, 18) (prompt_gemm_need_bytes) = %q; want %q", divs, want)
	}
}

const pySrc = `SAMPLE = "mem: scratch 1.36 GB"
A, B = 3, 4

def blocks(results):
    un = results["prev"]
    results["out"] = {
        "per_tok":
            round(un["disk0_mb"] / 65.0, 1),
        "copied": un["x"],
    }

    def inner():
        pass
    return results
x = 1
`

func TestPythonFuncsAndKeys(t *testing.T) {
	f := Parse("r.py", []byte(pySrc), Python)
	wantFuncs := []Func{
		{Name: "blocks", Qualified: "blocks", Start: 4, End: 14},
		{Name: "inner", Qualified: "inner", Start: 12, End: 13},
	}
	if diff := cmp.Diff(wantFuncs, f.Funcs); diff != "" {
		t.Fatalf("Parse(r.py).Funcs mismatch (-want +got):\n%s", diff)
	}
	tests := []struct {
		scope, key string
		start, end int
		ok         bool
	}{
		{"", "SAMPLE", 1, 1, true},
		{"", "B", 2, 2, true},
		{"out", "per_tok", 7, 8, true},
		{"out", "copied", 9, 9, true},
		{"out", "absent", 0, 0, false},
		{"no_such_block", "per_tok", 0, 0, false},
	}
	for _, tt := range tests {
		start, end, ok := f.Key(tt.scope, tt.key)
		if start != tt.start || end != tt.end || ok != tt.ok {
			t.Errorf("Key(%q, %q) = %d, %d, %v; want %d, %d, %v", tt.scope, tt.key, start, end, ok, tt.start, tt.end, tt.ok)
		}
	}
	lits := f.Literals(1, 1)
	if diff := cmp.Diff([]Literal{{Text: "1.36", Line: 1, InString: true}}, lits); diff != "" {
		t.Errorf("Literals(1, 1) mismatch (-want +got):\n%s", diff)
	}
}

// FuzzParse checks what the reader promises on any input: one blanked line
// of the same length per line, and every function, assignment and literal
// inside the file's lines with its start before its end.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`x = "a" / 65.0  # c`, "'''\n", "/* x", `"\`, "char c = '\\'';", "a // b\n\"c\nd\"", cSrc, pySrc, "f() {\n{\n}", "def f(\n  a):\n  return a / 3\n"} {
		f.Add("a.py", s)
		f.Add("a.cpp", s)
	}
	f.Fuzz(func(t *testing.T, name, src string) {
		file := Parse(name, []byte(src), LangOf(name))
		n := len(file.Lines)
		if len(file.Code) != n || len(file.Strings) != n {
			t.Fatalf("Parse: %d lines, %d blanked, %d string lists", n, len(file.Code), len(file.Strings))
		}
		for i := range file.Lines {
			if len(file.Lines[i]) != len(file.Code[i]) {
				t.Fatalf("Parse: line %d is %d bytes, blanked %d", i+1, len(file.Lines[i]), len(file.Code[i]))
			}
		}
		for _, fn := range file.Funcs {
			if fn.Start < 1 || fn.End < fn.Start || fn.End > n || fn.Name == "" {
				t.Fatalf("Parse: function %+v outside lines 1–%d", fn, n)
			}
		}
		for _, a := range file.Assigns {
			if a.Start < 1 || a.End < a.Start || a.End > n {
				t.Fatalf("Parse: assignment %+v outside lines 1–%d", a, n)
			}
		}
		for _, l := range append(file.Literals(1, n), file.Divisors(1, n)...) {
			if l.Line < 1 || l.Line > n {
				t.Fatalf("Parse: literal %+v outside lines 1–%d", l, n)
			}
		}
		if start, end, ok := file.Key("", "k"); ok && (start < 1 || end < start || end > n) {
			t.Fatalf("Key: %d–%d outside lines 1–%d", start, end, n)
		}
	})
}

// BenchmarkParse lexes the fixture's 2,230-line C++ excerpt and 760-line
// Python runner: the cost of reading one checkout's sources once.
func BenchmarkParse(b *testing.B) {
	var files [][]byte
	var names []string
	for _, rel := range []string{"vendor/strata/metal/window.cpp", "scripts/run_phase0_phase2_m5_validation.py"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "m5-v3", filepath.FromSlash(rel)))
		if err != nil {
			b.Fatal(err)
		}
		files, names = append(files, data), append(names, rel)
	}
	n := 0
	for _, f := range files {
		n += len(f)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for i, f := range files {
			Parse(names[i], f, LangOf(names[i]))
		}
	}
}

// TestCheckoutLanguages: the languages a spec file's "sources" may name
// (checked by checkout, which imports no parser) are the ones Parse reads.
func TestCheckoutLanguages(t *testing.T) {
	var want []string
	for _, l := range Langs() {
		want = append(want, string(l))
	}
	if got := checkout.Languages(); !slices.Equal(got, want) {
		t.Errorf("checkout.Languages() = %v; want %v (Langs)", got, want)
	}
}
