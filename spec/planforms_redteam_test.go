package spec

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// Hostile edits of a claim section found by red-teaming the gate (issue 24,
// never pass on nothing): each puts into §7.1 #5 of a copy of fixtures/m5 a
// number no run produced, in a place of the Markdown its reader sees, or
// rewrites a bound number or its row; TestPlanForms runs them with the rest.
var redteamForms = []planForm{
	// tables, lists, quotes
	{name: "table with an alignment row", line: "\n| fill | rate |\n|:---|---:|\n| Q2_0 | 9.99 GB/s |\n"},
	{name: "number in a table header", line: "\n| 9.99 GB/s | x |\n|:-:|---|\n| a | b |\n"},
	{name: "nested list item", line: "- outer\n  - inner: fill 9.99 GB/s"},
	{name: "three-deep list item", line: "- a\n  - b\n    - c: 9.99 GB/s"},
	{name: "block quote", line: "\n> fill 9.99 GB/s\n"},
	{name: "block quote in a list item", line: "- fill\n  > 9.99 GB/s"},
	{name: "nested block quote", line: "\n> > fill 9.99 GB/s\n"},
	{name: "caveat quote holding a number", line: "\n> **Caveat** (cold-first-run): the fill reaches 9.99 GB/s.\n"},
	// footnotes, links, images
	{name: "footnote definition", line: "- fill[^r].\n\n[^r]: measured at 9.99 GB/s.\n"},
	{name: "link text", line: "- fill [9.99 GB/s](#x)."},
	{name: "link title", line: "- fill [rate](#x \"9.99 GB/s\")."},
	{name: "reference link text", line: "- fill [9.99 GB/s][r].\n\n[r]: #x\n"},
	{name: "image alt text", line: "- ![fill 9.99 GB/s](x.png)"},
	// HTML
	{name: "HTML block", line: "\n<div>\nfill 9.99 GB/s\n</div>\n"},
	{name: "details and summary", line: "\n<details><summary>fill</summary>\n\n9.99 GB/s\n\n</details>\n"},
	{name: "summary text", line: "\n<details><summary>fill 9.99 GB/s</summary>\n\nx\n\n</details>\n"},
	{name: "inline kbd", line: "- fill <kbd>9.99</kbd> GB/s."},
	{name: "sup element", line: "- fill 9.99<sup>2</sup> GB/s."},
	// headings
	{name: "setext heading level 2", line: "\nfill 9.99 GB/s\n--------------\n"},
	{name: "setext heading level 1", line: "\nfill 9.99 GB/s\n==============\n"},
	{name: "ATX heading holding a number", line: "\n##### fill 9.99 GB/s\n"},
	// emphasis and marks around digits
	{name: "emphasis inside a number", line: "- fill *9*.99 GB/s."},
	{name: "strong number", line: "- fill **9.99** GB/s."},
	{name: "strikethrough number", line: "- fill ~~9.99~~ GB/s."},
	{name: "emphasis on the fraction", line: "- fill 9.*99* GB/s."},
	// characters inside or around the number
	{name: "NBSP thousands separator", line: "- fill 9\u00a0999 GB/s."},
	{name: "narrow NBSP thousands separator", line: "- prefill 3\u202f194.19 ms."},
	{name: "word joiner inside", line: "- fill 9.9\u20609 GB/s."},
	{name: "BOM inside", line: "- fill 9.\ufeff99 GB/s."},
	{name: "soft hyphen inside", line: "- fill 9\u00ad.99 GB/s."},
	{name: "subscript digits", line: "- fill ₉.₉₉ GB/s."},
	{name: "circled digit", line: "- fill ⑨ GB/s."},
	{name: "vulgar fraction", line: "- fill ½ GB/s."},
	{name: "digit and vulgar fraction", line: "- fill 9½ GB/s."},
	{name: "Unicode minus", line: "- fill −9.99 GB/s."},
	{name: "approximately", line: "- fill ~9.99 GB/s."},
	{name: "almost equal", line: "- fill ≈9.99 GB/s."},
	{name: "times factor", line: "- fill 2× faster."},
	{name: "multiplier after", line: "- fill 9.99x faster."},
	{name: "en-dash range", line: "- fill 9.99–10.5 GB/s."},
	{name: "percent", line: "- fill 99.9%."},
	{name: "fraction with slash", line: "- fill 3/4 of the arena."},
	{name: "upper-case k suffix", line: "- the arena holds 1.5K slots."},
	{name: "spelled-out multiplier", line: "- fill 9.99 million slots."},
	// code
	{name: "code span holding a measurement", line: "- fill `9.99 GB/s`."},
	{name: "double-backtick code span", line: "- fill ``9.99 GB/s``."},
	{name: "indented code block", line: "\n    fill 9.99 GB/s\n"},
	{name: "fenced block with an info string", line: "\n~~~text\nfill 9.99 GB/s\n~~~\n"},
	// a bound number rewritten with its row
	{name: "sign dropped from plan and row", edit: editOnce("−55.8 %", "55.8 %"), claims: editOnce("| −55.8 % |", "| 55.8 % |")},
	{name: "row retargeted to another run", edit: editOnce("(320.58 tok/s)", "(353.49 tok/s)"),
		claims: editOnce("| 320.58 tok/s | strata_q2_0_moce085_prefill_1024tok:prefill_tok_s", "| 353.49 tok/s | strata_q2_0_moce085_prefill_2048tok:prefill_tok_s | n=2")},
	{name: "row retargeted to another metric", edit: editOnce("swapout is 0.0 MiB", "swapout is 3.40 GB"),
		claims: editOnce("| 0.0 MiB | each(@all:swapout_mib)", "| 3.40 GB | each(@strata:arena_gb) | n=2")},
	{name: "section line moved to a neighbour", line: "- fill 9.99 GB/s.", claims: editOnce("section §7.1 #5\n", "section §7.1 #4\n")},
	{name: "number declared an identifier", line: "- fill 9.99 GB/s.", claims: editOnce("section §7.1 #5\n", "section §7.1 #5\nident 9.99\n")},
	{name: "integer declared an identifier", line: "- the arena holds 5000 slots.", claims: editOnce("section §7.1 #5\n", "section §7.1 #5\nident 5000\n")},
	{name: "sub-heading skipped inside the claim section", line: "\n##### Notes\n\n- fill 9.99 GB/s.", claims: editOnce("section §7.1 #5\n", "section §7.1 #5\nskip §7.1 #5 > Notes\n")},
	{name: "number moved under a new level-2 heading", line: "\n## Notes\n\n- fill 9.99 GB/s.\n\n### 7.1 again\n\n#### #5 — again\n", ungated: "9.99 GB/s"},
	{name: "hit splits swapped between the configurations", edit: func(b []byte) []byte {
		b = bytes.Replace(b, []byte("arena + RA 82.17 + 9.38 % (91.55 % combined)"), []byte("arena + RA @A@"), 1)
		b = bytes.Replace(b, []byte("arena + RA 63.86 + 18.58 % (82.44 % combined)"), []byte("arena + RA 82.17 + 9.38 % (91.55 % combined)"), 1)
		return bytes.Replace(b, []byte("arena + RA @A@"), []byte("arena + RA 63.86 + 18.58 % (82.44 % combined)"), 1)
	}},
	{name: "slot counts swapped between formats", edit: editOnce("Q2_0 runs\nget 2,441 slots in 1 class, IQ3_S runs 1,550 slots", "Q2_0 runs\nget 1,550 slots in 1 class, IQ3_S runs 2,441 slots")},
	{name: "KLD macros swapped between formats", edit: editOnce("- IQ3_S: 0.064461 / 90.11 %\n- Q2_0 MoCE=0: 0.327365 / 75.52 %", "- IQ3_S: 0.327365 / 75.52 %\n- Q2_0 MoCE=0: 0.064461 / 90.11 %")},
	{name: "fill ranges swapped between formats", edit: editOnce("Q2_0 3.66–6.44 GB/s, IQ3_S 6.10–7.07 GB/s", "Q2_0 6.10–7.07 GB/s, IQ3_S 3.66–6.44 GB/s")},
	{name: "emoji keycap digit", line: "- fill 9\ufe0f\u20e3 GB/s."},
	{name: "thin space thousands separator", line: "- prefill 3\u2009194.19 ms."},
	{name: "apostrophe thousands separator", line: "- prefill 3'194.19 ms."},
	{name: "decimal comma", line: "- fill 9,99 GB/s."},
	{name: "line break inside a number", line: "- fill 9.<br>99 GB/s."},
	{name: "set narrowed to hide a run", claims: editOnce("set all        = *", "set all        = strata_*")},
}

