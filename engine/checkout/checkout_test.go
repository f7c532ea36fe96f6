package checkout

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/metric"
	"github.com/strataspec/strataspec/engine/names"
	"github.com/strataspec/strataspec/engine/snapfs"
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
			err = s.CheckFormats(testBuiltins) // as the loader does after Parse
		}
		if err == nil {
			err = s.CheckUnits(metric.CheckUnit)
		}
		var e *Error
		if !errors.As(err, &e) || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("Parse(%s) = %v; want an *Error at line %d with a message containing %q", tt.name, err, tt.line, tt.msg)
		}
	}
}

// mustParse parses a spec file's text, stopping the test on an error.
func mustParse(t *testing.T, data string) *Spec {
	t.Helper()
	s, err := Parse(File, []byte(data))
	if err != nil {
		t.Fatalf("Parse(%q): %v", data, err)
	}
	return s
}

// testBuiltins stands in for engine/format's built-in names (its tests
// check a spec against the registry's own).
var testBuiltins = []string{"strata", "llama.cpp", "route_parity"}

func TestRuleSettingsStrict(t *testing.T) {
	s := mustParse(t, "{\n\"rules\": {\n\"parity\": {\"tolerance\": 1e-6, \"typo\": 1}}}")
	var cfg struct {
		Tolerance float64 `json:"tolerance"`
	}
	found, err := s.Rule("parity", &cfg)
	var e *Error
	if !found || !errors.As(err, &e) || e.Line != 3 || !strings.Contains(e.Msg, "typo") {
		t.Errorf("Rule(parity) with an unknown key = %v, %v; want true and an *Error at the rule's line 3 naming \"typo\"", found, err)
	}
	if found, err := s.Rule("arena", &cfg); found || err != nil {
		t.Errorf("Rule(arena) not in the file = %v, %v; want false, nil", found, err)
	}
}

func TestID(t *testing.T) {
	s := mustParse(t, `{"ids": {"compare.unlike": "F16", "compare.unlike/threads": "F17"}}`)
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
	s := mustParse(t, `{"programs": [{"match": "eng", "parser": "eng"}],
"formats": {"eng": [{"pattern": "^decode: (?P<n>[0-9]+) tok in (?P<ms>[0-9.,]+) ms$",
  "metrics": {"n": {"name": "decode_tokens"}, "ms": {"name": "decode_ms", "unit": "ms"}}}]}}`)
	pats := s.Patterns("eng")
	if len(pats) != 1 {
		t.Fatalf("Patterns(eng) = %d patterns; want 1", len(pats))
	}
	if line := "decode: 64 tok in 6,729.76 ms"; !pats[0].Re.MatchString(line) {
		t.Errorf("Patterns(eng)[0] = %s; does not match %q", pats[0].Re, line)
	}
	want := map[string]MetricSpec{"n": {Name: "decode_tokens"}, "ms": {Name: "decode_ms", Unit: "ms"}}
	if diff := cmp.Diff(want, pats[0].Groups); diff != "" {
		t.Errorf("Patterns(eng)[0].Groups mismatch (-want +got):\n%s", diff)
	}
	// facts.ParseRun reads a log with these patterns (engine/facts)
}

