package claims_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
)

// funcs are the evaluator's derivations, which the grammar checks calls
// against.
var funcs = eval.Signatures()

func parse(file string, b []byte) *claims.Table { return claims.Parse(file, b, funcs) }

func parseExpr(s string) (*claims.Expr, error) { return claims.ParseExpr(s, funcs) }

const table = `# a comment
section §7.1 #5
section §2.7.A
set speed = a b
set all   = *      # every run
const page = 16 KiB # the VM page
§7.1 #5 | 3,194.19 ms | a:prefill_ms
§7.1 #5 | 82.17 + 9.38 % | a:hit_arena_pct ; a:hit_ra_pct | id=F08
§7.1 #5 | 9.51 → 13.52 tok/s | a:decode_tok_s ; b:decode_tok_s | caveat=n1 caveat=cold id=F30
`

func TestParseTable(t *testing.T) {
	tb := parse("PLAN.claims", []byte(table))
	if err := tb.Err(); err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(tb.Sections) != 2 || tb.Sections[0].Place != "§7.1 #5" || tb.Sections[1].Line != 3 {
		t.Errorf("Sections = %+v; want §7.1 #5 (line 2), §2.7.A (line 3)", tb.Sections)
	}
	if s := tb.Sets["all"]; s == nil || strings.Join(s.Globs, " ") != "*" {
		t.Errorf("set all = %+v; want globs [*] (the comment stripped)", s)
	}
	if c := tb.Consts["page"]; c == nil || c.Num.Value != 16 || c.Unit != "KiB" || c.Doc != "the VM page" {
		t.Errorf("const page = %+v; want 16 KiB with its comment", c)
	}
	if len(tb.Rows) != 3 {
		t.Fatalf("Rows = %d; want 3", len(tb.Rows))
	}
	r := tb.Rows[2]
	if r.Line != 9 || r.Place != "§7.1 #5" || r.Quote != "9.51 → 13.52 tok/s" || len(r.Sources) != 2 ||
		strings.Join(r.Caveats, ",") != "n1,cold" || r.ID != "F30" || strings.Join(r.Runs(), ",") != "a,b" {
		t.Errorf("row 3 = %+v; want line 9, two sources, caveats n1,cold, id F30, runs a,b", r)
	}
}

func TestParseTableErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"§7.1 #5 | 1 ms", "PLAN.claims:1: row: want \"place | quote | source [| options]\", got 2 fields"},
		{"7.1 | 1 ms | a:b", "PLAN.claims:1: row: place \"7.1\""},
		{"§7.1 |  | a:b", "PLAN.claims:1: row: empty quote"},
		{"§7.1 | 1 ms | nosuch(a:b)", "PLAN.claims:1: row: source \"nosuch(a:b)\": unknown derivation nosuch"},
		{"§7.1 | 1 ms | ratio(a:b)", "ratio: 1 arguments; want 2"},
		{"§7.1 | 1 ms | ratio(a:b, c:d", "missing ')'"},
		{"§7.1 | 1 ms | a:", "missing metric after ':'"},
		{"§7.1 | 1 ms | a:b | colour=red", "option \"colour=red\""},
		{"\n\n§7.1 | 1 ms | @nope:x", "PLAN.claims:3: unknown set @nope"},
		{"§7.1 | 1 ms | $nope", "unknown constant $nope"},
		{"set a = x\nset a = y", "PLAN.claims:2: set a declared twice"},
		{"set 1a = x", "set: want"},
		{"set a = [", "bad glob"},
		{"const c = 16 furlongs", "unknown unit \"furlongs\""},
		{"const c = 1,2", "misplaced thousands separator"},
		{"section 7.1", "section \"7.1\""},
		{"§7.1 | 1 ms | a:b\xff", "PLAN.claims:1: invalid UTF-8"},
		// a keyword alone says what its line needs
		{"section", `PLAN.claims:1: section: want "section PLACE (a place like §7.1 or §7.1 #5)"`},
		{"section # the decode claims", `PLAN.claims:1: section: want "section PLACE`},
		{"set", `PLAN.claims:1: set: want "set NAME = glob ..."`},
		{"const", `PLAN.claims:1: const: want "const NAME = VALUE [UNIT]"`},
		{"§7.1 #5", `PLAN.claims:1: want a row "place | quote | source [| options]" or a declaration`},
		{"§7.1 | 1 ms | a:b | digits=x", `option "digits=x": want digits=K`},
		{"skip", `PLAN.claims:1: skip: want "skip PLACE`},
		{"skip 1.3", `skip "1.3": want a place`},
		{"section §7.1 #5\nskip §7", "PLAN.claims:2: skip §7 covers claim section §7.1 #5 (line 1)"},
		{"section §7.1\nskip §7.1", "PLAN.claims:2: skip §7.1 covers claim section §7.1 (line 1)"},
		{"§7.1 | 1 ms | " + strings.Repeat("ceil(", 33) + "a:b" + strings.Repeat(")", 33), "derivations nested deeper than 32 at column"},
		{"§7.1 | 1 ms | a:b c" + strings.Repeat("d", 5000), "…\" at column"},
	}
	for _, tt := range tests {
		tb := parse("PLAN.claims", []byte(tt.in))
		err := tb.Err()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parse(%q).Err() = %v; want it to contain %q", tt.in, err, tt.want)
		}
	}
	// parsing goes on after an error
	tb := parse("PLAN.claims", []byte("bad row\n§7.1 | 1 ms | a:b\nalso bad\n"))
	if len(tb.Errors) != 2 || len(tb.Rows) != 1 || tb.Errors[1].Line != 3 {
		t.Errorf("Parse with two bad lines: errors %v, %d rows; want errors on lines 1 and 3 and the good row", tb.Errors, len(tb.Rows))
	}
}

