package eval_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/claims/eval/evaltest"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// TestPrecision: a quote may not be more precise than its source printed
// it (a derivation: than the most precise metric feeding it, or its
// row's digits=K), and the raw value is shown at the source's precision.
func TestPrecision(t *testing.T) {
	read := func(text string) eval.Value {
		it := eval.Item{Value: num.MustParse(text).Value, Text: text, Run: "r", Metric: "m"}
		return eval.Value{Kind: eval.Scalar, X: it, From: []eval.Item{it}}
	}
	derived := func(v float64, from ...string) eval.Value {
		out := eval.Value{Kind: eval.Scalar, X: eval.Item{Value: v}}
		for _, f := range from {
			out.From = append(out.From, read(f).X)
		}
		return out
	}
	count := eval.Value{Kind: eval.Scalar, X: eval.Item{Value: 22, Unit: "runs"}}
	tests := []struct {
		quote  string
		v      eval.Value
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
		c := eval.Compare(num.MustParse(tt.quote), "", tt.v, tt.digits, false)
		why := strings.Join(c.Why, "; ")
		if c.Raw != tt.raw || c.OK != (tt.why == "") || tt.why != "" && !strings.Contains(why, tt.why) {
			t.Errorf("eval.Compare(%q, digits %d) = raw %q, ok %v, %q; want raw %q, ok %v, %q", tt.quote, tt.digits, c.Raw, c.OK, why, tt.raw, tt.why == "", tt.why)
		}
	}
}

func TestDerivations(t *testing.T) {
	tb := claims.Parse("PLAN.claims", []byte("set s = r*\nset one = r1\nconst page = 16 KiB\nconst toks = 65 tokens\n"), eval.Signatures())
	e := evaltest.Env(t, tb, map[string][]string{
		"r1": {"t1=72.400 ms/tok", "host=16.11 ms/tok", "miss=40.6", "kld=0.058127", "gib=15.820 GiB", "n=12288", "mb=105851.73 MB", "dec=64 tok", "top1=90.63 %", "gpu=1,234.5 µs/tok", "fill=6100 MB/s"},
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
		{"to(r1:gpu, ms/tok)", 1.2345, "ms/tok"},
		{"to(r1:t1, µs/tok)", 72400, "µs/tok"},
		{"to(r1:t1, us/tok)", 72400, "µs/tok"},
		{"to(r1:fill, GB/s)", 6.1, "GB/s"},
		{"to(r1:gib, GB)", 16.98659615744, "GB"},
		{"to(r1:gib, TiB)", 15.82 / 1024, "TiB"},
		{"div(r1:gpu, 1000)", 1.2345, "ms/tok"},     // a literal that converts µs to ms
		{"div(r1:mb, 1000)", 105.85173, "GB"},       // MB ÷ 1000 is GB
		{"div(r1:mb, 65)", 1628.488153846154, "MB"}, // no conversion: the unit stays
		{"div(r1:gib, 1000)", 0.01582, "GiB"},       // GiB ÷ 1000 is no unit of the table
	}
	for _, tt := range tests {
		x, err := claims.ParseExpr(tt.expr, eval.Signatures())
		if err != nil {
			t.Errorf("claims.ParseExpr(%q, eval.Signatures()): %v", tt.expr, err)
			continue
		}
		v, err := e.Eval(x)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.expr, err)
			continue
		}
		if v.Kind != eval.Scalar || math.Abs(v.X.Value-tt.want) > 1e-6*math.Max(1, math.Abs(tt.want)) || v.X.Unit != tt.unit {
			t.Errorf("Eval(%q) = %v %q (kind %d); want %v %q", tt.expr, v.X.Value, v.X.Unit, v.Kind, tt.want, tt.unit)
		}
	}
	// range keeps the runs at its ends
	x, _ := claims.ParseExpr("range(@s:miss)", eval.Signatures())
	v, err := e.Eval(x)
	if err != nil || v.Kind != eval.Pair || v.Lo.Run != "r1" || v.Hi.Run != "r3" || len(v.List) != 3 {
		t.Errorf("Eval(range(@s:miss)) = %+v, %v; want 40.6 (r1) – 108.9 (r3) over 3 runs", v, err)
	}
	errs := []struct{ expr, want string }{
		{"each(@s:gib)", "runs differ: r1 = 15.82, r3 = 4.22"},
		{"rate(r1:mb, r2:dec)", "divides by the run's own token count"},
		{"r9:t1", `no run "r9"`},
		{"r1:nosuch", `run r1 has no metric "nosuch"`},
		{"to(r1:t1, MB)", `cannot convert "ms/tok" to "MB"`},
		{"to(r1:t1, ms)", `cannot convert "ms/tok" to "ms"`},
		{"to(r1:gib, gb)", `second argument: unit "gb": column 1: unknown unit "gb" (units are case-sensitive: GB)`},
		{"to(r1:miss, ms)", `cannot convert "" to "ms"`},
		{"to(r1:t1, ms/xyz)", `unknown unit "xyz"`},
		{"ratio(1, 0)", "division by zero"},
		{"pure_gpu(@s:t1, r1:host)", "argument 1 is not a number"},
	}
	for _, tt := range errs {
		x, err := claims.ParseExpr(tt.expr, eval.Signatures())
		if err == nil {
			_, err = e.Eval(x)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Eval(%q) error = %v; want %q", tt.expr, err, tt.want)
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
		if got := eval.Format(tt.v, num.MustParse(tt.q)); got != tt.want {
			t.Errorf("Format(%v, %q) = %q; want %q", tt.v, tt.q, got, tt.want)
		}
	}
}

