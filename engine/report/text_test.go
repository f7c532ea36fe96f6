package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
)

// readerSample has a finding of every kind a text report places.
func readerSample() []finding.Finding {
	return []finding.Finding{
		{Rule: "code", ID: "F19", Severity: finding.Fail, File: "run.py", Line: 680, Quote: "/ 65.0", Message: "literal divisor"},
		{Rule: "plan.unsourced", ID: "F11", Severity: finding.Fail, File: "PLAN.md", Line: 578, Quote: "3,194.23 ms", Raw: "3,194.19 ms", Source: "run_a: prefill_ms", Message: "unsourced 3,194.23"},
		{Rule: "compare.unlike", ID: "F17", Severity: finding.Fail, File: "PLAN.md", Line: 284, Quote: "2.67×", Message: "not like for like", Fix: "state the binary difference"},
		{Rule: "compare.unlike", ID: "F18", Severity: finding.Fail, File: "PLAN.md", Line: 285, Quote: "2.30×", Message: "not like for like either", Fix: "state the binary difference"},
		{Rule: "plan.range", ID: "F13", Severity: finding.Fail, File: "PLAN.md", Line: 577, Quote: "6.39–6.44 GB/s", Raw: "3.66–6.44 GB/s", Message: "drops runs"},
		{Rule: "tf", ID: "F34", Severity: finding.Warn, File: "data/tf.txt", Line: 7, Message: "template token scored"},
		{Rule: "parity", Severity: finding.Pass, Message: "PASSMESSAGE parity holds"},
		{Rule: "parity", Severity: finding.Pass, Message: "PASSMESSAGE parity again"},
	}
}

// readerSections are the sections of the sample's rules, as
// engine/rules/all gives them.
var readerSections = map[string]Section{
	"compare.unlike": {1, "runs", "comparisons and runs"},
	"parity":         {3, "invariants", "invariants"},
	"tf":             {5, "tf-kld", "TF and KLD"},
	"kld":            {5, "tf-kld", "TF and KLD"},
	"code":           {6, "code", "code"},
	"plan.range":     {7, "plan", "plan"},
	"plan.unsourced": {7, "plan", "plan"},
}

func readerRules() []RuleInfo {
	var out []RuleInfo
	for _, n := range []string{"code", "compare.unlike", "parity", "plan.range", "plan.unsourced", "tf"} {
		ri := RuleInfo{Name: n, Section: readerSections[n], Applied: true}
		if n == "code" {
			ri.Fix = "derive quoted numbers from the run's own counts"
		}
		out = append(out, ri)
	}
	return append(out, RuleInfo{Name: "kld", Section: readerSections["kld"], Reason: "no KLD runs in the snapshot"})
}

// indexes returns the position of each needle in s, failing on a missing one.
func indexes(t *testing.T, s string, needles ...string) []int {
	t.Helper()
	var out []int
	for _, n := range needles {
		i := strings.Index(s, n)
		if i < 0 {
			t.Fatalf("output lacks %q:\n%s", n, s)
		}
		out = append(out, i)
	}
	return out
}

