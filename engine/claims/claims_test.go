package claims

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

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
	tb := Parse("PLAN.claims", []byte(table))
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
		tb := Parse("PLAN.claims", []byte(tt.in))
		err := tb.Err()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q).Err() = %v; want it to contain %q", tt.in, err, tt.want)
		}
	}
	// parsing goes on after an error
	tb := Parse("PLAN.claims", []byte("bad row\n§7.1 | 1 ms | a:b\nalso bad\n"))
	if len(tb.Errors) != 2 || len(tb.Rows) != 1 || tb.Errors[1].Line != 3 {
		t.Errorf("Parse with two bad lines: errors %v, %d rows; want errors on lines 1 and 3 and the good row", tb.Errors, len(tb.Rows))
	}
}

// TestTableErr: Err reports every error, one per line, up to MaxErrors,
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
		{bad(MaxErrors), MaxErrors, fmt.Sprintf(`PLAN.claims:%d: set: want "set NAME = glob ..."`, MaxErrors)},
		{bad(MaxErrors + 1), MaxErrors + 1, "PLAN.claims: and 1 more error"},
		{bad(MaxErrors + 5), MaxErrors + 1, "PLAN.claims: and 5 more errors"},
	}
	for _, tt := range tests {
		err := Parse("PLAN.claims", []byte(tt.in)).Err()
		if err == nil {
			t.Errorf("Parse(%q).Err() = nil; want %d lines", tt.in, tt.lines)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != tt.lines || lines[len(lines)-1] != tt.last || !strings.HasPrefix(lines[0], "PLAN.claims:1: ") {
			t.Errorf("Parse(%q).Err() = %q; want %d lines from PLAN.claims:1, the last %q", tt.in, err, tt.lines, tt.last)
		}
		var e *Error
		if !errors.As(err, &e) || e.Line != 1 {
			t.Errorf("errors.As(Parse(%q).Err(), *Error) = %v; want the error of line 1", tt.in, e)
		}
	}
	if err := Parse("PLAN.claims", []byte("set a = x\n")).Err(); err != nil {
		t.Errorf("Parse(%q).Err() = %v; want nil", "set a = x", err)
	}
}

// TestPrecision: a quote may not be more precise than its source printed
// it (a derivation: than the most precise metric feeding it, or its
// row's digits=K), and the raw value is shown at the source's precision.
func TestPrecision(t *testing.T) {
	read := func(text string) Value {
		it := Item{Value: num.MustParse(text).Value, Text: text, Run: "r", Metric: "m"}
		return Value{Kind: Scalar, X: it, From: []Item{it}}
	}
	derived := func(v float64, from ...string) Value {
		out := Value{Kind: Scalar, X: Item{Value: v}}
		for _, f := range from {
			out.From = append(out.From, read(f).X)
		}
		return out
	}
	count := Value{Kind: Scalar, X: Item{Value: 22, Unit: "runs"}}
	tests := []struct {
		quote  string
		v      Value
		digits int
		raw    string
		why    string // "" for a match
	}{
		{"3,194.19", read("3194.19"), -1, "3,194.19", ""},
		{"3,194.2", read("3194.19"), -1, "3,194.19", ""},
		{"3,194.1900", read("3194.19"), -1, "3,194.19", "precision: 3,194.1900 is quoted with 4 decimals; its source printed 2 decimals: 3194.19 at r: m"},
		{"3,194.1900", read("3194.19"), 4, "3,194.19", "its source printed 2 decimals"}, // digits=K never lifts a printed value
		{"1.40", read("1.4"), -1, "1.4", "its source printed 1 decimal"},
		{"2.16e-07", read("2.1649e-07"), -1, "2.1649e-07", ""},
		{"2.1649e-07", read("2.16e-07"), -1, "2.16e-07", "precision: 2.1649e-07 is quoted to 1e-11; its source printed to 1e-09"},
		{"0.000000216", read("2.16e-07"), -1, "2.16e-07", ""},
		{"0.0644610", derived(0.064461, "0.058127", "0.061944", "0.073312"), -1, "0.064461", "the most precise metric feeding its source printed 6 decimals"},
		{"0.064461", derived(0.064461, "0.058127", "0.061944", "0.073312"), -1, "0.064461", ""},
		{"51.8", derived(51.838671, "40.6", "84.3"), -1, "51.8", ""},
		{"51.84", derived(51.838671, "40.6", "84.3"), -1, "51.8", "the most precise metric feeding its source printed 1 decimal"},
		{"51.84", derived(51.838671, "40.6", "84.3"), 2, "51.84", ""},
		{"51.839", derived(51.838671, "40.6", "84.3"), 2, "51.84", "its row allows 2 decimals (digits=2)"},
		{"22.0", count, -1, "22.0", ""}, // a count is exact
	}
	for _, tt := range tests {
		c := comparePart(num.MustParse(tt.quote), "", tt.v, tt.digits, false)
		why := strings.Join(c.why, "; ")
		if c.raw != tt.raw || c.ok != (tt.why == "") || tt.why != "" && !strings.Contains(why, tt.why) {
			t.Errorf("comparePart(%q, digits %d) = raw %q, ok %v, %q; want raw %q, ok %v, %q", tt.quote, tt.digits, c.raw, c.ok, why, tt.raw, tt.why == "", tt.why)
		}
	}
}

