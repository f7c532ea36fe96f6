package checkout

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/strataspec/strataspec/engine/metric"
	"github.com/strataspec/strataspec/engine/snapfs"

	"github.com/strataspec/strataspec/engine/names"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, data string
		line       int
		msg        string
	}{
		{"unknown key", "{\n  \"plan\": \"P.md\",\n  \"planz\": 1\n}", 3, `unknown key "planz"`},
		{"wrong type", "{\n  \"logs\": \"runs/*.log\"\n}", 2, "want"},
		{"syntax", "{\n  \"plan\": \"P.md\",,\n}", 2, "syntax"},
		{"truncated", "{\n  \"plan\": ", 2, "end of JSON"},
		{"absolute path", "{\n  \"plan\": \"/etc/passwd\"\n}", 2, "relative"},
		{"climbing path", "{\n\"results\": [{\"file\": \"../x.json\"}]\n}", 2, "relative"},
		{"unknown parser", "{\n\"programs\": [\n{\"match\": \"x\", \"parser\": \"nope\"}]}", 3, `unknown parser "nope"`},
		{"bad regexp", "{\"formats\": {\"f\": [\n{\"pattern\": \"(\", \"metrics\": {}}]}}", 2, "bad pattern"},
		{"pattern without group", "{\"formats\": {\"f\": [\n{\"pattern\": \"x\", \"metrics\": {\"g\": {\"name\": \"m\"}}}]}}", 2, `no group named "g"`},
		{"trailing data", "{}\n{}", 2, "unexpected data"},
		{"source language", "{\"sources\": [\n{\"glob\": \"src/**\", \"language\": \"cobol\"}]}", 2, `unknown language "cobol"`},
		{"source outside", "{\"sources\": [\n{\"glob\": \"../src/**\"}]}", 2, "relative path inside the checkout"},
		{"unknown unit", "{\"formats\": {\"f\": [{\"pattern\": \"(?P<v>.*)\",\n\"metrics\": {\"v\": {\"name\": \"decode_ms\", \"unit\": \"msec\"}}}]}}", 2, `formats.f[0].metrics.v.unit: unit "msec": column 1: unknown unit "msec"`},
		{"unit of another dimension", "{\"formats\": {\"f\": [{\"pattern\": \"(?P<v>.*)\",\n\"metrics\": {\"v\": {\"name\": \"decode_ms\", \"unit\": \"MB\"}}}]}}", 2, "the vocabulary reads decode_ms in ms"},
		{"renamed unit", "{\"formats\": {\"g\": {\"wrap\": \"strata\",\n\"metrics\": {\"x\": {\"name\": \"x\", \"unit\": \"gb\"}}}}}", 2, "case-sensitive: GB"},
		{"record field unit", "{\"results\": [{\"file\": \"r.json\", \"fields\": {\"metrics\":\n{\"vm.swap\": {\"name\": \"swapout_mib\", \"unit\": \"ms\"}}}}]}", 2, "results[0].fields.metrics.vm.swap.unit"},
	}
	for _, tt := range tests {
		s, err := Parse("strataspec.json", []byte(tt.data))
		if err == nil {
			err = s.CheckUnits(metric.CheckUnit) // as the loader does after Parse
		}
		var e *Error
		if !assert.ErrorAs(t, err, &e, "Parse(%s)", tt.name) {
			continue
		}
		if e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("Parse(%s) = %v; want line %d and a message containing %q", tt.name, err, tt.line, tt.msg)
		}
	}
}

