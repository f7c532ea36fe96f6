package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const sample = `# strata — plan

Intro with 12 numbers outside any numbered section.

## 2. Architecture

### 2.7.A Expert arena

#### #29 — llama.cpp

prefill 14.3 → 38.11 tok/s (2.67×)

> **Caveat** (llama-binary-mode): the two sides use different binaries
> and modes.

#### #30 — Scratch

scratch 1.36 GB
` + "```" + `
1.99 GB in a fence is not scanned
` + "```" + `

## 7. Validation

### 7.1 Rounds

#### #5 — v3

- arena fill: Q2_0 6.39–6.44 GB/s
`

func TestParseSections(t *testing.T) {
	d := Parse("PLAN.md", []byte(sample))
	var got []string
	for _, s := range d.Sections {
		got = append(got, fmt.Sprintf("%d %q %s [%d,%d]", s.Level, s.Num, s.Place(), s.Line, s.End))
	}
	want := []string{
		`1 ""  [1,29]`,
		`2 "§2" §2 [5,22]`,
		`3 "§2.7.A" §2.7.A [7,22]`,
		`4 "#29" §2.7.A #29 [9,15]`,
		`4 "#30" §2.7.A #30 [16,22]`,
		`2 "§7" §7 [23,29]`,
		`3 "§7.1" §7.1 [25,29]`,
		`4 "#5" §7.1 #5 [27,29]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Parse sections =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	places := map[int]string{3: "", 11: "§2.7.A #29", 18: "§2.7.A #30", 29: "§7.1 #5"}
	for ln, want := range places {
		if p := d.Place(ln); p != want {
			t.Errorf("Place(%d) = %q; want %q", ln, p, want)
		}
	}
	// the fenced block carries no tokens
	if ts := d.Lines[19].Tokens(); len(ts) != 0 {
		t.Errorf("line 20 (fenced) tokens = %v; want none", got2(ts))
	}
	var quotes []string
	for _, tk := range d.TokensIn("§2.7.A") {
		quotes = append(quotes, fmt.Sprintf("%d:%s", tk.Line, tk.Text))
	}
	if w := "11:14.3 → 38.11 tok/s 11:2.67× 18:1.36 GB"; strings.Join(quotes, " ") != w {
		t.Errorf("TokensIn(§2.7.A) = %v; want %s", quotes, w)
	}
}

func got2(ts []Token) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Text)
	}
	return out
}

func TestCaveat(t *testing.T) {
	d := Parse("PLAN.md", []byte(sample))
	c, ok := d.Caveat("llama-binary-mode", "§2.7.A #29")
	if !ok {
		t.Fatalf("Caveat(llama-binary-mode, §2.7.A #29) not found; caveats: %+v", d.Caveats)
	}
	if c.Line != 13 || c.End != 14 || c.Text != "the two sides use different binaries and modes." || c.Place() != "§2.7.A #29" {
		t.Errorf("Caveat = line %d–%d %q at %q; want 13–14, joined text, §2.7.A #29", c.Line, c.End, c.Text, c.Place())
	}
	tests := []struct {
		id, place string
		want      bool
	}{
		{"llama-binary-mode", "§2.7.A #30", false}, // a sibling item
		{"llama-binary-mode", "§7.1 #5", false},
		{"llama-binary-mode", "", true},
		{"no-such-caveat", "§2.7.A #29", false},
	}
	for _, tt := range tests {
		if _, ok := d.Caveat(tt.id, tt.place); ok != tt.want {
			t.Errorf("Caveat(%q, %q) found = %v; want %v", tt.id, tt.place, ok, tt.want)
		}
	}
	// a caveat in an enclosing section qualifies the items inside it
	d2 := Parse("PLAN.md", []byte("### 7.1 R\n\n> **Caveat** (n1): one run per side\n\n#### #5 — x\n\n9.51 → 13.52\n"))
	if _, ok := d2.Caveat("n1", "§7.1 #5"); !ok {
		t.Errorf("Caveat(n1, §7.1 #5) with the caveat in §7.1 not found")
	}
	if _, ok := d2.Caveat("n1", "§7.2"); ok {
		t.Errorf("Caveat(n1, §7.2) found; want not found")
	}
}

// TestCaveatSaysSomething refuses a caveat whose body says nothing: it
// qualifies no claim, and EmptyCaveat finds it for the message.
func TestCaveatSaysSomething(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{".", false},
		{"", false},
		{"n/a", false},
		{"- -- ... ; :", false},
		{"see above.", false},
		{"one run per side.", true},
		{"the `-ub 1024` runs", true},
	}
	for _, tt := range tests {
		d := Parse("PLAN.md", []byte("### 7.1 R\n> **Caveat** (c): "+tt.body+"\n- 9.51 → 13.52\n"))
		if _, ok := d.Caveat("c", "§7.1"); ok != tt.want {
			t.Errorf("Caveat(c) with body %q found = %v; want %v", tt.body, ok, tt.want)
		}
		if _, ok := d.EmptyCaveat("c", "§7.1"); ok == tt.want {
			t.Errorf("EmptyCaveat(c) with body %q found = %v; want %v", tt.body, ok, !tt.want)
		}
	}
}

func TestSectionNum(t *testing.T) {
	tests := []struct{ title, want string }{
		{"7.1 M5 validation", "§7.1"},
		{"§7.1 M5 validation", "§7.1"},
		{"2.7.A Expert arena", "§2.7.A"},
		{"2. Architecture", "§2"},
		{"#29 — llama.cpp", "#29"},
		{"Item #29", "#29"},
		{"strata — plan", ""},
		{"2026-10-15 notes", ""},
		{"5G modems", ""},
	}
	for _, tt := range tests {
		if got := sectionNum(tt.title); got != tt.want {
			t.Errorf("sectionNum(%q) = %q; want %q", tt.title, got, tt.want)
		}
	}
}

// TestHeadingNumbers checks that a heading's own number is not a claim but
// other numbers in it are.
func TestHeadingNumbers(t *testing.T) {
	d := Parse("PLAN.md", []byte("### 7.1 Round of 22 runs\n"))
	ts := d.Lines[0].Tokens()
	if len(ts) != 1 || ts[0].Text != "22 runs" || d.Lines[0].Text[ts[0].Col-1:ts[0].Col-1+len(ts[0].Text)] != "22 runs" {
		t.Errorf("heading tokens = %v; want [22 runs] at its column", got2(ts))
	}
}

func TestParseCRLF(t *testing.T) {
	lf := Parse("PLAN.md", []byte(sample))
	crlf := Parse("PLAN.md", []byte(strings.ReplaceAll(sample, "\n", "\r\n")))
	if len(lf.Lines) != len(crlf.Lines) {
		t.Fatalf("CRLF plan has %d lines; LF plan %d", len(crlf.Lines), len(lf.Lines))
	}
	for i := range lf.Lines {
		if lf.Lines[i].Text != crlf.Lines[i].Text || len(lf.Lines[i].Tokens()) != len(crlf.Lines[i].Tokens()) {
			t.Errorf("line %d: CRLF %q (%d tokens); LF %q (%d tokens)", i+1, crlf.Lines[i].Text, len(crlf.Lines[i].Tokens()), lf.Lines[i].Text, len(lf.Lines[i].Tokens()))
		}
	}
	if len(crlf.Caveats) != 1 || len(crlf.Errors) != 0 {
		t.Errorf("CRLF plan: %d caveats, errors %v; want 1 caveat, no errors", len(crlf.Caveats), crlf.Errors)
	}
}

func TestParseInvalidUTF8(t *testing.T) {
	b := []byte("# p\n\n### 7.1 R\n\nfill 6.39 GB/s \xff\xfe here\nok 1.0 s\n")
	d := Parse("fixtures/x/PLAN.md", b)
	if len(d.Errors) != 1 {
		t.Fatalf("Errors = %v; want one", d.Errors)
	}
	if got, want := d.Errors[0].Error(), "fixtures/x/PLAN.md:5: invalid UTF-8 at column 16"; !strings.HasPrefix(got, want) {
		t.Errorf("Error = %q; want prefix %q", got, want)
	}
	if ts := d.Lines[4].Tokens(); len(ts) != 1 || ts[0].Text != "6.39 GB/s" {
		t.Errorf("tokens on the bad line = %v; want [6.39 GB/s]", got2(ts))
	}
	if ts := d.Lines[5].Tokens(); len(ts) != 1 {
		t.Errorf("reading did not go on after the bad line: %v", got2(ts))
	}
}

func TestParseEmptyAndOdd(t *testing.T) {
	for _, in := range []string{"", "\n", "\r", "#", "#######", "> **Caveat** (x): y", "```", "\x00\x01", "1,", "1,00", "–", "→ 5", "×", "~", "1e", "1e+", "9999999999999999999999999999999999 GB"} {
		d := Parse("PLAN.md", []byte(in))
		if d == nil || len(d.Lines) == 0 {
			t.Errorf("Parse(%q) = %v; want at least one line", in, d)
		}
	}
}