// env builds an Env over runs with the given metrics ("name=text unit").
func env(t *testing.T, tb *Table, runs map[string][]string, order ...string) *Env {
	t.Helper()
	e := &Env{Metrics: map[string]*tail.Metrics{}, Table: tb, Names: order}
	for _, name := range order {
		ms := &tail.Metrics{Source: name}
		for i, m := range runs[name] {
			kv, unit, _ := strings.Cut(m, " ")
			k, v, _ := strings.Cut(kv, "=")
			ms.Add(tail.Metric{Name: k, Num: num.MustParse(v), Unit: unit, Line: i + 1})
		}
		e.Metrics[name] = ms
	}
	return e
}

func TestDerivations(t *testing.T) {
	tb := Parse("PLAN.claims", []byte("set s = r*\nset one = r1\nconst page = 16 KiB\nconst toks = 65 tokens\n"))
	e := env(t, tb, map[string][]string{
		"r1": {"t1=72.400 ms/tok", "host=16.11 ms/tok", "miss=40.6", "kld=0.058127", "gib=15.820 GiB", "n=12288", "mb=105851.73 MB", "dec=64 tok", "top1=90.63 %"},
		"r2": {"t1=1 ms/tok", "host=1 ms/tok", "miss=84.3", "kld=0.061944", "gib=15.820 GiB", "n=12288", "mb=1 MB", "dec=1 tok", "top1=89.06 %"},
		"r3": {"t1=1 ms/tok", "host=1 ms/tok", "miss=108.9", "kld=0.073312", "gib=4.220 GiB", "n=1", "mb=1 MB", "dec=1 tok", "top1=90.63 %"},
	}, "r1", "r2", "r3")
	tests := []struct {
		expr string
		want float64
		unit string
	}{
		{"r1:t1", 72.4, "ms/tok"},
		{"pure_gpu(r1:t1, r1:host)", 56.29, "ms/tok"},
		{"miss_reduction(r1:miss, r2:miss)", 51.838671411625148, "%"},
		{"miss_reduction(r1:miss, r3:miss)", 62.718089990817264, "%"},
		{"mean(@s:kld)", 0.064461, ""},
		{"mean(@s:top1)", 90.10666666666667, "%"},
		{"count(@s)", 3, "runs"},
		{"each(@one:n)", 12288, ""},
		{"gib_to_gb(r3:gib)", 4.53119049728, "GB"},
		{"gb_to_gib(gib_to_gb(r3:gib))", 4.22, "GiB"},
		{"to(div(r1:gib, r1:n), MB)", 1.3823726933333333, "MB"},
		{"ceil(div(to(div(r1:gib, r1:n), B), to($page, B)))", 85, ""},
		{"rate(r1:mb, r1:dec)", 1653.93328125, "MB/tok"},
		{"div(r1:mb, $toks)", 1628.488153846154, "MB/tok"},
		{"ratio(38.11, 14.3)", 2.665034965034965, "×"},
		{"change(105851.73, 46808.58)", -55.77910724746775, "%"},
		{"add(r1:t1, r1:host)", 88.51, "ms/tok"},
		{"sub(4.73, 4.67)", 0.06, ""},
		{"mul(85, $page)", 1360, "KiB"},
		{"floor(2441.9)", 2441, ""},
	}
	for _, tt := range tests {
		x, err := ParseExpr(tt.expr)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.expr, err)
			continue
		}
		v, err := e.Eval(x)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.expr, err)
			continue
		}
		if v.Kind != Scalar || math.Abs(v.X.Value-tt.want) > 1e-6*math.Max(1, math.Abs(tt.want)) || v.X.Unit != tt.unit {
			t.Errorf("Eval(%q) = %v %q (kind %d); want %v %q", tt.expr, v.X.Value, v.X.Unit, v.Kind, tt.want, tt.unit)
		}
	}
	// range keeps the runs at its ends
	x, _ := ParseExpr("range(@s:miss)")
	v, err := e.Eval(x)
	if err != nil || v.Kind != Pair || v.Lo.Run != "r1" || v.Hi.Run != "r3" || len(v.List) != 3 {
		t.Errorf("Eval(range(@s:miss)) = %+v, %v; want 40.6 (r1) – 108.9 (r3) over 3 runs", v, err)
	}
	errs := []struct{ expr, want string }{
		{"each(@s:gib)", "runs differ: r1 = 15.82, r3 = 4.22"},
		{"rate(r1:mb, r2:dec)", "divides by the run's own token count"},
		{"r9:t1", `no run "r9"`},
		{"r1:nosuch", `run r1 has no metric "nosuch"`},
		{"to(r1:t1, MB)", `cannot convert "ms/tok" to "MB"`},
		{"ratio(1, 0)", "division by zero"},
		{"pure_gpu(@s:t1, r1:host)", "argument 1 is not a number"},
	}
	for _, tt := range errs {
		x, err := ParseExpr(tt.expr)
		if err == nil {
			_, err = e.Eval(x)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Eval(%q) error = %v; want %q", tt.expr, err, tt.want)
		}
	}
}