func TestParserFor(t *testing.T) {
	s, err := Parse(File, []byte(`{"programs": [{"match": "my-engine*", "parser": "strata"}, {"match": "main", "parser": "strata"}]}`))
	require.NoError(t, err)
	d := Default()
	tests := []struct {
		spec  *Spec
		argv0 string
		want  string
	}{
		{d, "./main", ParserLlamaCpp},
		{d, "/opt/llama.cpp/build/bin/llama-cli", ParserLlamaCpp},
		{d, `C:\llama\llama-bench.exe`, ParserBench},
		{d, "perplexity", ParserPerplexity},
		{d, "./server", ParserServer},
		{d, "llama-server", ParserServer},
		{d, "llama-completion", ParserLlamaCpp},
		{d, "build/strata_window_cli", ParserStrata},
		{d, "python3", ""},
		{s, "./main", ParserStrata}, // a spec's programs come first
		{s, "bin/my-engine-v2", ParserStrata},
	}
	for _, tt := range tests {
		got, _ := tt.spec.ParserFor(tt.argv0)
		if got != tt.want {
			t.Errorf("ParserFor(%q) = %q; want %q", tt.argv0, got, tt.want)
		}
	}
}

func TestRuleSettingsStrict(t *testing.T) {
	s, err := Parse(File, []byte("{\n\"rules\": {\n\"parity\": {\"tolerance\": 1e-6, \"typo\": 1}}}"))
	require.NoError(t, err)
	var cfg struct {
		Tolerance float64 `json:"tolerance"`
	}
	found, err := s.Rule("parity", &cfg)
	assert.True(t, found)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 3, e.Line, "the error names the rule's line")
	assert.Contains(t, e.Msg, "typo")
	found, err = s.Rule("arena", &cfg)
	assert.False(t, found)
	assert.NoError(t, err)
}

func TestID(t *testing.T) {
	s, err := Parse(File, []byte(`{"ids": {"compare.unlike": "F16", "compare.unlike/threads": "F17"}}`))
	require.NoError(t, err)
	for _, tt := range []struct{ rule, check, want string }{
		{"compare.unlike", "threads", "F17"},
		{"compare.unlike", "binary", "F16"},
		{"compare.unlike", "", "F16"},
		{"plan.range", "", ""},
	} {
		if got := s.ID(tt.rule, tt.check); got != tt.want {
			t.Errorf("ID(%q, %q) = %q; want %q", tt.rule, tt.check, got, tt.want)
		}
	}
}

func TestDeclaredFormat(t *testing.T) {
	s, err := Parse(File, []byte(`{"programs": [{"match": "eng", "parser": "eng"}],
"formats": {"eng": [{"pattern": "^decode: (?P<n>[0-9]+) tok in (?P<ms>[0-9.,]+) ms$",
  "metrics": {"n": {"name": "decode_tokens"}, "ms": {"name": "decode_ms", "unit": "ms"}}}]}}`))
	require.NoError(t, err)
	p, _ := s.ParserFor("./eng")
	require.Equal(t, "eng", p)
	pats := s.Patterns(p)
	require.Len(t, pats, 1)
	assert.True(t, pats[0].Re.MatchString("decode: 64 tok in 6,729.76 ms"))
	assert.Equal(t, map[string]MetricSpec{"n": {Name: "decode_tokens"}, "ms": {Name: "decode_ms", Unit: "ms"}}, pats[0].Groups)
	// facts.ParseRun reads a log with these patterns (engine/facts)
}

func TestGuess(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	write("runs/a.log", "llama_perf_context_print: load time = 1.00 ms\n")
	write("runs/a.json", `{"cmd": ["llama-cli"]}`)
	write("results/all.json", `{"meta": {"v": 1}, "results": {"list": [{"label": "x", "command": "llama-cli -m m.gguf", "stdout": "", "elapsed": 3}]}}`)
	write("bench/b.json", `[{"model_type": "llama 7B", "avg_ts": 10.5}]`)
	fsys, err := snapfs.Open(dir)
	require.NoError(t, err)
	defer fsys.Close()
	s, said, err := Guess(fsys)
	require.NoError(t, err)
	assert.Equal(t, []Logs{{Glob: "runs/*.log"}}, s.Logs)
	assert.Equal(t, []string{"bench/b.json"}, s.Bench)
	require.Len(t, s.Results, 1)
	r := s.Results[0]
	assert.Equal(t, "results.list", r.Runs)
	assert.Equal(t, Fields{Name: "label", Argv: "command", Duration: "elapsed", Tail: "stdout"}, r.Fields)
	assert.NotEmpty(t, said)
	b, err := s.Marshal()
	require.NoError(t, err)
	_, err = Parse(File, b)
	assert.NoError(t, err, "the guess parses back:\n%s", b)
}