func TestGuess(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("runs/a.log", "llama_perf_context_print: load time = 1.00 ms\n")
	write("runs/a.json", `{"cmd": ["llama-cli"]}`)
	write("results/all.json", `{"meta": {"v": 1}, "results": {"list": [{"label": "x", "command": "llama-cli -m m.gguf", "stdout": "", "elapsed": 3}]}}`)
	write("bench/b.json", `[{"model_type": "llama 7B", "avg_ts": 10.5}]`)
	fsys, err := snapfs.Open(dir)
	if err != nil {
		t.Fatalf("snapfs.Open: %v", err)
	}
	defer fsys.Close()
	s, said, err := Guess(fsys, func(b []byte) bool { return bytes.Contains(b, []byte("avg_ts")) })
	if err != nil {
		t.Fatalf("Guess: %v", err)
	}
	if diff := cmp.Diff([]Logs{{Glob: "runs/*.log"}}, s.Logs); diff != "" {
		t.Errorf("Guess().Logs mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"bench/b.json"}, s.Bench); diff != "" {
		t.Errorf("Guess().Bench mismatch (-want +got):\n%s", diff)
	}
	if len(s.Results) != 1 {
		t.Fatalf("Guess().Results = %+v; want one results file", s.Results)
	}
	r := s.Results[0]
	if r.Runs != "results.list" {
		t.Errorf("Guess().Results[0].Runs = %q; want results.list", r.Runs)
	}
	if diff := cmp.Diff(Fields{Name: "label", Argv: "command", Duration: "elapsed", Tail: "stdout"}, r.Fields); diff != "" {
		t.Errorf("Guess().Results[0].Fields mismatch (-want +got):\n%s", diff)
	}
	// Each guess is said, naming what it read.
	for _, what := range []string{"runs/*.log:", "bench/b.json:", "results/all.json"} {
		if !slices.ContainsFunc(said, func(l string) bool { return strings.HasPrefix(l, what) }) {
			t.Errorf("Guess() said %q; want a line starting %q", said, what)
		}
	}
	// Runs kept as an object keyed by run name are placed too.
	write("results/all.json", `{"meta": {"v": 1}, "runs": {"decode": {"argv": ["llama-cli"], "stdout": "x"}, "prefill": {"argv": ["llama-cli"], "stdout": "y"}}}`)
	// A table whose rows name their run, with no command or output, is none.
	write("results/tables.json", `{"summary": {"speed": [{"run": "decode", "decode_tok_s": 9.51}]}}`)
	if s, _, err = Guess(fsys, func([]byte) bool { return false }); err != nil {
		t.Fatalf("Guess: %v", err)
	}
	if len(s.Results) != 1 || s.Results[0].Runs != "runs" || s.Results[0].Fields.Argv != "argv" || s.Results[0].Fields.Name != "" {
		t.Errorf("Guess(runs keyed by name).Results = %+v; want runs at \"runs\", argv mapped, the name left to the keys", s.Results)
	}
	b, err := s.Marshal()
	if err != nil {
		t.Fatalf("Marshal(guess): %v", err)
	}
	if _, err := Parse(File, b); err != nil {
		t.Errorf("Parse(Marshal(guess)) = %v; want the guess to parse back:\n%s", err, b)
	}
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
		err := mustParse(t, tt.spec).CheckNames(known, names.DidYouMean)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("CheckNames(%s) = %v; want nil", tt.spec, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("CheckNames(%q) = %v; want an *Error at line %d with %q", tt.spec, err, tt.line, tt.msg)
		}
	}
}

