package llamacpp

import (
	"math"
	"strings"
	"testing"
)

// Samples in the formats of each llama.cpp generation. The layouts follow
// the printf formats of llama.cpp's sources (widths %10.2f, %5d, %8.2f); the
// numbers are made up for the tests.
const (
	// llama_print_timings, earliest builds: "ms per run", no tokens per
	// second, no count on the total.
	sampleEarliest = `main: seed = 1680000000
llama_model_load: loading model from 'models/7B/ggml-model-q4_0.bin' - please wait ...

llama_print_timings:        load time =  1210.33 ms
llama_print_timings:      sample time =    20.12 ms /    64 runs   (    0.31 ms per run)
llama_print_timings: prompt eval time =  2050.81 ms /    12 tokens (  170.90 ms per token)
llama_print_timings:        eval time =  9010.10 ms /    63 runs   (  143.02 ms per run)
llama_print_timings:       total time = 12301.77 ms
`
	// llama_print_timings with tokens per second (mid 2023 to 2024).
	sampleOld = `system_info: n_threads = 8 / 10 | AVX = 0 | NEON = 1 | ARM_FMA = 1 |
 The answer is 4.
llama_print_timings:        load time =   612.40 ms
llama_print_timings:      sample time =    41.07 ms /    96 runs   (    0.43 ms per token,  2337.48 tokens per second)
llama_print_timings: prompt eval time =  1803.22 ms /    57 tokens (   31.64 ms per token,    31.61 tokens per second)
llama_print_timings:        eval time =  7911.54 ms /    95 runs   (   83.28 ms per token,    12.01 tokens per second)
llama_print_timings:       total time =  9851.02 ms /   152 tokens
`
	// llama_perf_sampler_print / llama_perf_context_print (late 2024 on).
	sampleNewer = `llama_perf_sampler_print:    sampling time =      12.88 ms /   140 runs   (    0.09 ms per token, 10869.57 tokens per second)
llama_perf_context_print:        load time =    2231.61 ms
llama_perf_context_print: prompt eval time =     402.16 ms /    12 tokens (   33.51 ms per token,    29.84 tokens per second)
llama_perf_context_print:        eval time =    5120.50 ms /   127 runs   (   40.32 ms per token,    24.80 tokens per second)
llama_perf_context_print:       total time =    5560.91 ms /   139 tokens
llama_perf_context_print:    graphs reused =        123
`
	// common_perf_print (late 2025 on), a run that decoded nothing, with
	// the common log's timestamp and level prefix.
	sampleNewestZero = `0.42.118.004 I common_perf_print:    sampling time =       0.41 ms
0.42.118.010 I common_perf_print:    samplers time =       0.22 ms /  1265 tokens
0.42.118.012 I common_perf_print:        load time =    9012.45 ms
0.42.118.013 I common_perf_print: prompt eval time =   33170.12 ms /  1264 tokens (   26.24 ms per token,    38.11 tokens per second)
0.42.118.014 I common_perf_print:        eval time =       0.00 ms /     1 runs   (    0.00 ms per token,      inf tokens per second)
0.42.118.015 I common_perf_print:       total time =   33181.77 ms /  1265 tokens
0.42.118.016 I common_perf_print: unaccounted time =      11.24 ms /   0.0 %      (total - sampling - prompt eval - eval) / (total)
0.42.118.017 I common_perf_print:    graphs reused =          0
`
	// No eval at all: 0 runs, glibc prints -nan.
	sampleNaN = "llama_perf_context_print:        eval time =       0.00 ms /     0 runs   (    -nan ms per token,     -nan tokens per second)\r\n" +
		"llama_perf_context_print:       total time =     100.00 ms /     0 tokens\r\n"
	// llama-cli (late 2025) in a single turn, coloured.
	sampleCLI = "<think>\nOkay, the user wants\n\x1b[1m\n[ Prompt: 14.3 t/s | Generation: 1.4 t/s ]\n\x1b[0m\nExiting...\n"
	// A decimal comma (C locale other than "C").
	sampleComma = `llama_print_timings:        load time =   285,92 ms
llama_print_timings: prompt eval time =   159,23 ms /     5 tokens (   31,85 ms per token,    31,40 tokens per second)
`
)