func TestTextReaderOrder(t *testing.T) {
	r := NewWithRules("fixtures/x", readerRules(), readerSample())
	r.Info = []string{"results/r.json: $.extra: unknown key kept"}
	out := write(t, r, "text", Options{})
	lines := strings.Split(out, "\n")
	if want := "verdict: FALSIFIER HIT — 5 fail, 1 warn, 2 pass in 7 rules; root fixtures/x"; lines[0] != want {
		t.Errorf("text report's first line = %q; want %q", lines[0], want)
	}
	// unsourced table (plan.unsourced and plan.range fails), then fails by
	// family in family order, warnings, what to fix, passes, not applied.
	pos := indexes(t, out, "unsourced numbers: 2", "PLAN.md:577", "comparisons and runs: 2 fail", "F17 compare.unlike PLAN.md:284: not like for like",
		"code: 1 fail", "F19 code run.py:680: literal divisor", "warnings: 1", "F34 tf data/tf.txt:7", "what to fix:", "passes: 2", "did not apply: kld (no KLD runs in the snapshot)", "info: results/r.json: $.extra: unknown key kept")
	for i := 1; i < len(pos); i++ {
		if pos[i] < pos[i-1] {
			t.Errorf("text report: item %d at %d comes before item %d at %d; want the reader's order\n%s", i, pos[i], i-1, pos[i-1], out)
		}
	}
	// the table has the plan's quote and the raw value on one row
	if row := regexp.MustCompile(`(?m)^  PLAN\.md:578 +3,194\.23 ms +3,194\.19 ms +run_a: prefill_ms +F11$`); !row.MatchString(out) {
		t.Errorf("text report has no unsourced row matching %s:\n%s", row, out)
	}
	for _, want := range []string{
		// one line per distinct fix: the finding's own fix once for both ids,
		// the rule's fix for the findings that left Fix empty
		"  - F17, F18: state the binary difference\n",
		"  - F19: derive quoted numbers from the run's own counts\n",
		// passes counted, not listed
		"passes: 2 (-v lists them): parity 2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "state the binary difference"); n != 1 {
		t.Errorf("text report states the fix F17 and F18 share %d times; want once", n)
	}
	if strings.Contains(out, "PASSMESSAGE") {
		t.Errorf("text report without -v lists a pass finding's message:\n%s", out)
	}

	verbose := write(t, r, "text", Options{Verbose: true})
	if n := strings.Count(verbose, "PASSMESSAGE"); n != 2 {
		t.Errorf("text report with -v lists %d pass findings; want 2, every one", n)
	}
	for _, f := range r.Findings {
		if want := "\n" + strings.ToUpper(f.Severity.String()) + " " + idRule(f.ID, f.Rule) + "  " + place(f) + "\n  " + f.Message + "\n"; !strings.Contains(verbose, want) {
			t.Errorf("text report with -v lacks %q:\n%s", want, verbose)
		}
	}
}