// TestSpecDuplicatesAndDefaults: a duplicate key is an error (it was last
// one wins); a key the file leaves out keeps its default, an empty list
// says there is none (found in review: any spec file dropped the default
// logs and bench globs).
func TestSpecDuplicatesAndDefaults(t *testing.T) {
	dup := "{\"logs\": [{\"glob\": \"runs/*.log\"}],\n\"logs\": []}"
	_, err := Parse(File, []byte(dup))
	if e, ok := errors.AsType[*Error](err); !ok || e.Line != 2 || !strings.Contains(e.Msg, "duplicate key") {
		t.Errorf("Parse(%q) = %v; want an *Error at line 2 naming a duplicate key", dup, err)
	}

	s := mustParse(t, `{"programs": [{"match": "x", "parser": "llama.cpp"}]}`)
	if len(Default().Logs) == 0 || len(Default().Bench) == 0 {
		t.Fatalf("Default() = logs %v, bench %v; want both set, or the next checks prove nothing", Default().Logs, Default().Bench)
	}
	if diff := cmp.Diff(Default().Logs, s.Logs); diff != "" {
		t.Errorf("Logs of a file that leaves them out mismatch the default (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Default().Bench, s.Bench); diff != "" {
		t.Errorf("Bench of a file that leaves it out mismatch the default (-want +got):\n%s", diff)
	}
	if s.Declared("logs") {
		t.Error("Declared(logs) = true for a file without logs; want false")
	}
	s = mustParse(t, `{"logs": [], "plan": "docs/PLAN.md"}`)
	if len(s.Logs) != 0 {
		t.Errorf("Logs of \"logs\": [] = %v; want none: an empty list says there are no logs", s.Logs)
	}
	for key, want := range map[string]bool{"logs": true, "plan": true, "claims": false} {
		if got := s.Declared(key); got != want {
			t.Errorf("Declared(%q) = %v; want %v", key, got, want)
		}
	}
}

// TestRecordFormats: a record kind is a glob or {glob, format}; the format
// must be known; a declared format wrapping strata counts as strata's.
func TestRecordFormats(t *testing.T) {
	s := mustParse(t, `{"records": {"parity": {"glob": "rp/*.txt", "format": "rp"}, "selftest": "self.log"},
"formats": {"rp": {"wrap": "route_parity", "blocks": "^# cmd:"}, "g": {"wrap": "strata", "prefix": "^I[^\\]]*\\] "}, "h": {"wrap": "g"}}}`)
	want := map[string]Record{"parity": {Glob: "rp/*.txt", Format: "rp"}, "selftest": {Glob: "self.log"}}
	if diff := cmp.Diff(want, s.Records); diff != "" {
		t.Errorf("Records mismatch (-want +got):\n%s", diff)
	}
	if err := s.CheckFormats(testBuiltins); err != nil {
		t.Errorf("CheckFormats = %v; want the wrapped formats known", err)
	}
	for _, tt := range []struct {
		name string
		re   *regexp.Regexp
		line string
	}{
		{"BlockStart(rp)", s.BlockStart("rp"), "# cmd: build/route_parity"},
		{"Prefix(g)", s.Prefix("g"), "I1202 04:40:00.000 main.cc:12] decode"},
	} {
		if tt.re == nil || !tt.re.MatchString(tt.line) {
			t.Errorf("%s = %v; want a pattern matching %q", tt.name, tt.re, tt.line)
		}
	}
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
		s, err := Parse(File, []byte(tt.spec))
		if err == nil {
			err = s.CheckFormats(testBuiltins)
		}
		if e, ok := errors.AsType[*Error](err); ok && e.Unknown != "" {
			e.Suggest = names.DidYouMean(e.Unknown, e.Known) // as audit.Load does
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse(%s) = %v; want an error containing %q", tt.name, tt.spec, err, tt.want)
		}
	}
}

func TestMachineMap(t *testing.T) {
	s := mustParse(t, `{"machine": {"/tmp": "host_tmp", "/": "machine", "/tmp/deep": "deep"}}`)
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
	one := mustParse(t, `{"machine": "machine"}`)
	if dir, rest, ok := one.Machine.Map("/tmp/x"); !ok || dir != "machine" || rest != "/tmp/x" {
		t.Errorf("one folder: Map(/tmp/x) = %q, %q, %v; want machine, /tmp/x", dir, rest, ok)
	}
	only := mustParse(t, `{"machine": {"/tmp": "host_tmp"}}`)
	if _, _, ok := only.Machine.Map("/etc/x"); ok {
		t.Error("Map(/etc/x) with only /tmp mapped: ok; want outside the snapshot")
	}
	for _, bad := range []string{`{"machine": {"tmp": "x"}}`, `{"machine": {"/tmp": "../x"}}`} {
		if _, err := Parse(File, []byte(bad)); err == nil {
			t.Errorf("Parse(%s) = nil error; want one", bad)
		}
	}
}