type want struct {
	name string
	text string
	unit string
	line int
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []want
	}{
		{"earliest", sampleEarliest, []want{
			{"load_ms", "1210.33", "ms", 4},
			{"sample_ms", "20.12", "ms", 5}, {"sample_tokens", "64", "tokens", 5}, {"sample_ms_per_tok", "0.31", "ms/tok", 5},
			{"prompt_eval_ms", "2050.81", "ms", 6}, {"prompt_eval_tokens", "12", "tokens", 6}, {"prompt_ms_per_tok", "170.90", "ms/tok", 6},
			{"eval_ms", "9010.10", "ms", 7}, {"eval_tokens", "63", "tokens", 7}, {"eval_ms_per_tok", "143.02", "ms/tok", 7},
			{"total_ms", "12301.77", "ms", 8},
		}},
		{"old", sampleOld, []want{
			{"load_ms", "612.40", "ms", 3},
			{"sample_ms", "41.07", "ms", 4}, {"sample_tokens", "96", "tokens", 4}, {"sample_ms_per_tok", "0.43", "ms/tok", 4}, {"sample_tok_s", "2337.48", "tok/s", 4},
			{"prompt_eval_ms", "1803.22", "ms", 5}, {"prompt_eval_tokens", "57", "tokens", 5}, {"prompt_ms_per_tok", "31.64", "ms/tok", 5}, {"prompt_tok_s", "31.61", "tok/s", 5},
			{"eval_ms", "7911.54", "ms", 6}, {"eval_tokens", "95", "tokens", 6}, {"eval_ms_per_tok", "83.28", "ms/tok", 6}, {"eval_tok_s", "12.01", "tok/s", 6},
			{"total_ms", "9851.02", "ms", 7}, {"total_tokens", "152", "tokens", 7},
		}},
		{"newer", sampleNewer, []want{
			{"sample_ms", "12.88", "ms", 1}, {"sample_tokens", "140", "tokens", 1}, {"sample_ms_per_tok", "0.09", "ms/tok", 1}, {"sample_tok_s", "10869.57", "tok/s", 1},
			{"load_ms", "2231.61", "ms", 2},
			{"prompt_eval_ms", "402.16", "ms", 3}, {"prompt_eval_tokens", "12", "tokens", 3}, {"prompt_ms_per_tok", "33.51", "ms/tok", 3}, {"prompt_tok_s", "29.84", "tok/s", 3},
			{"eval_ms", "5120.50", "ms", 4}, {"eval_tokens", "127", "tokens", 4}, {"eval_ms_per_tok", "40.32", "ms/tok", 4}, {"eval_tok_s", "24.80", "tok/s", 4},
			{"total_ms", "5560.91", "ms", 5}, {"total_tokens", "139", "tokens", 5},
			{"graphs_reused", "123", "", 6},
		}},
		{"newest, decoded nothing", sampleNewestZero, []want{
			{"sampling_ms", "0.41", "ms", 1},
			{"sample_ms", "0.22", "ms", 2}, {"sample_tokens", "1265", "tokens", 2},
			{"load_ms", "9012.45", "ms", 3},
			{"prompt_eval_ms", "33170.12", "ms", 4}, {"prompt_eval_tokens", "1264", "tokens", 4}, {"prompt_ms_per_tok", "26.24", "ms/tok", 4}, {"prompt_tok_s", "38.11", "tok/s", 4},
			{"eval_ms", "0.00", "ms", 5}, {"eval_tokens", "1", "tokens", 5}, {"eval_ms_per_tok", "0.00", "ms/tok", 5}, {"eval_tok_s", "inf", "tok/s", 5},
			{"total_ms", "33181.77", "ms", 6}, {"total_tokens", "1265", "tokens", 6},
			{"unaccounted_ms", "11.24", "ms", 7}, {"unaccounted_pct", "0.0", "%", 7},
			{"graphs_reused", "0", "", 8},
		}},
		{"0 runs, -nan, CRLF", sampleNaN, []want{
			{"eval_ms", "0.00", "ms", 1}, {"eval_tokens", "0", "tokens", 1}, {"eval_ms_per_tok", "-nan", "ms/tok", 1}, {"eval_tok_s", "-nan", "tok/s", 1},
			{"total_ms", "100.00", "ms", 2}, {"total_tokens", "0", "tokens", 2},
		}},
		{"llama-cli", sampleCLI, []want{
			{"cli_prompt_tok_s", "14.3", "tok/s", 4}, {"cli_gen_tok_s", "1.4", "tok/s", 4},
		}},
		{"decimal comma", sampleComma, []want{
			{"load_ms", "285,92", "ms", 1},
			{"prompt_eval_ms", "159,23", "ms", 2}, {"prompt_eval_tokens", "5", "tokens", 2}, {"prompt_ms_per_tok", "31,85", "ms/tok", 2}, {"prompt_tok_s", "31,40", "tok/s", 2},
		}},
		{"no summary", "llama_print_system_info: n_threads = 8\nmain: llama_print_timings is printed at exit\n", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := Parse("tail.txt", tt.in)
			for _, e := range ms.Errors {
				t.Errorf("Parse: unexpected error %v", e)
			}
			var got []want
			for _, m := range ms.List {
				got = append(got, want{m.Name, m.Num.Text, m.Unit, m.Line})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Parse(%s) = %d metrics %v; want %d %v", tt.name, len(got), got, len(tt.want), tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("Parse(%s) metric %d = %+v; want %+v", tt.name, i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	tests := []struct {
		in, name string
		want     float64
		decimals int
	}{
		{sampleNewestZero, "prompt_tok_s", 38.11, 2},
		{sampleNewestZero, "eval_tok_s", math.Inf(1), 0},
		{sampleNewestZero, "prompt_eval_tokens", 1264, 0},
		{sampleNaN, "eval_tok_s", math.NaN(), 0},
		{sampleCLI, "cli_gen_tok_s", 1.4, 1},
		{sampleComma, "prompt_tok_s", 31.40, 2},
		{sampleOld, "eval_ms", 7911.54, 2},
	}
	for _, tt := range tests {
		m, ok := Parse("t", tt.in).Get(tt.name)
		if !ok {
			t.Errorf("Parse(...).Get(%q): missing", tt.name)
			continue
		}
		same := m.Value() == tt.want || (math.IsNaN(tt.want) && math.IsNaN(m.Value()))
		if !same || m.Num.Decimals != tt.decimals {
			t.Errorf("Parse(...).Get(%q) = %v (%d dp); want %v (%d dp)", tt.name, m.Value(), m.Num.Decimals, tt.want, tt.decimals)
		}
	}
}

func TestParseSeveralSummaries(t *testing.T) {
	in := sampleCLI + "\n> next\n[ Prompt: 21.7 t/s | Generation: 2.0 t/s ]\n"
	ms := Parse("t", in)
	all := ms.All("cli_prompt_tok_s")
	if len(all) != 2 || all[0].Num.Text != "14.3" || all[1].Num.Text != "21.7" || all[1].Line != 9 {
		t.Errorf("All(cli_prompt_tok_s) = %+v; want 14.3 at line 4 and 21.7 at line 9", all)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		msg      string // substring of the error message
		metrics  int    // metrics still read from the other lines
	}{
		{"bad number", "llama_perf_context_print: prompt eval time = abc ms / 12 tokens\nllama_perf_context_print:        load time =    2231.61 ms\n", 1, `cannot read "abc"`, 1},
		{"wrong unit", "x\nllama_print_timings:        load time =   12.3 s\n", 2, `want unit "ms"`, 0},
		{"unknown label", "common_perf_print:   frobnicate time = 1.00 ms\n", 1, `unknown llama.cpp timing "frobnicate time"`, 0},
		{"no equals", "llama_perf_context_print: truncated", 1, `without "="`, 0},
		{"fractional count", "llama_perf_context_print:        eval time =  10.00 ms /   1.5 runs\n", 1, "not an integer", 1},
		{"bad count word", "llama_perf_context_print:        eval time =  10.00 ms /   1 bananas\n", 1, `want "runs" or "tokens"`, 1},
		{"dangling slash", "llama_perf_context_print:       total time =  10.00 ms /\n", 1, "missing number", 1},
		{"bad cli", "a\nb\n[ Prompt: fast t/s | Generation: 1.0 t/s ]\n", 3, `cannot read "fast"`, 0},
		{"cli cut", "[ Prompt: 14.3 t/s | Gen", 1, "Generation:", 0},
		{"graphs trailing", "llama_perf_context_print:    graphs reused =         12 extra\n", 1, "unexpected", 0},
		{"unaccounted no pct", "common_perf_print: unaccounted time =       3.18 ms /   0.1\n", 1, `want "%"`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := Parse("results/x.json: runs[3].output_tail", tt.in)
			if len(ms.Errors) != 1 {
				t.Fatalf("Parse(%q) errors = %v; want 1", tt.in, ms.Errors)
			}
			e := ms.Errors[0]
			if e.Line != tt.line || e.File != "results/x.json: runs[3].output_tail" || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("Parse(%q) error = %v; want line %d containing %q", tt.in, e, tt.line, tt.msg)
			}
			if len(ms.List) != tt.metrics {
				t.Errorf("Parse(%q) = %d metrics; want %d", tt.in, len(ms.List), tt.metrics)
			}
		})
	}
}