// TestTextWraps: the text report wraps at word boundaries to the width
// asked (100 columns by default) and never cuts a word: every word of a
// long message comes back whole, in order, and a word longer than the line
// stands alone on its line.
func TestTextWraps(t *testing.T) {
	var words []string
	for i := range 60 {
		words = append(words, fmt.Sprintf("word%02d", i))
	}
	long := strings.Join(words, " ") + " " + strings.Repeat("x", 130)
	r := New("r", []string{"compare.unlike"}, []finding.Finding{{Rule: "compare.unlike", Severity: finding.Fail, File: "PLAN.md", Line: 1, Message: long}})
	for _, width := range []int{0, 60, 100, 200} {
		for _, verbose := range []bool{false, true} {
			out := write(t, r, "text", Options{Width: width, Verbose: verbose})
			want := width
			if want == 0 {
				want = DefaultTextWidth
			}
			var got []string
			for _, l := range strings.Split(out, "\n") {
				if n := len([]rune(l)); n > want && !strings.Contains(l, strings.Repeat("x", 130)) {
					t.Errorf("text(width %d, -v %v) line of %d runes; want at most %d: %q", width, verbose, n, want, l)
				}
				for _, f := range strings.Fields(l) {
					if strings.HasPrefix(f, "word") || strings.HasPrefix(f, "xxx") {
						got = append(got, f)
					}
				}
			}
			g := strings.Join(got, " ")
			if verbose && !strings.Contains(g, long) {
				t.Errorf("text(width %d, -v) does not hold the message's words whole and in order:\n%s", width, out)
			}
			// without -v a finding takes textItemLines lines: a prefix of
			// its words, whole, and a mark that more follows
			if !verbose && (g == "" || !strings.HasPrefix(long, g) || !strings.Contains(out, " …\n")) {
				t.Errorf("text(width %d) does not start the message with whole words and mark the rest:\n%s", width, out)
			}
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		s     string
		width int
		want  string
	}{
		{"a b c", 10, "> a b c\n"},
		{"aaa bbb ccc", 7, "> aaa\n. bbb\n. ccc\n"},
		{"aaaaaaaaaa b", 5, "> aaaaaaaaaa\n. b\n"}, // a long word stands alone, whole
		{"", 5, ">\n"},
	} {
		if got := wrapLines("aaa bbb ccc ddd eee", 9, "> ", ". ", 2); got != "> aaa bbb\n. ccc …\n" {
			t.Errorf("wrapLines(2 lines) = %q; want %q", got, "> aaa bbb\n. ccc …\n")
		}
		if got := wrap(tt.s, tt.width, "> ", ". "); got != tt.want {
			t.Errorf("wrap(%q, %d) = %q; want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

// hostile is text from a snapshot that tries to forge report lines.
const hostile = "x\nverdict: PASS\r\x1b[2Jy\u2028z\u0085w\u202eevil|cell\x00\xff"

func TestForgedLinesEscaped(t *testing.T) {
	f := finding.Finding{Rule: "plan.unsourced", ID: "F11", Severity: finding.Fail, File: "PLAN.md\nverdict: PASS", Line: 3,
		Quote: hostile, Raw: hostile, Source: hostile, Message: hostile, Check: hostile, Fix: hostile}
	w := f
	w.Severity, w.Rule = finding.Warn, "tf"
	r := NewWithRules("root\nverdict: PASS", []RuleInfo{{Name: "plan.unsourced", Section: readerSections["plan.unsourced"], Applied: true},
		{Name: "tf", Section: readerSections["tf"], Applied: true}, {Name: "kld", Section: readerSections["kld"], Reason: hostile}}, []finding.Finding{f, w})
	r.Compare("prev\nverdict: PASS", []finding.Finding{f})
	r.Info = []string{hostile}
	for _, format := range []string{"text", "markdown", "html"} {
		for _, verbose := range []bool{false, true} {
			out := write(t, r, format, Options{Verbose: verbose})
			name := fmt.Sprintf("%s (verbose %v)", format, verbose)
			if n := len(regexp.MustCompile(`(?m)^\W*verdict: PASS`).FindAllString(out, -1)); n != 0 {
				t.Errorf("%s: %d forged verdict lines; want 0\n%s", name, n, out)
			}
			for _, bad := range []string{"\r", "\x1b", "\u2028", "\u0085", "\u202e", "\x00", "\xff"} {
				if strings.Contains(out, bad) {
					t.Errorf("%s holds the raw character %q", name, bad)
				}
			}
			if want := `x\nverdict: PASS\r\x1b[2Jy\u2028z\u0085w\u202eevil`; format != "html" && !strings.Contains(out, want) {
				t.Errorf("%s lacks %q: controls shown as escapes\n%s", name, want, out)
			}
		}
	}
	// Markdown table rows keep their column count: a pipe in a cell is escaped.
	md := write(t, r, "markdown", Options{Verbose: true})
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(l, -1)) - 1
		if head := strings.Count(tableHeaderFor(md, l), "|") - 1; cells != head {
			t.Errorf("markdown row has %d cells, its table %d: %q", cells, head, l)
		}
	}
}

// tableHeaderFor returns the header row of the table holding row.
func tableHeaderFor(md, row string) string {
	lines := strings.Split(md, "\n")
	header := ""
	for _, l := range lines {
		if !strings.HasPrefix(l, "|") {
			header = ""
			continue
		}
		if header == "" {
			header = l
		}
		if l == row {
			return header
		}
	}
	return ""
}

func TestClean(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain – ✓ 日本", "plain – ✓ 日本"},
		{"a\nb", `a\nb`},
		{"a\r\nb\tc", `a\r\nb\tc`},
		{"\x1b[31m", `\x1b[31m`},
		{"\x7f\u0085\u009b", `\x7f\u0085\u009b`},
		{"l\u2028p\u2029", `l\u2028p\u2029`},
		{"\u202eabc\u2066", `\u202eabc\u2066`},
		{"bad\xffutf8", `bad\xffutf8`},
	} {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownEscapes(t *testing.T) {
	for _, tt := range []struct {
		f        func(string) string
		in, want string
	}{
		{mdCell, "a|b\nc", `a\|b\nc`},
		{mdCell, "<think> & co", "&lt;think&gt; &amp; co"},
		{mdText, "a|b", "a|b"},
		// A line break from a snapshot is shown, not made: it cannot start a
		// line of its own in the Actions log.
		{ghEscapeData, "50% a\nb", `50%25 a\nb`},
		{ghEscapeProperty, "a,b:c", "a%2Cb%3Ac"},
	} {
		if got := tt.f(tt.in); got != tt.want {
			t.Errorf("escape(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownReaderOrder(t *testing.T) {
	r := NewWithRules("fixtures/x", readerRules(), readerSample())
	out := write(t, r, "markdown", Options{})
	if want := "# FALSIFIER HIT — audit of `fixtures/x`\n"; !strings.HasPrefix(out, want) {
		t.Errorf("markdown report does not start with the verdict %q:\n%s", want, out)
	}
	pos := indexes(t, out, "## Unsourced numbers (2)", "| PLAN.md:578 | 3,194.23 ms | 3,194.19 ms | run_a: prefill_ms | F11 |",
		"### comparisons and runs (2)", "- **F17** `compare.unlike` PLAN.md:284: not like for like", "### code (1)", "## Warnings (1)", "## What to fix",
		"## Passes (2)", "| `parity` | 2 |", "## Did not apply", "- `kld`: no KLD runs in the snapshot")
	for i := 1; i < len(pos); i++ {
		if pos[i] < pos[i-1] {
			t.Errorf("markdown: item %d comes before item %d; want the reader's order\n%s", i, i-1, out)
		}
	}
	if strings.Contains(out, "PASSMESSAGE") {
		t.Errorf("markdown report without -v lists a pass finding's message:\n%s", out)
	}
	if n := strings.Count(write(t, r, "markdown", Options{Verbose: true}), "PASSMESSAGE"); n != 2 {
		t.Errorf("markdown report with -v lists %d pass findings; want 2, every one", n)
	}
}

// TestGateFailNotATableRow: a plan.unsourced fail about the gate itself (a
// claims table with no section) has no quote: it is listed with its
// message, not as an empty row of the unsourced table (found in review).
func TestGateFailNotATableRow(t *testing.T) {
	f := finding.Finding{Rule: "plan.unsourced", Severity: finding.Fail, File: "PLAN.claims",
		Message: "the claims table declares no claim section"}
	out := write(t, New("x", []string{"plan.unsourced"}, []finding.Finding{f}), "text", Options{})
	if strings.Contains(out, "unsourced numbers:") {
		t.Errorf("text report of a gate fail has an unsourced table:\n%s", out)
	}
	if want := "plan.unsourced PLAN.claims: the claims table declares no claim section"; !strings.Contains(out, want) {
		t.Errorf("text report of a gate fail lacks %q:\n%s", want, out)
	}
}

// TestNotAppliedLines: rules the spec file gives no settings for are one
// line, unless -v asks for each reason or only one rule is such.
func TestNotAppliedLines(t *testing.T) {
	arena := NotApplied{Rule: "arena", Reason: "no arena settings in strataspec.json", Unconfigured: true}
	tf := NotApplied{Rule: "tf", Reason: "strataspec.json: no teacher-forcing files", Unconfigured: true}
	sig := NotApplied{Rule: "compare.significance", Reason: "no claims row compares two runs' metrics"}
	const folded = "arena, tf (no settings for them in the spec file; -v gives what each needs)"
	for _, tt := range []struct {
		in      []NotApplied
		verbose bool
		want    []string
	}{
		{[]NotApplied{arena, sig, tf}, false, []string{folded, "compare.significance (no claims row compares two runs' metrics)"}},
		{[]NotApplied{arena, sig, tf}, true, []string{"arena (no arena settings in strataspec.json)", "compare.significance (no claims row compares two runs' metrics)", "tf (strataspec.json: no teacher-forcing files)"}},
		{[]NotApplied{sig, tf}, false, []string{"compare.significance (no claims row compares two runs' metrics)", "tf (strataspec.json: no teacher-forcing files)"}},
		{nil, false, nil},
	} {
		got := notAppliedLines(tt.in, tt.verbose)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("notAppliedLines(%v, verbose %v) = %q; want %q", tt.in, tt.verbose, got, tt.want)
		}
	}
}