const checkPlan = `# p

### 7.1 R

#### #5 — v3

- fill 6.39–6.44 GB/s, 0.5 s, prefill 3,194.23 ms; dense 4.220 GB
- split 82.17 + 9.38 %; decode 9.51 → 13.52 tok/s; 77.77 %

> **Caveat** (n1): one run per side.

### 8 Outside

- 99.99 % is not in a claim section
`

func TestCheck(t *testing.T) {
	tb := Parse("PLAN.claims", []byte(`section §7.1 #5
section §9
set s = r*
§7.1 #5 | 6.39–6.44 GB/s | range(@s:fill) | id=F13
§7.1 #5 | 0.5 s | range(@s:fill_s)
§7.1 #5 | 3,194.23 ms | r1:prefill_ms | id=F11
§7.1 #5 | 4.220 GB | r1:dense_gib
§7.1 #5 | 82.17 + 9.38 % | r2:arena ; r2:ra
§7.1 #5 | 9.51 → 13.52 tok/s | r1:dec ; r2:dec | caveat=n1 caveat=cold
§7.1 #5 | 1.23 ms | r1:prefill_ms
§7.1 #5 | 9.51 → 13.52 tok/s | r1:dec ; r9:dec
`))
	if err := tb.Err(); err != nil {
		t.Fatal(err)
	}
	e := env(t, tb, map[string][]string{
		"r1": {"fill=3.66 GB/s", "fill_s=0.9 s", "prefill_ms=3194.19 ms", "dense_gib=4.220 GiB", "dec=9.51 tok/s", "x=77.78 %"},
		"r2": {"fill=6.39 GB/s", "fill_s=0.4 s", "arena=82.17 %", "ra=9.38 %", "dec=13.52 tok/s"},
		"r3": {"fill=6.44 GB/s", "fill_s=0.4 s"},
	}, "r1", "r2", "r3")
	doc := plan.Parse("PLAN.md", []byte(checkPlan))
	res := Check(doc, tb, e)
	type got struct {
		quote  string
		status Status
		raw    string
	}
	var gs []got
	for _, b := range res.Bindings {
		gs = append(gs, got{b.Row.Quote, b.Status, b.Raw})
	}
	want := []got{
		{"6.39–6.44 GB/s", DropsRuns, "3.66–6.44 GB/s"},
		{"0.5 s", Mismatch, "0.4–0.9 s"},
		{"3,194.23 ms", Mismatch, "3,194.19 ms"},
		{"4.220 GB", Mismatch, "4.220 GiB"}, // GB quoted, GiB printed: the unit decides, the raw keeps its own
		{"82.17 + 9.38 %", Match, "82.17 + 9.38 %"},
		{"9.51 → 13.52 tok/s", CaveatMissing, "9.51 → 13.52 tok/s"}, // (n1) stated, (cold) not
		{"1.23 ms", Stale, ""},
		{"9.51 → 13.52 tok/s", BadSource, ""},
	}
	if len(gs) != len(want) {
		t.Fatalf("Check bindings = %+v; want %+v", gs, want)
	}
	for i := range want {
		if gs[i] != want[i] {
			t.Errorf("binding %d = %+v; want %+v", i, gs[i], want[i])
		}
	}
	if d := res.Bindings[0].Dropped; len(d) != 1 || d[0].Run != "r1" {
		t.Errorf("DropsRuns dropped = %+v; want r1", d)
	}
	if !strings.Contains(res.Bindings[3].Msg, "unit: 4.220 is quoted in GB, its source is in GiB") {
		t.Errorf("unit mismatch message = %q", res.Bindings[3].Msg)
	}
	if len(res.Bindings[2].Elsewhere) != 1 || len(res.Bindings[2].Elsewhere[0]) != 0 {
		t.Errorf("3,194.23 elsewhere = %+v; want in no run", res.Bindings[2].Elsewhere)
	}
	if len(res.Unbound) != 1 || res.Unbound[0].Token.Text != "77.77 %" || res.Unbound[0].Token.Line != 8 {
		t.Fatalf("Unbound = %+v; want 77.77 %% on line 8 (and not the 99.99 %% outside the claim sections)", res.Unbound)
	}
	if n := res.Unbound[0].Nearest[0]; len(n) == 0 || n[0].Run != "r1" || n[0].Metric != "x" {
		t.Errorf("nearest to 77.77 %% = %+v; want r1: x (77.78 %%) first", n)
	}
	if len(res.MissingSections) != 1 || res.MissingSections[0].Place != "§9" {
		t.Errorf("MissingSections = %+v; want §9", res.MissingSections)
	}
}

