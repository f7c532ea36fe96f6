package llamacpp

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/tail"
)

// summarize prints a parse as "name=text" words and its errors.
func summarize(ms *tail.Metrics) (string, string) {
	var got, errs []string
	for _, m := range ms.List {
		got = append(got, m.Name+"="+m.Num.Text)
	}
	for _, e := range ms.Errors {
		errs = append(errs, e.Error())
	}
	return strings.Join(got, " "), strings.Join(errs, "\n")
}

func TestParseBenchFormats(t *testing.T) {
	const md = "| model | size | backend | ngl | test | t/s |\n| --- | ---: | --- | --: | ---: | ---: |\n" +
		"| llama 7B Q4_0 | 3.56 GiB | Metal | 99 | pp512 | 1234.56 ± 7.89 |\n" +
		"| llama 7B Q4_0 | 3.56 GiB | Metal | 99 | pp512 @ d1024 | 1000.00 ± 5.00 |\n\nbuild: 8cf427ff (5163)\n"
	tests := []struct {
		name, in string
		want     string
		errs     string
	}{
		{"md", md, "pp512=1234.56 pp512_stddev=7.89 pp512_d1024=1000.00 pp512_d1024_stddev=5.00", ""},
		{"md old test names", "| model | backend | test | t/s |\n|---|---|---|---|\n| 7B | CUDA | pp 512 | 2368.80 ± 93.24 |\n| 7B | CUDA | tg 128 | 131.42 ± 0.59 |\n",
			"pp512=2368.80 pp512_stddev=93.24 tg128=131.42 tg128_stddev=0.59", ""},
		{"md short row", "| model | test | t/s |\n|---|---|---|\n| 7B | pp512 |\n", "", "has 2 cells, its header 3"},
		{"md bad rate", "| model | test | t/s |\n|---|---|---|\n| 7B | pp512 | fast ± 1 |\n", "", `cannot read "fast"`},
		{"json", "load_backend: loaded CPU\n[\n  {\n    \"build_commit\": \"8cf427ff\",\n    \"n_prompt\": 512,\n    \"n_gen\": 0,\n    \"n_depth\": 0,\n    \"avg_ts\": 7100.002165,\n    \"stddev_ts\": 140.341520,\n    \"samples_ts\": [ 6863.1, 7147.55 ]\n  },\n  {\"build_commit\": \"8cf427ff\", \"n_prompt\": 0, \"n_gen\": 128, \"n_depth\": 512, \"avg_ts\": 118.88, \"stddev_ts\": 1.04}\n]\n",
			"pp512=7100.002165 pp512_stddev=140.341520 tg128_d512=118.88 tg128_d512_stddev=1.04", ""},
		{"json broken", "[\n  {\n    \"build_commit\": \"8cf427ff\",\n    \"avg_ts\": ,\n", "", "p:4: llama-bench JSON: member \"avg_ts\""},
		{"json without avg_ts", "[{\"build_commit\": \"x\", \"n_prompt\": 512, \"n_gen\": 0}]\n", "", "row has no avg_ts"},
		{"jsonl", "{\"build_commit\": \"a\", \"n_prompt\": 0, \"n_gen\": 128, \"avg_ts\": 119.8, \"stddev_ts\": 0.7, \"samples_ts\": [ 120.0, 119.6 ]}\n",
			"tg128=119.8 tg128_stddev=0.7", ""},
		{"csv", "build_commit,n_prompt,n_gen,n_depth,avg_ts,stddev_ts\n\"8cf427ff\",\"512\",\"0\",\"0\",\"7285.676949\",\"100.064434\"\n",
			"pp512=7285.676949 pp512_stddev=100.064434", ""},
		{"csv short", "build_commit,n_prompt,n_gen,avg_ts\n\"8cf427ff\",\"512\"\n", "", "has 2 fields, its header 4"},
		{"pp+tg", "{\"build_commit\": \"a\", \"n_prompt\": 512, \"n_gen\": 128, \"avg_ts\": 50.5}\n", "pp512_tg128=50.5", ""},
	}
	for _, tt := range tests {
		got, errs := summarize(ParseBench("p", tt.in).Metrics())
		if got != tt.want {
			t.Errorf("ParseBench(%s) = %s; want %s", tt.name, got, tt.want)
		}
		if (tt.errs == "") != (errs == "") || !strings.Contains(errs, tt.errs) {
			t.Errorf("ParseBench(%s) errors = %q; want %q", tt.name, errs, tt.errs)
		}
	}
}

