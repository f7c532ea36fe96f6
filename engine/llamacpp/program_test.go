package llamacpp

import (
	"strings"
	"testing"
)

func TestProgram(t *testing.T) {
	tests := []struct {
		argv0, want string
		ok          bool
	}{
		{"./main", ProgramCLI, true},
		{"main", ProgramCLI, true},
		{"/opt/llama.cpp/build/bin/llama-cli", ProgramCLI, true},
		{"llama-completion", ProgramCompletion, true},
		{`C:\llama\llama-bench.exe`, ProgramBench, true},
		{"LLAMA-BENCH.EXE", "", false}, // names are case-sensitive, only ".exe" is not
		{"llama-bench.EXE", ProgramBench, true},
		{"./perplexity", ProgramPerplexity, true},
		{"bin/llama-perplexity", ProgramPerplexity, true},
		{"./server", ProgramServer, true},
		{"llama-server", ProgramServer, true},
		{"./embedding", ProgramEmbedding, true},
		{"strata_window_cli", "", false},
		{"llama", "", false},
		{"", "", false},
		{"main.py", "", false},
	}
	for _, tt := range tests {
		got, ok := Program(tt.argv0)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Program(%q) = %q, %v; want %q, %v", tt.argv0, got, ok, tt.want, tt.ok)
		}
	}
}

// A llama-cli tail cut before its summary yields no metric: ParseProgram
// says so at the tail's last line, and NoMetric reports it.
func TestParseProgramCutOff(t *testing.T) {
	cut := "build: 3761 (1c2f5958) with cc\nsystem_info: n_threads = 4\n\nI believe the meaning of life is to know\n"
	ms := ParseProgram(ProgramCLI, "results/r.json: runs[2].output_tail", cut)
	if !NoMetric(ms) {
		t.Fatalf("ParseProgram(cut) = %v; want no metric", ms.List)
	}
	if len(ms.Errors) != 1 || ms.Errors[0].Line != 4 || !strings.Contains(ms.Errors[0].Error(), "runs[2].output_tail:4: llama-cli: no performance metric") {
		t.Errorf("ParseProgram(cut) errors = %v; want one naming runs[2].output_tail line 4", ms.Errors)
	}
	whole := cut + "llama_perf_print:        load time =     194.75 ms\n"
	if ms := ParseProgram(ProgramCLI, "r", whole); NoMetric(ms) || len(ms.Errors) != 0 {
		t.Errorf("ParseProgram(whole) = %v, %v; want load_ms and no error", ms.List, ms.Errors)
	}
	if ms := ParseProgram("llama-quantize", "r", whole); len(ms.Errors) != 1 || !strings.Contains(ms.Errors[0].Msg, "unknown llama.cpp program") {
		t.Errorf("ParseProgram(unknown) errors = %v", ms.Errors)
	}
}

// Every program's parsers run on its tail, in tail order.
func TestParseProgramDispatch(t *testing.T) {
	ppl := "[1]11.2206,\n0.01.345.488 I Final estimate: PPL = 11.2206 +/- 3.51829\n\n" +
		"0.01.345.521 I llama_perf_print:        load time =      92.93 ms\n"
	ms := ParseProgram(ProgramPerplexity, "p", ppl)
	var names []string
	for _, m := range ms.List {
		names = append(names, m.Name+"="+m.Num.Text)
	}
	want := "chunk_ppl=11.2206 ppl_final=11.2206 ppl_final_unc=3.51829 load_ms=92.93"
	if got := strings.Join(names, " "); got != want || len(ms.Errors) != 0 {
		t.Errorf("ParseProgram(perplexity) = %s, %v; want %s", got, ms.Errors, want)
	}
}

