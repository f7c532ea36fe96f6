package plan

import (
	"strings"
	"testing"
)

// tok describes an expected token: its text, kind, parts as printed and unit.
type tok struct {
	text  string
	kind  Kind
	parts string // parts' printed text joined by "|"
	unit  string
}

func got(ts []Token) []tok {
	var out []tok
	for _, t := range ts {
		var ps []string
		for _, p := range t.Parts {
			ps = append(ps, p.Text)
		}
		out = append(out, tok{t.Text, t.Kind, strings.Join(ps, "|"), t.Unit})
	}
	return out
}

var scanTests = []struct {
	in   string
	want []tok
}{
	// claims
	{"3,194.19 ms", []tok{{"3,194.19 ms", Single, "3,194.19", "ms"}}},
	{"decode 13.52 tok/s", []tok{{"13.52 tok/s", Single, "13.52", "tok/s"}}},
	{"69.43% arena", []tok{{"69.43%", Single, "69.43", "%"}}},
	{"takes 0.9s", []tok{{"0.9s", Single, "0.9", "s"}}},
	{"2.67× faster", []tok{{"2.67×", Single, "2.67", "×"}}},
	{"4.220 GiB (4.53 GB)", []tok{{"4.220 GiB", Single, "4.220", "GiB"}, {"4.53 GB", Single, "4.53", "GB"}}},
	{"16 KiB pages, 0.0 MiB", []tok{{"16 KiB", Single, "16", "KiB"}, {"0.0 MiB", Single, "0.0", "MiB"}}},
	{"16.11 ms/tok 1.38 MB/tok 3.66 GB/s", []tok{{"16.11 ms/tok", Single, "16.11", "ms/tok"}, {"1.38 MB/tok", Single, "1.38", "MB/tok"}, {"3.66 GB/s", Single, "3.66", "GB/s"}}},
	{"2,441 slots, 85 pages, 64 tokens, 22 runs", []tok{{"2,441 slots", Single, "2,441", "slots"}, {"85 pages", Single, "85", "pages"}, {"64 tokens", Single, "64", "tokens"}, {"22 runs", Single, "22", "runs"}}},
	// llama.cpp's words for its rates, as published logs print them and plans copy them
	{"eval 61.44 ms per token, 16.28 tokens per second", []tok{{"61.44 ms per token", Single, "61.44", "ms/tok"}, {"16.28 tokens per second", Single, "16.28", "tok/s"}}},
	{"61.44 ms per tokenizer call", []tok{{"61.44 ms", Single, "61.44", "ms"}}},
	{"3 slots per token", []tok{{"3 slots", Single, "3", "slots"}}},
	{"the 43-tok and 1,024-token runs", []tok{{"43-tok", Single, "43", "tokens"}, {"1,024-token", Single, "1,024", "tokens"}}},
	{"fill 6.39–6.44 GB/s", []tok{{"6.39–6.44 GB/s", Range, "6.39|6.44", "GB/s"}}},
	{"0.4-0.9 s", []tok{{"0.4-0.9 s", Range, "0.4|0.9", "s"}}},
	{"0.4 s – 0.9 s", []tok{{"0.4 s – 0.9 s", Range, "0.4|0.9", "s"}}},
	{"phys 4.73 → 4.67 GB", []tok{{"4.73 → 4.67 GB", Arrow, "4.73|4.67", "GB"}}},
	{"9.51 -> 13.52", []tok{{"9.51 -> 13.52", Arrow, "9.51|13.52", ""}}},
	{"82.17 + 9.38 %", []tok{{"82.17 + 9.38 %", Sum, "82.17|9.38", "%"}}},
	{"(5 + 9 + 4 + 4)", []tok{{"5 + 9 + 4 + 4", Sum, "5|9|4|4", ""}}},
	{"0.064 ± 0.002", []tok{{"0.064 ± 0.002", PlusMinus, "0.064|0.002", ""}}},
	{"max err 2.16e-07", []tok{{"2.16e-07", Single, "2.16e-07", ""}}},
	{"passes ×3 each", []tok{{"×3", Single, "3", ""}}},
	{"~64 tokens, ≈0.06 GB", []tok{{"~64 tokens", Single, "64", "tokens"}, {"≈0.06 GB", Single, "0.06", "GB"}}},
	{"(−55.8 %)", []tok{{"−55.8 %", Single, "−55.8", "%"}}},
	{"58/64", []tok{{"58", Single, "58", ""}, {"64", Single, "64", ""}}},
	{"15.82 GiB / 12,288 = 1.38 MB = 84.4 × 16 KiB", []tok{{"15.82 GiB", Single, "15.82", "GiB"}, {"12,288", Single, "12,288", ""}, {"1.38 MB", Single, "1.38", "MB"}, {"84.4", Single, "84.4", ""}, {"16 KiB", Single, "16", "KiB"}}},
	{"n = 1", []tok{{"1", Single, "1", ""}}},
	{"**82.17**", []tok{{"82.17", Single, "82.17", ""}}},
	{"| 3.40 GB |", []tok{{"3.40 GB", Single, "3.40", "GB"}}},

	// identifiers: none of these is a claim
	{"Sections 1–6 are design; section 7 is validation; item 5", nil},
	{"see item 29 of 22 runs", []tok{{"22 runs", Single, "22", "runs"}}},
	{"Q2_0 IQ3_S K256 M5 v2 x86", nil},
	{"§7.1 #29 #5 L577 L577–581 runner L665–692", nil},
	{"MoCE=0.85 K=512 C=1,024 eval_tokens=64", nil},
	// a name=value or an item number followed by a unit is a measurement
	{"rate=999.9 tok/s", []tok{{"999.9 tok/s", Single, "999.9", "tok/s"}}},
	{"fill=6.39 GB/s at K=512", []tok{{"6.39 GB/s", Single, "6.39", "GB/s"}}},
	{"item 888 tok/s", []tok{{"888 tok/s", Single, "888", "tok/s"}}},
	// a flag's value is a label, not a claim
	{"decode with -n 128 gives 13.52 tok/s", []tok{{"13.52 tok/s", Single, "13.52", "tok/s"}}},
	{"(--n-gen=64) and -ub 1024", nil},
	{"a drop of -5.2 % and x-n 3", []tok{{"-5.2 %", Single, "-5.2", "%"}, {"3", Single, "3", ""}}},
	{"`-ub 1024` `--n-prompt 32 --n-gen 64` ``a `7` b``", nil},
	{"2026-10-15 2026-10-15T05:03:32.517Z at 07:54:46.45 and 08:01", nil},
	{"sha 2549439506dd… 334a7331…", nil},
	{"m5_prompt_1600tok.txt results/2026/x.json llama_prompt_1264tok.txt", nil},
	{"5G 3rd 2-dp 1.2.3", nil},
	{"K256-q2 ub1024 step2_ngl99", nil},
	{"see https://example.com/a/1.2", nil},
	{"1. first item", nil},                       // a list marker
	{"  12) twelfth", nil},                       // a list marker
	{"size 2) x", []tok{{"2", Single, "2", ""}}}, // not at the start: a number
}