// TestSpecWeakened: strataspec.json edits that switch checks off while the
// audit of fixtures/m5 still passes (found red-teaming, issue 24) show on
// -previous's line against the report of the unedited fixture: the checks
// gone and the passes reworded, per rule.
func TestSpecWeakened(t *testing.T) {
	base, err := audit.Audit(snaptest.CopyFixture(t, "m5"), "")
	if err != nil {
		t.Fatalf("audit.Audit(m5): %v", err)
	}
	var js bytes.Buffer
	if err := base.Write(&js, "json"); err != nil {
		t.Fatalf("writing the JSON report of m5: %v", err)
	}
	prev, err := report.ParsePrevious("base.json", js.Bytes())
	if err != nil {
		t.Fatalf("report.ParsePrevious(the JSON report of m5): %v", err)
	}
	tests := []struct {
		name, old, new string
		want           string // on the comparison line
	}{
		{"cold set switched off", `"cold_set": "cold"`, `"cold_set": ""`, "checks gone that passed there (kld 2)"},
		{"parity tolerance raised", `"key": "k512", "tolerance": 1e-06`, `"key": "k512", "tolerance": 1e9`, "passes worded otherwise (parity 2)"},
		{"TF file dropped", `{"path": "data/m5_val_prompts/eval_tf_96tok_ja.txt", "domain": "ja", "source": "synthetic Japanese Q&A page (page footer, then a question)", "source_offset": 48},`, "", "(kld 1, tf 10)"},
		{"summary check mapped away", `"strata_q2_0_moce0_short_43tok": {"check": "exact"`, `"zz": {"check": "exact"`, "(summary 2)"},
	}
	for _, tt := range tests {
		root := snaptest.CopyFixture(t, "m5")
		p := filepath.Join(root, "strataspec.json")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		snaptest.Write(t, p, string(replaceOnce(t, b, tt.old, tt.new)))
		rep, err := audit.Audit(root, "")
		if err != nil {
			t.Fatalf("%s: audit.Audit: %v", tt.name, err)
		}
		if rep.Failed() {
			t.Fatalf("%s: the audit fails; this test is for edits that leave it passing", tt.name)
		}
		rep.Compare("base.json", prev)
		var out bytes.Buffer
		if err := rep.Write(&out, "text"); err != nil {
			t.Fatalf("%s: writing the text report: %v", tt.name, err)
		}
		// the comparison line may wrap: compare with runs of white space as one
		got := strings.Join(strings.Fields(out.String()), " ")
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: text report against base.json lacks %q:\n%s", tt.name, tt.want, out.String())
		}
	}
}