func TestCheckNames(t *testing.T) {
	known := []string{"parity", "cache", "plan.range"}
	tests := []struct {
		spec string
		line int
		msg  string
	}{
		{`{"rules": {"parity": {}, "_arena": {"x": 1}}, "ids": {"plan.range": "F13", "cache/evict": "F26"}}`, 0, ""},
		{"{\"rules\": {\n\"parity\": {},\n\"parityy\": {}}}", 3, `rules.parityy: no rule or rule family has this name; did you mean "parity"?`},
		{"{\"ids\": {\n\"plan.rnage\": \"F13\"}}", 2, `"plan.rnage" names no rule; did you mean "plan.range"?`},
		{"{\"rules\": {\"zzzzzzzz\": {}}}", 1, `rules.zzzzzzzz: no rule or rule family has this name`},
	}
	for _, tt := range tests {
		s, err := Parse(File, []byte(tt.spec))
		require.NoError(t, err)
		err = s.CheckNames(known, names.DidYouMean)
		if tt.msg == "" {
			assert.NoError(t, err, "CheckNames(%s)", tt.spec)
			continue
		}
		var e *Error
		if !assert.ErrorAs(t, err, &e, "CheckNames(%s)", tt.spec) {
			continue
		}
		if e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("CheckNames(%q) = %v; want line %d and %q", tt.spec, err, tt.line, tt.msg)
		}
	}
}

// TestSpecDuplicatesAndDefaults: a duplicate key is an error (it was last
// one wins); a key the file leaves out keeps its default, an empty list
// says there is none (found in review: any spec file dropped the default
// logs and bench globs).
func TestSpecDuplicatesAndDefaults(t *testing.T) {
	_, err := Parse(File, []byte("{\"logs\": [{\"glob\": \"runs/*.log\"}],\n\"logs\": []}"))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 2, e.Line)
	assert.Contains(t, e.Msg, "duplicate key")

	s, err := Parse(File, []byte(`{"programs": [{"match": "x", "parser": "llama.cpp"}]}`))
	require.NoError(t, err)
	assert.Equal(t, Default().Logs, s.Logs, "logs default when the file leaves them out")
	assert.Equal(t, Default().Bench, s.Bench)
	assert.False(t, s.Declared("logs"))
	s, err = Parse(File, []byte(`{"logs": [], "plan": "docs/PLAN.md"}`))
	require.NoError(t, err)
	assert.Empty(t, s.Logs, "an empty list says there are no logs")
	assert.True(t, s.Declared("logs"))
	assert.True(t, s.Declared("plan"))
	assert.False(t, s.Declared("claims"))
}

// TestRecordFormats: a record kind is a glob or {glob, format}; the format
// must be known; a declared format wrapping strata counts as strata's.
func TestRecordFormats(t *testing.T) {
	s, err := Parse(File, []byte(`{"records": {"parity": {"glob": "rp/*.txt", "format": "rp"}, "selftest": "self.log"},
"formats": {"rp": {"wrap": "route_parity", "blocks": "^# cmd:"}, "g": {"wrap": "strata", "prefix": "^I[^\\]]*\\] "}, "h": {"wrap": "g"}}}`))
	require.NoError(t, err)
	assert.Equal(t, Record{Glob: "rp/*.txt", Format: "rp"}, s.Records["parity"])
	assert.Equal(t, Record{Glob: "self.log"}, s.Records["selftest"])
	assert.True(t, s.Wraps("h", ParserStrata), "h wraps g wraps strata")
	assert.False(t, s.Wraps("rp", ParserStrata), "rp wraps route_parity")
	assert.NotNil(t, s.BlockStart("rp"))
	assert.NotNil(t, s.Prefix("g"))
}