// A JSON row keeps its samples and every configuration field, the newer
// ones included, and Unlike names every field two rows differ in.
func TestBenchRowConfig(t *testing.T) {
	in := `[{"build_commit": "a", "n_threads": 8, "n_cpu_moe": 0, "devices": "auto", "no_host": false, "n_prompt": 512, "n_gen": 0, "test_time": "t1", "avg_ts": 10, "samples_ts": [ 9.5, 10.5 ]},
{"build_commit": "a", "n_threads": 8, "n_cpu_moe": 4, "devices": "auto", "no_host": true, "n_prompt": 512, "n_gen": 0, "test_time": "t2", "avg_ts": 11, "samples_ts": [ 10.5, 11.5 ]}]
`
	b := ParseBench("p", in)
	if len(b.Rows) != 2 || len(b.Errors) != 0 {
		t.Fatalf("ParseBench = %d rows, %v", len(b.Rows), b.Errors)
	}
	r := b.Rows[0]
	if got := r.Samples; len(got) != 2 || got[0] != 9.5 || got[1] != 10.5 {
		t.Errorf("Samples = %v; want [9.5 10.5]", got)
	}
	var keys []string
	for _, f := range r.Config {
		keys = append(keys, f.Key)
	}
	if got, want := strings.Join(keys, ","), "build_commit,n_threads,n_cpu_moe,devices,no_host,n_prompt,n_gen"; got != want {
		t.Errorf("Config keys = %s; want %s", got, want)
	}
	if got, want := strings.Join(Unlike(b.Rows[0].Config, b.Rows[1].Config), "; "), "n_cpu_moe: 0 vs 4; no_host: false vs true"; got != want {
		t.Errorf("Unlike = %s; want %s", got, want)
	}
	if d := Unlike(b.Rows[0].Config, b.Rows[0].Config); len(d) != 0 {
		t.Errorf("Unlike(same) = %v; want nothing", d)
	}
	ms := b.Metrics()
	if m, _ := ms.Get("pp512"); len(m.Samples()) != 2 || len(m.Config()) != 7 {
		t.Errorf("metric pp512 = %+v; want its samples and configuration", m)
	}
}

func TestParseServer(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
		errs     string
	}{
		{"slot", "slot print_timing: id  0 | task 0 | \nprompt eval time =     915.13 ms /    51 tokens (   17.94 ms per token,    55.73 tokens per second)\n       eval time =   23038.87 ms /   275 tokens (   83.78 ms per token,    11.94 tokens per second)\n      total time =   23954.00 ms /   326 tokens\nslot      release: id  0 | task 0 | stop processing: n_past = 325, truncated = 0\n",
			"prompt_eval_ms=915.13 prompt_eval_tokens=51 prompt_ms_per_tok=17.94 prompt_tok_s=55.73 eval_ms=23038.87 eval_tokens=275 eval_ms_per_tok=83.78 eval_tok_s=11.94 total_ms=23954.00 total_tokens=326", ""},
		{"progress", "2.02.846.974 I slot print_timing: id  3 | task 0 | n_decoded =   1081, tg =  12.93 t/s, tg_3s =  12.57 t/s\n", "", ""},
		{"unknown slot timing", "slot print_timing: id  3 | task 0 | warp speed\n", "", `unknown "warp speed"`},
		{"old text log", "INFO [           print_timings] generation eval time =    3194.22 ms /   783 runs   (    4.08 ms per token,   245.13 tokens per second) | tid=\"1\" timestamp=1\n",
			"eval_ms=3194.22 eval_tokens=783 eval_ms_per_tok=4.08 eval_tok_s=245.13", ""},
		{"json log", `{"tid":"1","timestamp":1,"level":"INFO","function":"print_timings","line":1,"msg":"prompt eval time     =     239.64 ms /    11 tokens (   21.79 ms per token,    45.90 tokens per second)","id_slot":0}` + "\n",
			"prompt_eval_ms=239.64 prompt_eval_tokens=11 prompt_ms_per_tok=21.79 prompt_tok_s=45.90", ""},
		{"timings", `data: {"timings":{"cache_n":0,"prompt_n":463,"prompt_ms":62.703,"predicted_per_second":196.04383540159577,"new_field":1}}` + "\n",
			"cache_tokens=0 prompt_eval_tokens=463 prompt_eval_ms=62.703 eval_tok_s=196.04383540159577 timings_new_field=1", ""},
		{"timings broken", `{"timings":{"prompt_n":"many"}}` + "\n", "", `member "prompt_n" is not a number`},
	}
	for _, tt := range tests {
		got, errs := summarize(ParseServer("s", tt.in))
		if got != tt.want {
			t.Errorf("ParseServer(%s) = %s; want %s", tt.name, got, tt.want)
		}
		if (tt.errs == "") != (errs == "") || !strings.Contains(errs, tt.errs) {
			t.Errorf("ParseServer(%s) errors = %q; want %q", tt.name, errs, tt.errs)
		}
	}
}