func TestParsePerplexityFormats(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // name=text, space-separated
		errs     string // substring of the joined errors, "" for none
	}{
		{"chunks", "[1]4.1679,[2]7.8456,[3]8.9743,\n", "chunk_ppl=4.1679 chunk_ppl=7.8456 chunk_ppl=8.9743", ""},
		{"decimal comma", "Final estimate: PPL = 5,9066 +/- 0,03312\n", "ppl_final=5,9066 ppl_final_unc=0,03312", ""},
		{"bad chunk", "[1]4.1679,[2]x,\n", "chunk_ppl=4.1679", `cannot read "x"`},
		{"bad final", "Final estimate: PPL 5.9\n", "", `want "PPL = x +/- y"`},
		{"old KLD block", "===== KL-divergence statistics\nAverage:   0.010623 ±   0.000065\nMedian :   0.005517\nKLD_99 :   0.093331\nKLD_01 :   0.000002\n",
			"kld_mean=0.010623 kld_mean_unc=0.000065 kld_median=0.005517 kld_p99=0.093331 kld_p1=0.000002", ""},
		{"old KLD glued ±", "===== KL-divergence statistics\nAverage:  12.345678 ±12.345678\n", "kld_mean=12.345678 kld_mean_unc=12.345678", ""},
		{"old KLD unknown", "===== KL-divergence statistics\nAverage:   0.01\nKLD_999:   0.5\n", "kld_mean=0.01", `unknown statistic "KLD_999"`},
		{"KLD chunk row", "chunk        PPL          ln(PPL(Q)/PPL(base))          KL-Divergence           Same top\n   1        3.9734      -0.00651 ±    0.01162       0.01145 ±    0.00153    0.96078 ± 0.01218\n",
			"chunk_ppl=3.9734 chunk_ln_ppl_ratio=-0.00651 chunk_ln_ppl_ratio_unc=0.01162 chunk_kld=0.01145 chunk_kld_unc=0.00153 chunk_same_top=0.96078 chunk_same_top_unc=0.01218", ""},
		{"KLD chunk row short", "chunk        PPL          ln(PPL(Q)/PPL(base))          KL-Divergence           Same top\n   1        3.9734      -0.00651 ±    0.01162\n",
			"", "chunk_kld: missing number"},
		{"KLD chunk row long", "chunk  PPL  ln(PPL(Q)/PPL(base))  KL Divergence\n   1  3.9 ± 0.1  0.01 ± 0.01  0.02 ± 0.01  7\n",
			"", "more values"},
		{"old KLD without mean", "===== KL-divergence statistics\nMedian :   0.005517\n", "kld_median=0.005517", "no \"Mean    KLD:\" line"},
	}
	for _, tt := range tests {
		ms := ParsePerplexity("p", tt.in)
		var got []string
		for _, m := range ms.List {
			got = append(got, m.Name+"="+m.Num.Text)
		}
		var errs []string
		for _, e := range ms.Errors {
			errs = append(errs, e.Error())
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("ParsePerplexity(%s) = %s; want %s", tt.name, strings.Join(got, " "), tt.want)
		}
		if e := strings.Join(errs, "\n"); (tt.errs == "") != (e == "") || !strings.Contains(e, tt.errs) {
			t.Errorf("ParsePerplexity(%s) errors = %q; want %q", tt.name, e, tt.errs)
		}
	}
}

// Every program's parsers take any input without a panic; every error
// names the source and a line of the input (or 0 for the whole tail), and
// every metric's line exists.
func FuzzParseProgram(f *testing.F) {
	for _, s := range []string{
		"[\n  {\"build_commit\": \"a\", \"n_prompt\": 512, \"n_gen\": 0, \"avg_ts\": 1, \"samples_ts\": [ 1, 2 ]}\n]\n",
		"| model | test | t/s |\n|---|---|---|\n| m | pp512 | 1.0 ± 0.1 |\nbuild: a (1)\n",
		"build_commit,n_prompt,n_gen,avg_ts\n\"a\",\"1\",\"0\",\"2\"\n",
		"slot print_timing: id  0 | task 0 | \nprompt eval time = 1.0 ms / 2 tokens (0.5 ms per token, 2.0 tokens per second)\n",
		`{"timings":{"prompt_n":1,"predicted_per_second":2.5}}`,
		"[1]4.1,[2]5.2,\nFinal estimate: PPL = 5.2 +/- 0.1\n===== KL-divergence statistics\nAverage: 0.1 ± 0.01\n",
		"llama_perf_print:        load time =      12.75 ms\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := strings.Count(s, "\n") + 1
		for _, prog := range Programs() {
			ms := ParseProgram(prog, "fuzz", s)
			for _, e := range ms.Errors {
				if e.File != "fuzz" || e.Line < 0 || e.Line > n {
					t.Fatalf("%s: error %v outside the input's %d lines", prog, e, n)
				}
			}
			for _, m := range ms.List {
				if m.Line < 1 || m.Line > n {
					t.Fatalf("%s: metric %s at line %d outside the input's %d lines", prog, m.Name, m.Line, n)
				}
			}
		}
	})
}

// TestParseProgramMax: every program's parser stops at the limit it is
// given, marking the result Over, and reads in full when the tail is under
// it.
func TestParseProgramMax(t *testing.T) {
	line := "llama_perf_context_print:        eval time =    1234.56 ms /   100 runs   (   12.35 ms per token,    81.00 tokens per second)\n"
	text := strings.Repeat(line, 100)
	full := len(ParseProgram(ProgramCLI, "x.log", text).List)
	if full < 100 {
		t.Fatalf("ParseProgram over 100 summary lines: %d metrics; want at least 100", full)
	}
	for _, prog := range []string{ProgramCLI, ProgramPerplexity, ProgramServer} {
		for _, tt := range []struct {
			max      int
			wantLen  int
			wantOver bool
		}{
			{10, 10, true},
			{full, full, false},
		} {
			ms := ParseProgramMax(prog, "x.log", text, tt.max)
			if len(ms.List) != tt.wantLen || ms.Over != tt.wantOver {
				t.Errorf("ParseProgramMax(%q, max %d) = %d metrics, Over %v; want %d, Over %v", prog, tt.max, len(ms.List), ms.Over, tt.wantLen, tt.wantOver)
			}
		}
	}
	bench := strings.Repeat(`{"build_commit": "abc", "build_number": 1, "model_type": "m", "n_prompt": 512, "n_gen": 0, "avg_ts": 100.5, "stddev_ts": 1.5}`+"\n", 50)
	if ms := ParseProgramMax(ProgramBench, "b.jsonl", bench, 5); len(ms.List) > 5 || !ms.Over {
		t.Errorf("ParseProgramMax(llama-bench, max 5) over 50 rows = %d metrics, Over %v; want at most 5, Over", len(ms.List), ms.Over)
	}
}
