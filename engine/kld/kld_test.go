package kld

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestMacro(t *testing.T) {
	tests := []struct {
		name     string
		values   map[string]float64
		decimals int
		want     float64
	}{
		// Top-1 agreement over 64 tokens, rounded per domain before the macro:
		// 58/64, 57/64, 58/64 → 90.63, 89.06, 90.63 → 90.1067 (m5-reading.md).
		{"top1 rounded", map[string]float64{"ops_tools": 100 * 58.0 / 64, "chat_json": 100 * 57.0 / 64, "ja": 100 * 58.0 / 64}, 2, (90.63 + 89.06 + 90.63) / 3},
		{"top1 unrounded", map[string]float64{"ops_tools": 100 * 58.0 / 64, "chat_json": 100 * 57.0 / 64, "ja": 100 * 58.0 / 64}, -1, 100 * 173.0 / 192},
		{"one domain", map[string]float64{"ja": 0.25}, -1, 0.25},
	}
	for _, tt := range tests {
		got, err := Macro(tt.values, tt.decimals)
		if err != nil || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Macro(%s) = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if got, _ := Macro(map[string]float64{"a": 100 * 58.0 / 64, "b": 100 * 57.0 / 64, "c": 100 * 58.0 / 64}, 2); math.Round(got*1000)/1000 != 90.107 {
		t.Errorf("top-1 macro = %v; want 90.107 at 3 dp", got)
	}
	if _, err := Macro(nil, 2); err == nil {
		t.Errorf("Macro(no domains) = nil error")
	}
	if _, err := Macro(map[string]float64{"a": math.NaN()}, 2); err == nil {
		t.Errorf("Macro(NaN) = nil error")
	}
}

func TestBootstrap(t *testing.T) {
	docs := []float64{0.05, 0.07, 0.06, 0.09, 0.04}
	a, err := Bootstrap(docs, 0.95, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Bootstrap(docs, 0.95, 2000, 1)
	if a != b {
		t.Errorf("Bootstrap not deterministic: %v vs %v", a, b)
	}
	mean := 0.062
	if !(a.Lo < mean && mean < a.Hi) || a.Lo < 0.04 || a.Hi > 0.09 {
		t.Errorf("Bootstrap(%v) = %v; want an interval around the mean %v inside the data's range", docs, a, mean)
	}
	c, _ := Bootstrap(docs, 0.95, 2000, 2)
	if c == a {
		t.Errorf("Bootstrap with another seed gave the identical interval %v", c)
	}
	narrow, _ := Bootstrap(docs, 0.50, 2000, 1)
	if !(narrow.Lo >= a.Lo && narrow.Hi <= a.Hi) {
		t.Errorf("50%% interval %v not inside 95%% interval %v", narrow, a)
	}
	same, _ := Bootstrap([]float64{2, 2, 2}, 0.95, 100, 1)
	if same.Lo != 2 || same.Hi != 2 {
		t.Errorf("Bootstrap(constant 2) = %v; want [2, 2]", same)
	}
	for _, n := range []int{0, 1, 2} {
		if _, err := Bootstrap(make([]float64, n), 0.95, 100, 1); !errors.Is(err, ErrTooFewDocs) {
			t.Errorf("Bootstrap(%d docs) error = %v; want ErrTooFewDocs", n, err)
		}
	}
	for _, bad := range []struct {
		level float64
		reps  int
	}{{0, 100}, {1, 100}, {0.9, 0}} {
		if _, err := Bootstrap(docs, bad.level, bad.reps, 1); err == nil {
			t.Errorf("Bootstrap(level %v, reps %d) = nil error", bad.level, bad.reps)
		}
	}
}

func TestSmall(t *testing.T) {
	got := Small([]Sample{{"ops_tools", 1, 64}, {"ja", 3, 192}, {"chat_json", 2, 128}})
	if len(got) != 2 || got[0].Domain != "ops_tools" || got[1].Domain != "chat_json" {
		t.Errorf("Small = %+v; want ops_tools and chat_json", got)
	}
}

func TestExcludeFirst(t *testing.T) {
	// 58 of 64 agree; the first (agreeing) token out: 57 of 63.
	got, err := ExcludeFirst(100*58.0/64, 64, 100)
	if err != nil || math.Abs(got-100*57.0/63) > 1e-9 {
		t.Errorf("ExcludeFirst(90.625, 64, 100) = %v, %v; want %v", got, err, 100*57.0/63)
	}
	if got, _ := ExcludeFirst(0.064, 64, 0); math.Abs(got-0.064*64/63) > 1e-12 {
		t.Errorf("ExcludeFirst(0.064, 64, 0) = %v; want %v", got, 0.064*64/63)
	}
	if _, err := ExcludeFirst(1, 1, 0); err == nil {
		t.Errorf("ExcludeFirst(n=1) = nil error")
	}
}

// perplexityOut is the end of a llama-perplexity --kl-divergence run in the
// format of tools/perplexity/perplexity.cpp (current build: percentiles 95/90,
// Δp quartiles), with the per-chunk table before it. Values are made up.
const perplexityOut = `chunk             PPL               ln(PPL(Q)/PPL(base))          KL Divergence              Δp RMS            Same top p
   1       9.1234 ±    0.4567       0.00812 ±    0.00345       0.01234 ±    0.00056    3.456 ±  0.123 %    93.725 ±  1.521 %

====== Perplexity statistics ======
Mean PPL(Q)                   :   9.123400 ±   0.456700
Mean PPL(base)                :   9.049500 ±   0.452100
Cor(ln(PPL(Q)), ln(PPL(base))):  99.21%
Mean ln(PPL(Q)/PPL(base))     :   0.008120 ±   0.003450
Mean PPL(Q)/PPL(base)         :   1.008153 ±   0.003478
Mean PPL(Q)-PPL(base)         :   0.073900 ±   0.031500

====== KL divergence statistics ======
Mean    KLD:   0.012340 ±   0.000560
Maximum KLD:   1.234567
99.9%   KLD:   0.876543
99.0%   KLD:   0.234567
95.0%   KLD:   0.061234
90.0%   KLD:   0.031234
Median  KLD:   0.004321
10.0%   KLD:   0.000021
 5.0%   KLD:   0.000005
 1.0%   KLD:  -0.000001
 0.1%   KLD:  -0.000012
Minimum KLD:  -0.000034

====== Token probability statistics ======
Mean    Δp: -0.123 ± 0.045 %
Maximum Δp: 45.678%
99.9%   Δp: 23.456%
75.0%   Δp:  0.012%
Median  Δp: -0.000%
Minimum Δp: -56.789%
RMS Δp    :  3.456 ± 0.123 %
Same top p: 93.725 ± 1.521 %

llama_perf_context_print:        load time =    1234.56 ms
`

func TestParsePerplexity(t *testing.T) {
	ms := ParsePerplexity("ppl.log", perplexityOut)
	if len(ms.Errors) != 0 {
		t.Fatalf("errors: %v", ms.Errors)
	}
	tests := []struct {
		name, text, unit string
		line             int
	}{
		{"ppl_q", "9.123400", "", 5},
		{"ppl_cor", "99.21", "%", 7},
		{"ln_ppl_ratio_unc", "0.003450", "", 8},
		{"kld_mean", "0.012340", "", 13},
		{"kld_mean_unc", "0.000560", "", 13},
		{"kld_max", "1.234567", "", 14},
		{"kld_p99_9", "0.876543", "", 15},
		{"kld_p99", "0.234567", "", 16},
		{"kld_p95", "0.061234", "", 17},
		{"kld_median", "0.004321", "", 19},
		{"kld_p5", "0.000005", "", 21},
		{"kld_p0_1", "-0.000012", "", 23},
		{"kld_min", "-0.000034", "", 24},
		{"dp_mean", "-0.123", "%", 27},
		{"dp_p75", "0.012", "%", 30},
		{"dp_rms", "3.456", "%", 33},
		{"same_top_p", "93.725", "%", 34},
		{"same_top_p_unc", "1.521", "%", 34},
	}
	for _, tt := range tests {
		m, ok := ms.Get(tt.name)
		if !ok || m.Num.Text != tt.text || m.Unit != tt.unit || m.Line != tt.line {
			t.Errorf("ParsePerplexity: %s = %q %q line %d (found %v); want %q %q line %d", tt.name, m.Num.Text, m.Unit, m.Line, ok, tt.text, tt.unit, tt.line)
		}
	}
	if _, ok := ms.Get("load"); ok {
		t.Errorf("a line outside the statistics blocks was read as a statistic")
	}
}

func TestParsePerplexityErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no mean", "====== KL divergence statistics ======\nMaximum KLD:   1.0\n", `ppl.log:1: "KL divergence statistics" block has no "Mean    KLD:" line`},
		{"garbled", "====== KL divergence statistics ======\nMean    KLD:   0.01 ± 0.001\nMedian  KLD  0.004\n", `ppl.log:3: KL divergence statistics: unreadable line "Median  KLD  0.004"`},
		{"unknown", "====== KL divergence statistics ======\nMean    KLD:   0.01\nMode    KLD:   0.002\n", `unknown statistic "Mode    KLD"`},
		{"bad number", "====== KL divergence statistics ======\nMean    KLD:   0.0.1\n", "kld_mean"},
	}
	for _, tt := range tests {
		ms := ParsePerplexity("ppl.log", tt.in)
		var msgs []string
		for _, e := range ms.Errors {
			msgs = append(msgs, e.Error())
		}
		if !strings.Contains(strings.Join(msgs, "\n"), tt.want) {
			t.Errorf("ParsePerplexity(%s) errors = %q; want one containing %q", tt.name, msgs, tt.want)
		}
	}
	// Fewer than 100 tokens: llama-perplexity prints no statistics, and that is no error.
	if ms := ParsePerplexity("short.log", "chunk PPL\n   1  9.1\n"); len(ms.List) != 0 || len(ms.Errors) != 0 {
		t.Errorf("ParsePerplexity(no statistics) = %v, %v; want nothing", ms.List, ms.Errors)
	}
	// The timestamp and level prefix of llama.cpp's log is skipped.
	ms := ParsePerplexity("ts.log", "0.01.234.567 I ====== KL divergence statistics ======\n0.01.234.568 I Mean    KLD:   0.250000 ±   0.010000\n")
	if m, ok := ms.Get("kld_mean"); !ok || m.Value() != 0.25 || len(ms.Errors) != 0 {
		t.Errorf("prefixed kld_mean = %v, %v, errors %v", m.Value(), ok, ms.Errors)
	}
}

func FuzzParsePerplexity(f *testing.F) {
	f.Add(perplexityOut)
	f.Add("====== KL divergence statistics ======\nMean    KLD:   nan ± inf\n")
	f.Fuzz(func(t *testing.T, s string) {
		ms := ParsePerplexity("fuzz.log", s)
		for _, e := range ms.Errors {
			if e.File != "fuzz.log" {
				t.Fatalf("error without the file: %v", e)
			}
		}
	})
}