func TestScan(t *testing.T) {
	for _, tt := range scanTests {
		g := got(Scan(tt.in))
		if len(g) != len(tt.want) {
			t.Errorf("Scan(%q) = %v; want %v", tt.in, g, tt.want)
			continue
		}
		for i := range g {
			if g[i] != tt.want[i] {
				t.Errorf("Scan(%q)[%d] = %+v; want %+v", tt.in, i, g[i], tt.want[i])
			}
		}
	}
}

// TestScanColumns checks that a token's Col points at its Text.
func TestScanColumns(t *testing.T) {
	for _, tt := range scanTests {
		for _, tk := range Scan(tt.in) {
			if tk.Col < 1 || tk.Col-1+len(tk.Text) > len(tt.in) || tt.in[tk.Col-1:tk.Col-1+len(tk.Text)] != tk.Text {
				t.Errorf("Scan(%q): token %q at column %d does not point at its text", tt.in, tk.Text, tk.Col)
			}
		}
	}
}

func TestScanValues(t *testing.T) {
	tests := []struct {
		in    string
		value []float64
		dec   []int
	}{
		{"3,194.19 ms", []float64{3194.19}, []int{2}},
		{"(−55.8 %)", []float64{-55.8}, []int{1}},
		{"2.16e-07", []float64{2.16e-07}, []int{2}},
		{"6.39–6.44 GB/s", []float64{6.39, 6.44}, []int{2, 2}},
		{"105,851.73 MB", []float64{105851.73}, []int{2}},
	}
	for _, tt := range tests {
		ts := Scan(tt.in)
		if len(ts) != 1 || len(ts[0].Parts) != len(tt.value) {
			t.Errorf("Scan(%q) = %v; want one token with %d parts", tt.in, got(ts), len(tt.value))
			continue
		}
		for i, p := range ts[0].Parts {
			if p.Value != tt.value[i] || p.Decimals != tt.dec[i] {
				t.Errorf("Scan(%q) part %d = %v (%d decimals); want %v (%d)", tt.in, i, p.Value, p.Decimals, tt.value[i], tt.dec[i])
			}
		}
	}
}

// TestHugeNumbers: a number too large for a float64 is still a number the
// plan quotes (found in review: "1e400 tok/s" was read as a word, so the
// gate passed it even with -strict).
func TestHugeNumbers(t *testing.T) {
	for _, in := range []string{"reaches 1e400 tok/s", "takes " + strings.Repeat("9", 309) + " ms"} {
		d := Parse("PLAN.md", []byte("# §1 A\n\n"+in+"\n"))
		toks := d.Lines[2].Tokens()
		if len(toks) != 1 || toks[0].Parts[0].Text == "" {
			t.Errorf("Tokens(%q) = %v; want the huge number as one token", in, toks)
		}
	}
}