// TestParseSkip: a skip may carve a part out of a claim section.
func TestParseSkip(t *testing.T) {
	tb := Parse("PLAN.claims", []byte("section §7\nskip §7.1 #4  # history\nskip §1.3\n"))
	if err := tb.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tb.Skips) != 2 || tb.Skips[0] != (Section{"§7.1 #4", 2}) || tb.Skips[1] != (Section{"§1.3", 3}) {
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
		err := Parse("PLAN.claims", []byte(in)).Err()
		if err == nil || len(err.Error()) > 500 || !strings.HasPrefix(err.Error(), "PLAN.claims:1: ") {
			t.Errorf("Parse(%d bytes) error = %.100v (%d bytes); want one under 500 bytes naming PLAN.claims:1", len(in), err, len(fmt.Sprint(err)))
		}
	}
}

func TestContainsFields(t *testing.T) {
	const tail = "llama_perf_context_print:        eval time =       0.00 ms /     1 runs   (    0.00 ms per token)\nnext"
	tests := []struct {
		span string
		want bool
	}{
		{"eval time = 0.00 ms / 1 runs", true},
		{"eval time =       0.00 ms /     1 runs", true},
		{"eval time = 0.10 ms / 1 runs", false},
		{"eval time = 0.00 ms / 1 runs (", true},
		{"evaltime = 0.00 ms", false},
		{"runs next", false}, // white space within a line only
		{"", false},
	}
	for _, tt := range tests {
		if got := containsFields(tail, tt.span); got != tt.want {
			t.Errorf("containsFields(tail, %q) = %v; want %v", tt.span, got, tt.want)
		}
	}
}

