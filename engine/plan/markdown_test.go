package plan

import (
	"fmt"
	"strings"
	"testing"
)

// TestPlaces names each line's place by the plan's structure: ordered-list
// items and bold item labels are items (#29) of their section, a heading's
// number counts only where it extends the enclosing one, and a heading in
// an HTML comment or a code block is no heading.
func TestPlaces(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		want string // the line's place (Place), or its Name where it has none
	}{
		{"ordered item", "### 2.7.A Arena\n\n28. first\n29. llama.cpp 14.3 tok/s\n30. next\n", 4, "§2.7.A #29"},
		{"ordered item, continued", "### 2.7.A Arena\n\n29. llama.cpp\n\n    14.3 tok/s\n\n30. next\n", 5, "§2.7.A #29"},
		{"ordered list start", "### 2.7.A Arena\n\n29. llama.cpp\n1. b\n", 4, "§2.7.A #30"},
		{"bold label", "### 2.7.A Arena\n\n**#29 — llama.cpp.** 14.3 tok/s\n\nmore 2.5 GB\n\n**#30 — next.** x\n", 5, "§2.7.A #29"},
		{"bold label ends at the next", "### 2.7.A Arena\n\n**#29 — llama.cpp.** 14.3 tok/s\n\n**#30 — next.** x 2 GB\n", 5, "§2.7.A #30"},
		{"bold Item label", "### 2.7.A Arena\n\n**Item 29.** 14.3 tok/s\n", 3, "§2.7.A #29"},
		{"bold label ends with its heading", "### 2.7.A Arena\n\n**#29 — a.** b\n\n### 2.8 Next\n\n1.5 GB\n", 7, "§2.8"},
		{"bold text is no label", "### 2.7.A Arena\n\n**Note** 14.3 tok/s\n", 3, "§2.7.A"},
		{"item inside an item is no place", "#### #5 — v3\n\n1. a\n2. b 3 GB\n", 4, "#5"},
		{"sub-heading #1 inside #5", "### 7.1 R\n\n#### #5 — v3\n\n##### #1 — Warm runs\n\n9.99 GB/s\n", 7, "§7.1 #5 > #1 — Warm runs"},
		{"sub-heading 1.3 inside §7.1", "### 7.1 R\n\n##### 1.3 Warm\n\n9.99 GB/s\n", 5, "§7.1 > 1.3 Warm"},
		{"sub-heading 7.1.2 inside §7.1", "### 7.1 R\n\n#### 7.1.2 Warm\n\n9.99 GB/s\n", 5, "§7.1.2"},
		{"heading in a comment", "### 7.1 R\n\n<!--\n### 8 Hidden\n-->\n\n9.99 GB/s\n", 7, "§7.1"},
		{"heading in a fence", "### 7.1 R\n\n```\n### 8 Hidden\n```\n\n9.99 GB/s\n", 7, "§7.1"},
		{"setext heading", "7.2 Second\n----------\n\n9.99 GB/s\n", 4, "§7.2"},
		{"untitled heading", "# Inference plan — design targets\n\n10 tok/s\n", 3, "Inference plan — design targets"},
		{"untitled under numbered", "### 7.1 R\n\n#### Warm runs\n\n1 GB\n", 5, "§7.1 > Warm runs"},
	}
	for _, tt := range tests {
		d := Parse("PLAN.md", []byte(tt.in))
		s := d.Lines[tt.line-1].Section
		got := ""
		if s != nil {
			got = s.Name()
		}
		if got != tt.want {
			t.Errorf("%s: Parse(%q) line %d place = %q; want %q", tt.name, tt.in, tt.line, got, tt.want)
		}
	}
}

// TestPathIn names a section by its heading path.
func TestPathIn(t *testing.T) {
	d := Parse("PLAN.md", []byte("# Inference plan\n\n## Design targets\n\n10 tok/s\n\n## 7. Validation\n\n### 7.1 R\n\n#### Warm runs\n\n1 GB\n"))
	targets, warm := d.Lines[4].Section, d.Lines[12].Section
	tests := []struct {
		s    *Section
		want string
		in   bool
	}{
		{targets, "Design targets", true},
		{targets, "design  TARGETS", true},
		{targets, "Inference plan > Design targets", true},
		{targets, "Inference plan", true},
		{targets, "Validation > Design targets", false},
		{targets, "§7", false},
		{warm, "§7.1 > Warm runs", true},
		{warm, "§7 > Warm runs", true},
		{warm, "§7.2 > Warm runs", false},
		{warm, "Warm", false},
		{warm, "§7.1", true},
	}
	for _, tt := range tests {
		if got := tt.s.In(tt.want); got != tt.in {
			t.Errorf("section %q In(%q) = %v; want %v", tt.s.Title, tt.want, got, tt.in)
		}
	}
}

