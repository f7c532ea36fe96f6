package format

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/llamacpp"
)

// TestProgram: a run's argv[0] names its format by the binary's base name:
// the spec file's programs first, then the built-ins' exact names, then
// their patterns.
func TestProgram(t *testing.T) {
	d := Builtin()
	spec, err := checkout.Parse(checkout.File, []byte(`{"programs": [{"match": "my-engine*", "parser": "strata"}, {"match": "main", "parser": "strata"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s := FromSpec(spec)
	tests := []struct {
		reg   *Registry
		argv0 string
		want  string
	}{
		{d, "./main", LlamaCpp},
		{d, "/opt/llama.cpp/build/bin/llama-cli", LlamaCpp},
		{d, `C:\llama\llama-bench.exe`, Bench},
		{d, `C:\llama\LLAMA-BENCH.EXE`, ""}, // names are case-sensitive, ".exe" is not
		{d, "perplexity", Perplexity},
		{d, "./server", Server},
		{d, "llama-server", Server},
		{d, "llama-completion", LlamaCpp},
		{d, "llama-embedding", LlamaCpp},
		{d, "llama-quantize", LlamaCpp}, // llama-*: after every exact name
		{d, "build/strata_window_cli", Strata},
		{d, "build/strata_window_cli_v2", Strata},
		{d, "python3", ""},
		{s, "./main", Strata}, // a spec's programs come first
		{s, "bin/my-engine-v2", Strata},
		{s, "llama-bench", Bench},
	}
	for _, tt := range tests {
		got, ok := tt.reg.Program(tt.argv0)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("Program(%q) = %q, %v; want %q", tt.argv0, got, ok, tt.want)
		}
	}
}

// TestProgramsKnowEveryBinary: the llama.cpp formats' programs name every
// binary llamacpp.Program knows, each with the format of its program.
func TestProgramsKnowEveryBinary(t *testing.T) {
	formatOf := map[string]string{llamacpp.ProgramBench: Bench, llamacpp.ProgramPerplexity: Perplexity,
		llamacpp.ProgramServer: Server, llamacpp.ProgramCLI: LlamaCpp, llamacpp.ProgramCompletion: LlamaCpp,
		llamacpp.ProgramEmbedding: LlamaCpp}
	want, got := map[string]string{}, map[string]string{}
	r := Builtin()
	for _, b := range llamacpp.Binaries() {
		want[b[0]] = formatOf[b[1]]
		got[b[0]], _ = r.Program(b[0])
	}
	if !maps.Equal(got, want) {
		t.Errorf("Program of llama.cpp's binaries = %v; want %v", got, want)
	}
}

// TestRecognize: an output without a recorded command is told by lines
// only its format prints, the most specific first; strata's log is never
// recognised by content (its program names it).
func TestRecognize(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"llama_perf_context_print: eval time = 10.00 ms / 5 runs\n", LlamaCpp},
		{"llama_print_timings: eval time = 1.00 ms\n", LlamaCpp},
		{"llama_model_loader: loaded meta data\n", LlamaCpp},
		{"llama_perf_context_print: x\nFinal estimate: PPL = 5.1 +/- 0.1\n", Perplexity},
		{"llama_perf_context_print: x\n===== KL-divergence statistics\n", Perplexity},
		{"slot print_timings: id 0 | prompt eval time = 1 ms\n", Server},
		{`{"content": "x", "timings": {"prompt_n": 3, "prompt_per_second": 9.5}}`, Server},
		{"| model | size | test | t/s |\n|---|---|---|---|\n", Bench},
		{`[{"avg_ts": 1.0}]`, Bench},
		{"init: 356.06 ms\ndecode: 64 tok in 6729.76 ms (9.51 tok/s)\n", ""},
		{"", ""},
	} {
		if got := Builtin().Recognize(tt.text); got != tt.want {
			t.Errorf("Recognize(%q) = %q; want %q", tt.text, got, tt.want)
		}
	}
}

// TestBase: a declared format reads what the built-in it wraps reads,
// through any number of wrappings; a format of patterns wraps none.
func TestBase(t *testing.T) {
	r := registry(t, `{"rp": {"wrap": "route_parity", "blocks": "^# cmd:"}, "g": {"wrap": "strata", "prefix": "^I[^\\]]*\\] "},
		"h": {"wrap": "g"}, "lc": {"wrap": "llama-server"}, "pat": [{"pattern": "^x (?P<v>[0-9]+)$", "metrics": {"v": {"name": "decode_tokens"}}}]}`)
	for _, tt := range []struct {
		name, base      string
		strata, llamacp bool
	}{
		{"h", Strata, true, false},
		{"g", Strata, true, false},
		{Strata, Strata, true, false},
		{"rp", RouteParity, false, false},
		{"lc", Server, false, true},
		{Bench, Bench, false, true},
		{"pat", "", false, false},
		{"nope", "", false, false},
	} {
		if got := r.Base(tt.name); got != tt.base {
			t.Errorf("Base(%q) = %q; want %q", tt.name, got, tt.base)
		}
		if got := r.Strata(tt.name); got != tt.strata {
			t.Errorf("Strata(%q) = %v; want %v", tt.name, got, tt.strata)
		}
		if got := r.LlamaCpp(tt.name); got != tt.llamacp {
			t.Errorf("LlamaCpp(%q) = %v; want %v", tt.name, got, tt.llamacp)
		}
	}
}

// TestLoaderAsksRegistry: the loader names each run's format as the
// registry does: by argv[0] from a sidecar, by content for a log without
// one, llama-bench's for a bench file; a declared format wrapping strata's
// makes its runs strata runs.
func TestLoaderAsksRegistry(t *testing.T) {
	dir := t.TempDir()
	for rel, s := range map[string]string{
		checkout.File:        `{"programs": [{"match": "eng", "parser": "glog"}], "formats": {"glog": {"wrap": "strata", "prefix": "^I[^\\]]*\\] "}}}`,
		"runs/cli.log":       "llama_perf_context_print: eval time = 10.00 ms / 5 runs\n",
		"runs/cli.json":      `{"cmd": "./main -n 64"}`,
		"runs/ppl.log":       "Final estimate: PPL = 5.1 +/- 0.1\n",
		"runs/eng.log":       "I1015 08:01:20.866027 1 main.cc:1] decode: 64 tok in 6729.76 ms (9.51 tok/s)\n",
		"runs/eng.json":      `{"cmd": ["bin/eng"]}`,
		"runs/pp.bench.json": `[{"avg_ts": 1.0}]`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := archive.Load(dir, For)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		run, format string
		strata      bool
	}{{"cli", LlamaCpp, false}, {"ppl", Perplexity, false}, {"eng", "glog", true}, {"pp", Bench, false}} {
		r := s.Run(tt.run)
		if r == nil {
			t.Errorf("run %s not loaded", tt.run)
			continue
		}
		if r.Parser != tt.format || r.Strata() != tt.strata {
			t.Errorf("run %s: Parser = %q, Strata() = %v; want %q, %v", tt.run, r.Parser, r.Strata(), tt.format, tt.strata)
		}
	}
	bare, err := archive.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := bare.Run("cli"); r == nil || r.Parser != "" {
		t.Errorf("without a registry: run cli = %+v; want one of no format", r)
	}
}

// TestLooksLikeBench: llama-bench output by content, the padded markdown
// header of a real build included; a llama-cli log and a plain table are not.
func TestLooksLikeBench(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"| model | size | params | backend | threads | test | t/s |\n", true},
		{"|                          model |       size |     params | backend    | threads |          test |                  t/s |\n", true},
		{`{"build_commit": "c392e509", "avg_ts": 18930.3}`, true},
		{"build_commit,avg_ts\nc392e509,18930.3\n", true},
		{"llama_print_timings:        eval time = 24513.59 ms /   399 runs\n", false},
		{"| test | ms |\n", false},
	} {
		if got := LooksLikeBench([]byte(tt.text)); got != tt.want {
			t.Errorf("LooksLikeBench(%q) = %v; want %v", tt.text, got, tt.want)
		}
	}
}