func TestMeasurement(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"14.27 tok/s", true}, {"75.00 %", true}, {"2.67×", true}, {"1,024-token", true},
		{"6.39–6.44", true}, {"9.51 → 13.52", true}, {"0.064 ± 0.002", true},
		{"14", false}, {"×3", false}, {"5 + 9 + 4 + 4", false}, {"82.17 + 9.38 %", true},
	}
	for _, tt := range tests {
		toks := plan.Scan(tt.in)
		if len(toks) != 1 {
			t.Fatalf("Scan(%q) = %v; want one token", tt.in, toks)
		}
		if got := Measurement(toks[0]); got != tt.want {
			t.Errorf("Measurement(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

func TestMetricRuns(t *testing.T) {
	tb := Parse("PLAN.claims", []byte(`set tf = tf_*
set none = zz_*
§7.1 | 1 | speed_a:x
§7.1 | 2 | mean(@tf:kld)
§7.1 | 3 | count(@tf)
§7.1 | 4 | ratio(speed_a:x, tf_b:x) ; tf_b:y
§7.1 | 5 | mean(@none:x)
§7.1 | 6 | 4
`))
	e := env(t, tb, map[string][]string{}, "speed_a", "tf_a", "tf_b")
	for i, want := range []string{"speed_a", "tf_a tf_b", "", "speed_a tf_b", "", ""} {
		r := tb.Rows[i]
		if got := strings.Join(r.MetricRuns(e), " "); got != want {
			t.Errorf("Row(%q).MetricRuns = %q; want %q", r.Text, got, want)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		v    float64
		q    string
		want string
	}{
		{3194.19, "3,194.23", "3,194.19"},
		{52.6, "69.43", "52.60"},
		{2.1649e-07, "2.16e-07", "2.16e-07"},
		{-55.78, "−55.8", "−55.8"},
		{2441, "2441", "2441"},
		{0.9, "0.5", "0.9"},
	}
	for _, tt := range tests {
		if got := Format(tt.v, num.MustParse(tt.q)); got != tt.want {
			t.Errorf("Format(%v, %q) = %q; want %q", tt.v, tt.q, got, tt.want)
		}
	}
}

func FuzzParseTable(f *testing.F) {
	f.Add([]byte(table))
	f.Add([]byte("§7.1 | 1 | f(g(h(a:b)), @s:x, $c, 1e-3)\nset s = *\nconst c = 1 GB"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb := Parse("PLAN.claims", b)
		for _, e := range tb.Errors {
			if e.Line < 1 || !strings.HasPrefix(e.Error(), "PLAN.claims:") {
				t.Fatalf("error without a line: %v", e)
			}
		}
		for _, r := range tb.Rows {
			for _, s := range r.Sources {
				if _, err := ParseExpr(s.String()); err != nil {
					t.Fatalf("row %d: source %q does not re-parse: %v", r.Line, s, err)
				}
			}
		}
	})
}

// TestPadZeros: pad=zeros declares trailing-zero padding of a printed
// value (the audited plan quotes llama.cpp's 1.4 t/s as 1.40) and accepts
// nothing else; without it the padding fails as false precision.
func TestPadZeros(t *testing.T) {
	read := func(text string) Value {
		n := num.MustParse(text)
		return Value{Kind: Scalar, X: Item{Value: n.Value, Text: text, Run: "r", Metric: "m"}}
	}
	for _, tt := range []struct {
		quote, printed string
		pad, ok        bool
	}{
		{"1.40", "1.4", true, true},
		{"1.40", "1.4", false, false},
		{"3,194.1900", "3194.19", true, true},
		{"1.45", "1.4", true, false},
		{"1.41", "1.4", true, false},
		{"1.4", "1.4", true, true},
	} {
		c := comparePart(num.MustParse(tt.quote), "", read(tt.printed), -1, tt.pad)
		if c.ok != tt.ok {
			t.Errorf("comparePart(%q against printed %q, pad %v) ok = %v (%v); want %v", tt.quote, tt.printed, tt.pad, c.ok, c.why, tt.ok)
		}
	}
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
		tab := Parse("PLAN.claims", []byte("section §1\n"+tt.row+"\n"))
		if tt.err != "" {
			if err := tab.Err(); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) error = %v; want %q", tt.row, err, tt.err)
			}
			continue
		}
		if err := tab.Err(); err != nil || len(tab.Rows) != 1 || tab.Rows[0].PadZeros != tt.pad {
			t.Errorf("Parse(%q) = %d rows, err %v; want one row with PadZeros %v", tt.row, len(tab.Rows), err, tt.pad)
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
				if _, err := ParseExpr(flat); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("deep/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := ParseExpr(deep); err == nil {
					b.Fatal("a deep expression parsed")
				}
			}
		})
	}
}