// TestTableErr: Err reports every error, one per line, up to claims.MaxErrors,
// and counts the rest.
func TestTableErr(t *testing.T) {
	bad := func(n int) string { return strings.Repeat("set\n", n) }
	tests := []struct {
		in    string
		lines int
		last  string
	}{
		{bad(1), 1, `PLAN.claims:1: set: want "set NAME = glob ..."`},
		{bad(3), 3, `PLAN.claims:3: set: want "set NAME = glob ..."`},
		{bad(claims.MaxErrors), claims.MaxErrors, fmt.Sprintf(`PLAN.claims:%d: set: want "set NAME = glob ..."`, claims.MaxErrors)},
		{bad(claims.MaxErrors + 1), claims.MaxErrors + 1, "PLAN.claims: and 1 more error"},
		{bad(claims.MaxErrors + 5), claims.MaxErrors + 1, "PLAN.claims: and 5 more errors"},
	}
	for _, tt := range tests {
		err := parse("PLAN.claims", []byte(tt.in)).Err()
		if err == nil {
			t.Errorf("parse(%q).Err() = nil; want %d lines", tt.in, tt.lines)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != tt.lines || lines[len(lines)-1] != tt.last || !strings.HasPrefix(lines[0], "PLAN.claims:1: ") {
			t.Errorf("parse(%q).Err() = %q; want %d lines from PLAN.claims:1, the last %q", tt.in, err, tt.lines, tt.last)
		}
		var e *claims.Error
		if !errors.As(err, &e) || e.Line != 1 {
			t.Errorf("errors.As(parse(%q).Err(), *claims.Error) = %v; want the error of line 1", tt.in, e)
		}
	}
	if err := parse("PLAN.claims", []byte("set a = x\n")).Err(); err != nil {
		t.Errorf("parse(%q).Err() = %v; want nil", "set a = x", err)
	}
}

// TestParseSkip: a skip may carve a part out of a claim section.
func TestParseSkip(t *testing.T) {
	tb := parse("PLAN.claims", []byte("section §7\nskip §7.1 #4  # history\nskip §1.3\n"))
	if err := tb.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tb.Skips) != 2 || tb.Skips[0] != (claims.Section{"§7.1 #4", 2}) || tb.Skips[1] != (claims.Section{"§1.3", 3}) {
		t.Errorf("Skips = %+v; want §7.1 #4 (line 2) and §1.3 (line 3)", tb.Skips)
	}
}

// TestErrorsBounded: an error quotes at most a clip of a long line or
// expression, and a deep expression is refused in time linear in its
// length.
func TestErrorsBounded(t *testing.T) {
	for _, in := range []string{
		"§7.1 | 1 ms | " + strings.Repeat("ceil(", 200000) + "a:b" + strings.Repeat(")", 200000),
		"§7.1 | 1 ms | a:b " + strings.Repeat("x", 1<<20),
		strings.Repeat("y", 1<<20),
	} {
		err := parse("PLAN.claims", []byte(in)).Err()
		if err == nil || len(err.Error()) > 500 || !strings.HasPrefix(err.Error(), "PLAN.claims:1: ") {
			t.Errorf("parse(%d bytes) error = %.100v (%d bytes); want one under 500 bytes naming PLAN.claims:1", len(in), err, len(fmt.Sprint(err)))
		}
	}
}