// TestVisible reads numbers as the plan renders them.
func TestVisible(t *testing.T) {
	tests := []struct {
		in, want string // a line of a paragraph; its tokens joined by ";"
	}{
		{"fill ９.９９ GB/s", "9.99 GB/s"},
		{"fill 9.9９ GB/s", "9.99 GB/s"},
		{"fill ٩٫٩٩ GB/s", "9.99 GB/s"},
		{"fill 𝟗.𝟗𝟗 GB/s", "9.99 GB/s"},
		{"fill &#57;.99 GB/s", "9.99 GB/s"},
		{"fill &#x39;.99 GB/s", "9.99 GB/s"},
		{"fill 1&comma;024 tokens", "1,024 tokens"},
		{"fill **9.99** GB/s", "9.99 GB/s"},
		{"fill [9.99 GB/s](#x)", "9.99 GB/s"},
		{"fill 9<b></b>.99 GB/s", "9.99 GB/s"},
		{"fill ㅤ9.99 GB/s", "9.99 GB/s"},
		{"fill 9.\u200b99 GB/s", "9.99 GB/s"},
		{"[see](#71-results) https://example.com/a/1.2 <!-- 42 -->", ""},
		{"[see](#x, peak 9.99 GB/s)", "9.99 GB/s"},
		{"fill $9.99$ GB/s", "9.99 GB/s"},
		{"fill $9.99 \\times 2$ GB/s", "9.99;2 GB/s"},
		{"1,024 tokens in &#50;,&#49;&#57;&#52;.&#49;&#57; ms<!-- x -->", "1,024 tokens;2,194.19 ms"},
	}
	for _, tt := range tests {
		d := Parse("PLAN.md", []byte("### 7.1 R\n\n"+tt.in+"\n"))
		var got []string
		for _, tk := range d.Lines[2].Tokens() {
			got = append(got, tk.Text)
		}
		if strings.Join(got, ";") != tt.want {
			t.Errorf("Parse(%q) tokens = %q; want %q (visible %q)", tt.in, got, tt.want, d.Lines[2].Visible())
		}
	}
}

// TestHidden records what the plan holds that its reader does not see.
func TestHidden(t *testing.T) {
	tests := []struct {
		in   string
		want string // the first Hidden message's start, "" for none
	}{
		{"a <!-- 9.99 GB/s --> b", "an HTML comment holds a number"},
		{"a <!-- no digits --> b", ""},
		{"<!--\n### 8 Hidden\n-->", "an HTML comment holds a heading"},
		{"<!--\n9.99 GB/s", "an unclosed HTML comment"},
		{"<div>9.99 GB/s</div>", "HTML holds a number"},
		{"3,194.19 ms -->", ""},
		{"fill ㅤ9.99 GB/s", "an invisible character (U+3164)"},
		{"fill 9.9\u0301 GB/s", "an invisible character (U+0301)"},
		{"fill\u200b 9.99 GB/s", "an invisible character (U+200B)"},
		{"caf\u00e9 and 9.99 GB/s", ""},
		{"fill [rate](#x \"9.99 GB/s\")", "a link title holding a digit"},
		{"![fill](x.png \"9.99 GB/s\")", "a link title holding a digit"},
		{"fill [rate][r]\n\n[r]: #x \"9.99 GB/s\"", "a link title holding a digit"},
		{"fill [rate](#x \"the rate\")", ""},
	}
	for _, tt := range tests {
		d := Parse("PLAN.md", []byte("### 7.1 R\n\n"+tt.in+"\n"))
		got := ""
		if len(d.Hidden) > 0 {
			got = d.Hidden[0].Msg
			if d.Hidden[0].Line != 3 {
				t.Errorf("Parse(%q) Hidden at line %d; want 3", tt.in, d.Hidden[0].Line)
			}
		}
		if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
			t.Errorf("Parse(%q) Hidden = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestTokenColumns points every token at its source column, markup and
// character references before it included.
func TestTokenColumns(t *testing.T) {
	line := "**x** &amp; [a](#b) 9.99 GB/s"
	d := Parse("PLAN.md", []byte(line+"\n"))
	ts := d.Lines[0].Tokens()
	if len(ts) != 1 || line[ts[0].Col-1:] != "9.99 GB/s" {
		t.Errorf("tokens of %q = %v; want 9.99 GB/s at column %d", line, fmt.Sprint(ts), strings.Index(line, "9.99")+1)
	}
}