// TestPadZeros: pad=zeros declares trailing-zero padding of a printed
// value (the audited plan quotes llama.cpp's 1.4 t/s as 1.40) and accepts
// nothing else; without it the padding fails as false precision.
func TestPadZeros(t *testing.T) {
	read := func(text string) eval.Value {
		n := num.MustParse(text)
		return eval.Value{Kind: eval.Scalar, X: eval.Item{Value: n.Value, Text: text, Run: "r", Metric: "m"}}
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
		c := eval.Compare(num.MustParse(tt.quote), "", read(tt.printed), -1, tt.pad)
		if c.OK != tt.ok {
			t.Errorf("eval.Compare(%q against printed %q, pad %v) ok = %v (%v); want %v", tt.quote, tt.printed, tt.pad, c.OK, c.Why, tt.ok)
		}
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
		r, err := claims.ParseRef(tt.ref)
		var m tail.Metric
		if err == nil {
			m, err = eval.Find(r, ms)
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
		e, err := claims.ParseExpr(src, eval.Signatures())
		if err != nil {
			t.Errorf("claims.ParseExpr(%q, eval.Signatures()) = %v", src, err)
			continue
		}
		if got := e.String(); got != src {
			t.Errorf("claims.ParseExpr(%q, eval.Signatures()).String() = %q; want it unchanged", src, got)
		}
	}
}

func TestMetricRuns(t *testing.T) {
	tb := claims.Parse("PLAN.claims", []byte(`set tf = tf_*
set none = zz_*
§7.1 | 1 | speed_a:x
§7.1 | 2 | mean(@tf:kld)
§7.1 | 3 | count(@tf)
§7.1 | 4 | ratio(speed_a:x, tf_b:x) ; tf_b:y
§7.1 | 5 | mean(@none:x)
§7.1 | 6 | 4
`), eval.Signatures())
	e := evaltest.Env(t, tb, map[string][]string{}, "speed_a", "tf_a", "tf_b")
	for i, want := range []string{"speed_a", "tf_a tf_b", "", "speed_a tf_b", "", ""} {
		r := tb.Rows[i]
		if got := strings.Join(r.MetricRuns(e), " "); got != want {
			t.Errorf("Row(%q).MetricRuns = %q; want %q", r.Text, got, want)
		}
	}
}