func FuzzParseTable(f *testing.F) {
	f.Add([]byte(table))
	f.Add([]byte("§7.1 | 1 | f(g(h(a:b)), @s:x, $c, 1e-3)\nset s = *\nconst c = 1 GB"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb := parse("PLAN.claims", b)
		for _, e := range tb.Errors {
			if e.Line < 1 || !strings.HasPrefix(e.Error(), "PLAN.claims:") {
				t.Fatalf("error without a line: %v", e)
			}
		}
		for _, r := range tb.Rows {
			for _, s := range r.Sources {
				if _, err := parseExpr(s.String()); err != nil {
					t.Fatalf("row %d: source %q does not re-parse: %v", r.Line, s, err)
				}
			}
		}
	})
}

func TestParsePadOption(t *testing.T) {
	for _, tt := range []struct {
		row string
		pad bool
		err string
	}{
		{"§1 | 1.40 ms | r:m | pad=zeros", true, ""},
		{"§1 | 1.40 ms | r:m", false, ""},
		{"§1 | 1.40 ms | r:m | pad=ones", false, "want pad=zeros"},
	} {
		tab := parse("PLAN.claims", []byte("section §1\n"+tt.row+"\n"))
		if tt.err != "" {
			if err := tab.Err(); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parse(%q) error = %v; want %q", tt.row, err, tt.err)
			}
			continue
		}
		if err := tab.Err(); err != nil || len(tab.Rows) != 1 || tab.Rows[0].PadZeros != tt.pad {
			t.Errorf("parse(%q) = %d rows, err %v; want one row with PadZeros %v", tt.row, len(tab.Rows), err, tt.pad)
		}
	}
}

// BenchmarkParseExpr parses expressions growing in length: a flat sum of n
// metrics, and a nesting n deep (refused at MaxDepth after reading it
// once). ns/op grows linearly with n (issue 13: a 100,000-deep expression
// took 27 s, quadratic).
func BenchmarkParseExpr(b *testing.B) {
	for _, n := range []int{10000, 100000, 600000} {
		flat := "add(" + strings.Repeat("r:m, ", n) + "r:m)"
		deep := strings.Repeat("ceil(", n) + "r:m" + strings.Repeat(")", n)
		b.Run(fmt.Sprintf("flat/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := parseExpr(flat); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("deep/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := parseExpr(deep); err == nil {
					b.Fatal("a deep expression parsed")
				}
			}
		})
	}
}

// TestParseBOM drops a leading UTF-8 byte order mark with a note: the
// first line is a declaration, not a syntax error.
func TestParseBOM(t *testing.T) {
	tb := parse("PLAN.claims", []byte("\uFEFFsection §7.1 #5\n§7.1 #5 | 1 ms | a:b\n"))
	if err := tb.Err(); err != nil {
		t.Fatalf("Parse with a BOM: %v; want no error", err)
	}
	if len(tb.Sections) != 1 || tb.Sections[0].Place != "§7.1 #5" {
		t.Errorf("Parse with a BOM: sections %+v; want §7.1 #5", tb.Sections)
	}
	if len(tb.Notes) != 1 || !strings.HasPrefix(tb.Notes[0], "PLAN.claims:1: ") {
		t.Errorf("Parse with a BOM: notes %q; want one naming PLAN.claims:1", tb.Notes)
	}
}

// TestExprString: a parsed source prints as written, occurrence selectors
// included.
func TestExprString(t *testing.T) {
	for _, src := range []string{"bench:tg32[model_filename=models/b q.gguf]#2", "ratio(r:a#2, r:b[k=v])", "range(@q2:fill_gb_s)", "$page", "@s", "-3.5e-07"} {
		e, err := parseExpr(src)
		if err != nil {
			t.Errorf("ParseExpr(%q) = %v", src, err)
			continue
		}
		if got := e.String(); got != src {
			t.Errorf("ParseExpr(%q).String() = %q; want it unchanged", src, got)
		}
	}
}