func TestFormatErrors(t *testing.T) {
	tests := []struct{ name, spec, want string }{
		{"built-in name", `{"formats": {"strata": {"wrap": "llama.cpp"}}}`, "built-in"},
		{"unknown wrap", `{"formats": {"x": {"wrap": "nope"}}}`, "which is no format"},
		{"cycle", `{"formats": {"a": {"wrap": "b"}, "b": {"wrap": "a"}}}`, "cycle"},
		{"both", `{"formats": {"a": {"wrap": "strata", "patterns": [{"pattern": "(?P<g>1)", "metrics": {"g": {"name": "n"}}}]}}}`, "exclude"},
		{"neither", `{"formats": {"a": {"prefix": "x"}}}`, `needs "patterns" or "wrap"`},
		{"bad prefix", `{"formats": {"a": {"wrap": "strata", "prefix": "("}}}`, "bad prefix"},
		{"rename patterns", `{"formats": {"a": {"patterns": [{"pattern": "(?P<g>1)", "metrics": {"g": {"name": "n"}}}], "metrics": {"n": {"name": "m"}}}}}`, "renames a wrapped"},
		{"unknown key", `{"formats": {"a": {"wrap": "strata", "prefixes": "x"}}}`, `unknown key "prefixes"; did you mean "prefix"?`},
		{"record format", `{"records": {"parity": {"glob": "rp/*", "format": "nope"}}}`, `unknown format "nope"`},
		{"record key", `{"records": {"parity": {"glob": "rp/*", "fmt": "x"}}}`, `unknown key "fmt"`},
	}
	for _, tt := range tests {
		_, err := Parse(File, []byte(tt.spec))
		if e, ok := errors.AsType[*Error](err); ok && e.Unknown != "" {
			e.Suggest = names.DidYouMean(e.Unknown, e.Known) // as audit.Load does
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse(%s) = %v; want an error containing %q", tt.name, tt.spec, err, tt.want)
		}
	}
}

func TestMachineMap(t *testing.T) {
	s, err := Parse(File, []byte(`{"machine": {"/tmp": "host_tmp", "/": "machine", "/tmp/deep": "deep"}}`))
	require.NoError(t, err)
	tests := []struct{ abs, dir, rest string }{
		{"/tmp/x.txt", "host_tmp", "/x.txt"},
		{"/tmp", "host_tmp", "/"},
		{"/tmpfoo/x", "machine", "/tmpfoo/x"}, // a prefix is a whole path element
		{"/tmp/deep/y", "deep", "/y"},         // the longest prefix wins
		{"/etc/hosts", "machine", "/etc/hosts"},
	}
	for _, tt := range tests {
		dir, rest, ok := s.Machine.Map(tt.abs)
		if !ok || dir != tt.dir || rest != tt.rest {
			t.Errorf("Map(%q) = %q, %q, %v; want %q, %q", tt.abs, dir, rest, ok, tt.dir, tt.rest)
		}
	}
	one, err := Parse(File, []byte(`{"machine": "machine"}`))
	require.NoError(t, err)
	if dir, rest, ok := one.Machine.Map("/tmp/x"); !ok || dir != "machine" || rest != "/tmp/x" {
		t.Errorf("one folder: Map(/tmp/x) = %q, %q, %v; want machine, /tmp/x", dir, rest, ok)
	}
	only, err := Parse(File, []byte(`{"machine": {"/tmp": "host_tmp"}}`))
	require.NoError(t, err)
	if _, _, ok := only.Machine.Map("/etc/x"); ok {
		t.Error("Map(/etc/x) with only /tmp mapped: ok; want outside the snapshot")
	}
	for _, bad := range []string{`{"machine": {"tmp": "x"}}`, `{"machine": {"/tmp": "../x"}}`} {
		if _, err := Parse(File, []byte(bad)); err == nil {
			t.Errorf("Parse(%s) = nil error; want one", bad)
		}
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