// FuzzParse checks that Parse never panics and that every metric and error
// it reports points at a line that holds it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{sampleEarliest, sampleOld, sampleNewer, sampleNewestZero, sampleNaN, sampleCLI, sampleComma,
		"llama_perf_context_print: = ( / ", "[ Prompt:", "_print", "\x1b[", "common_perf_print: eval time = 1 ms / 2 runs (", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms := Parse("fuzz", s)
		lines := strings.Split(s, "\n")
		if echo, line := PromptEcho(s); echo != "" && (!strings.Contains(s, echo) || line < 1 || line > len(lines)) {
			t.Fatalf("PromptEcho = %q at line %d; not in the %d-line input", echo, line, len(lines))
		}
		for _, m := range ms.List {
			if m.Line < 1 || m.Line > len(lines) {
				t.Fatalf("metric %s at line %d; input has %d lines", m.Name, m.Line, len(lines))
			}
			if !strings.Contains(lines[m.Line-1], m.Num.Text) {
				t.Fatalf("metric %s text %q not on its line %d %q", m.Name, m.Num.Text, m.Line, lines[m.Line-1])
			}
		}
		for _, e := range ms.Errors {
			if e.Line < 1 || e.Line > len(lines) {
				t.Fatalf("error %v at line %d; input has %d lines", e, e.Line, len(lines))
			}
		}
	})
}