// TestFixturePlans reads the two fixture plans and checks the places the
// audit names: the 9 unsourced numbers of v3 on §7.1 #5 lines 577–581.
func TestFixturePlans(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "fixtures")
	d := load(t, filepath.Join(root, "m5-v3", "PLAN.md"))
	want := map[int][]string{
		577: {"6.39–6.44 GB/s", "6.82–7.07 GB/s", "0.5 s"},
		580: {"43-tok", "69.43 + 7.89 %", "77.32 %"},
		581: {"43-tok", "71.09 + 11.35 %", "82.44 %"},
	}
	for ln, w := range want {
		if d.Place(ln) != "§7.1 #5" {
			t.Errorf("m5-v3 PLAN.md:%d place = %q; want §7.1 #5", ln, d.Place(ln))
		}
		if g := got2(d.Lines[ln-1].Tokens()); strings.Join(g, ";") != strings.Join(w, ";") {
			t.Errorf("m5-v3 PLAN.md:%d tokens = %q; want %q", ln, g, w)
		}
	}
	if g := got2(d.Lines[577].Tokens()); !strings.Contains(strings.Join(g, ";"), "3,194.23 ms") || !strings.Contains(strings.Join(g, ";"), "5,793.62 ms") {
		t.Errorf("m5-v3 PLAN.md:578 tokens = %q; want the two prefill ms", g)
	}
	if len(d.Errors) != 0 || len(d.Caveats) != 0 {
		t.Errorf("m5-v3: errors %v, caveats %d; want none", d.Errors, len(d.Caveats))
	}
	m5 := load(t, filepath.Join(root, "m5", "PLAN.md"))
	for _, c := range []struct{ id, place string }{
		{"llama-patched-decoded-nothing", "§2.7.A #29"},
		{"llama-binary-mode", "§2.7.A #29"},
		{"llama-decode-context", "§2.7.A #29"},
		{"cold-first-run", "§7.1 #5"},
		{"decode-pair-n1", "§7.1 #5"},
	} {
		if _, ok := m5.Caveat(c.id, c.place); !ok {
			t.Errorf("m5 PLAN.md: Caveat(%q, %q) not found", c.id, c.place)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	for _, tt := range scanTests {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte("### 7.1 R\r\n\xff 1,024-token 3.4e+ ×3 ~ –5 → → 5 + + 6\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := Parse("PLAN.md", b)
		for _, l := range d.Lines {
			for _, tk := range l.Tokens() {
				if tk.Line != l.N {
					t.Fatalf("token %q on line %d says line %d", tk.Text, l.N, tk.Line)
				}
				if tk.Col < 1 || tk.Col-1+len(tk.Text) > len(l.Text) || l.Text[tk.Col-1:tk.Col-1+len(tk.Text)] != tk.Text {
					t.Fatalf("line %d %q: token %q at column %d does not point at its text", l.N, l.Text, tk.Text, tk.Col)
				}
				if len(tk.Parts) == 0 || len(tk.Parts) != len(tk.Units) {
					t.Fatalf("token %q: %d parts, %d units", tk.Text, len(tk.Parts), len(tk.Units))
				}
			}
		}
		for _, s := range d.Sections {
			if s.End < s.Line {
				t.Fatalf("section %q ends at %d before its heading at %d", s.Title, s.End, s.Line)
			}
		}
	})
}

func BenchmarkParse100k(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 0 || i < 100000; i++ {
		switch i % 10 {
		case 0:
			fmt.Fprintf(&sb, "#### #%d — item\n", i)
		case 5:
			fmt.Fprintf(&sb, "- fill %d.39–6.44 GB/s, split 82.17 + 9.38 %%, 3,194.19 ms, Q2_0 §7.1\n", i%10)
		default:
			sb.WriteString("prose line with no numbers at all, just words and MoCE=0.85 settings\n")
		}
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := Parse("PLAN.md", data)
		if len(d.Lines) < 100000 {
			b.Fatalf("%d lines", len(d.Lines))
		}
	}
}

func TestInPlace(t *testing.T) {
	tests := []struct {
		p, want string
		in      bool
	}{
		{"§7.1 #5", "§7.1 #5", true},
		{"§7.1 #5", "§7.1", true},
		{"§7.1 #5", "§7", true},
		{"§2.7.A #29", "§2.7", true},
		{"§7.10", "§7.1", false},
		{"§7.1 #4", "§7.1 #5", false},
		{"§7", "§7.1", false},
		{"", "§7", false},
		{"§3.1", "", true},
	}
	for _, tt := range tests {
		if got := InPlace(tt.p, tt.want); got != tt.in {
			t.Errorf("InPlace(%q, %q) = %v; want %v", tt.p, tt.want, got, tt.in)
		}
	}
}

// TestSectionIn: a section is in a place by structure too — an unnumbered
// heading under §3 is in §3.
func TestSectionIn(t *testing.T) {
	d := Parse("PLAN.md", []byte("## 3. Runtime\n\n### Threads\n\n8 threads\n\n## 4. Quality\n"))
	s := d.Lines[4].Section
	for _, tt := range []struct {
		want string
		in   bool
	}{{"§3", true}, {"§4", false}, {"§3.1", false}} {
		if got := s.In(tt.want); got != tt.in {
			t.Errorf("section %q In(%q) = %v; want %v", s.Title, tt.want, got, tt.in)
		}
	}
}

// TestCodeSpans lists the closed code spans of a line, not those in a fence.
func TestCodeSpans(t *testing.T) {
	d := Parse("PLAN.md", []byte("a `-ub 1024` and ``x ` y`` and `open\n```\n`in fence`\n```\n"))
	var got []string
	for _, sp := range d.Lines[0].CodeSpans() {
		got = append(got, fmt.Sprintf("%d:%s", sp.Col, sp.Text))
	}
	if w := "3:-ub 1024 18:x ` y"; strings.Join(got, " ") != w {
		t.Errorf("CodeSpans = %q; want %q", got, w)
	}
	if sp := d.Lines[2].CodeSpans(); sp != nil {
		t.Errorf("CodeSpans in a fence = %v; want none", sp)
	}
}

// TestFences follows CommonMark's fenced code blocks: a fence closes only
// with its own character, at least as long, indented at most 3 spaces; an
// unclosed fence runs to the end of the document.
func TestFences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []bool // per line: in a fenced block (fence lines included)
	}{
		{"backticks", "a 1 GB\n```\nb 2 GB\n```\nc 3 GB", []bool{false, true, true, true, false}},
		{"tilde does not close backticks", "```\n~~~\n```\nd 4 GB", []bool{true, true, true, false}},
		{"shorter does not close", "````\n```\nx 1 GB\n````\ny 2 GB", []bool{true, true, true, true, false}},
		{"longer closes", "~~~\nx\n~~~~~\ny 2 GB", []bool{true, true, true, false}},
		{"indented 4 does not close", "```\n    ```\nx\n   ```\ny", []bool{true, true, true, true, false}},
		{"indented 4 is an indented code block", "    ```\ny 2 GB", []bool{true, false}},
		{"closing fence takes no info", "```\n``` go\nz\n```\nw", []bool{true, true, true, true, false}},
		{"backtick info with a backtick is no fence", "``` a`b\nx 1 GB", []bool{false, false}},
		{"unclosed runs to the end", "```\nx 1 GB\n# H\ny 2 GB", []bool{true, true, true, true}},
	}
	for _, tt := range tests {
		d := Parse("PLAN.md", []byte(tt.in))
		var got []bool
		for _, l := range d.Lines {
			got = append(got, l.Fenced())
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: Parse(%q) fenced lines = %v; want %v", tt.name, tt.in, got, tt.want)
		}
	}
	// a heading inside an unclosed fence is no section
	d := Parse("PLAN.md", []byte("# A\n```\n## B\n"))
	if len(d.Sections) != 1 {
		t.Errorf("sections of a plan with a heading in an unclosed fence = %d; want 1", len(d.Sections))
	}
	// the fenced line's numbers are not tokens, but can be counted
	l := Parse("PLAN.md", []byte("```\nx 1.5 GB\n```")).Lines[1]
	if len(l.Tokens()) != 0 || len(l.FencedTokens()) != 1 {
		t.Errorf("fenced line: Tokens %v, FencedTokens %v; want none and one", l.Tokens(), l.FencedTokens())
	}
}

// TestBOM drops a leading UTF-8 byte order mark, with a note, so that the
// first heading is a heading.
func TestBOM(t *testing.T) {
	d := Parse("PLAN.md", []byte("\uFEFF# 1 Intro\n- 2.5 GB\n"))
	if len(d.Sections) != 1 || d.Sections[0].Num != "§1" {
		t.Fatalf("Parse with a BOM: sections %v; want one, §1", d.Sections)
	}
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "PLAN.md:1:") || !strings.Contains(d.Notes[0], "byte order mark") {
		t.Errorf("Parse with a BOM: notes %q; want one naming PLAN.md:1 and the byte order mark", d.Notes)
	}
	if d := Parse("PLAN.md", []byte("# 1 Intro\n")); len(d.Notes) != 0 {
		t.Errorf("Parse without a BOM: notes %q; want none", d.Notes)
	}
}

func load(t *testing.T, path string) *Doc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Parse("PLAN.md", b)
}