// TestParseBOM drops a leading UTF-8 byte order mark with a note: the
// first line is a declaration, not a syntax error.
func TestParseBOM(t *testing.T) {
	tb := Parse("PLAN.claims", []byte("\uFEFFsection §7.1 #5\n§7.1 #5 | 1 ms | a:b\n"))
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

// Occurrence selectors: a bench row by its printed fields, the n-th print
// of a metric; a selector that matches nothing says how many there are.
func TestRefFind(t *testing.T) {
	ms := &tail.Metrics{}
	row := func(v float64, model string, line int) tail.Metric {
		return tail.Metric{Name: "tg32", Num: num.Number{Value: v, Text: strconv.FormatFloat(v, 'f', -1, 64)}, Line: line,
			Detail: &tail.Detail{Config: []tail.Field{{Key: "model_filename", Value: model}, {Key: "n_threads", Value: "1"}}}}
	}
	ms.Add(row(10, "a.gguf", 1))
	ms.Add(row(20, "b.gguf", 2))
	ms.Add(row(30, "a.gguf", 3))
	tests := []struct {
		ref  string
		want float64
		err  string
	}{
		{"tg32", 10, ""},
		{"tg32#2", 20, ""},
		{"tg32#3", 30, ""},
		{"tg32[model_filename=b.gguf]", 20, ""},
		{"tg32[model_filename=a.gguf]#2", 30, ""},
		{"tg32[model_filename=a.gguf,n_threads=1]#2", 30, ""},
		{"tg32[model_filename=b.gguf]#2", 0, "occurrence 2 of tg32 printed with model_filename=b.gguf asked for; 1 printed (of 3 tg32)"},
		{"tg32#4", 0, "occurrence 4 of tg32 asked for; 3 printed"},
		{"tg32#0", 0, "not a number from 1"},
		{"tg32[model_filename]", 0, "not KEY=VALUE"},
		{"pp16", 0, `no metric "pp16"`},
	}
	for _, tt := range tests {
		r, err := ParseRef(tt.ref)
		var m tail.Metric
		if err == nil {
			m, err = r.Find(ms)
		}
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Find(%q) error = %v; want %q", tt.ref, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("Find(%q) error = %v", tt.ref, err)
		case tt.err == "" && m.Num.Value != tt.want:
			t.Errorf("Find(%q) = %v; want %v", tt.ref, m.Num.Value, tt.want)
		}
	}
	for _, src := range []string{"bench:tg32[model_filename=models/b q.gguf]#2", "ratio(r:a#2, r:b[k=v])"} {
		e, err := ParseExpr(src)
		if err != nil {
			t.Errorf("ParseExpr(%q) = %v", src, err)
			continue
		}
		if got := e.String(); got != src {
			t.Errorf("ParseExpr(%q).String() = %q; want it unchanged", src, got)
		}
	}
}

// TestHeadingPlaces: a skip or section line names a place by its number or
// by its heading path; one that names no heading of the plan is missing,
// at its line (a llama.cpp user's plan: an untitled first heading of design
// targets, and skips that named nothing).
func TestHeadingPlaces(t *testing.T) {
	doc := plan.Parse("PLAN.md", []byte("# Inference plan — design targets\n\n10 tok/s\n\n## 1. Runs\n\n### Warm runs\n\n9.5 tok/s\n"))
	tests := []struct {
		line    string
		missing bool
	}{
		{"skip Inference plan — design targets", false},
		{"skip inference plan —  design targets", false},
		{"skip §1 > Warm runs", false},
		{"skip Inference plan — design targets > Warm runs", false},
		{"skip Inference plan > Warm runs", true}, // a path element is a whole heading text
		{"skip §0", true},
		{"skip #1", true},
		{"skip §1.0", true},
		{"skip Design targets", true},
	}
	for _, tt := range tests {
		tb := Parse("PLAN.claims", []byte(tt.line+"\n"))
		if err := tb.Err(); err != nil {
			t.Errorf("Parse(%q) = %v; want no error", tt.line, err)
			continue
		}
		res := Check(doc, tb, &Env{Table: tb})
		if got := len(res.MissingSections) == 1 && res.MissingSections[0].Line == 1; got != tt.missing {
			t.Errorf("Check(%q) missing = %v (%+v); want %v", tt.line, got, res.MissingSections, tt.missing)
		}
	}
	if err := Parse("PLAN.claims", []byte("skip 1.3 Targets\n")).Err(); err == nil || !strings.Contains(err.Error(), "PLAN.claims:1") {
		t.Errorf("Parse(skip 1.3 Targets) error = %v; want a syntax error at PLAN.claims:1", err)
	}
}