func TestPromptEcho(t *testing.T) {
	tests := []struct {
		name, tail, want string
	}{
		{"llama-cli", "modalities : text\n\n> You are an agent.\nRead first. ... (truncated)\n\n[ Prompt: 14.3 t/s | Generation: 1.4 t/s ]\n",
			"You are an agent.\nRead first."},
		{"raw, decoded nothing", "generate: n_ctx = 4096, n_batch = 1024, n_predict = 64, n_keep = 0\n\nYou are solving a Termina [end of text]\n\ncommon_perf_print: x\n",
			"You are solving a Termina"},
		{"raw, cut tail", "ete and every check passes.\n\n\nYou are solving a Termina [end of text]\n", "ete and every check passes.\n\n\nYou are solving a Termina"},
		{"raw, generated, no marker", "generate: n_ctx = 1\n\nprompt text then generated\n\ncommon_perf_print:    sampling time =       6.41 ms\n",
			"prompt text then generated"},
		{"strata", "init: 356.06 ms\ndecode: 64 tok in 4733.73 ms (13.52 tok/s)\n", ""},
		{"quote in raw text is not a chat echo", "generate: n_ctx = 1\n\nline\n> quoted\n [end of text]", "line\n> quoted"},
	}
	for _, tt := range tests {
		if got, _ := PromptEcho(tt.tail); got != tt.want {
			t.Errorf("%s: PromptEcho = %q; want %q", tt.name, got, tt.want)
		}
	}
}
