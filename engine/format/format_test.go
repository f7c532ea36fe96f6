package format

import (
	"slices"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/tail"
)

const glogPrefix = `^[IWEF]\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d+ +\\d+ [^\\]]+\\] `

// glog prefixes every line of text as glog does.
func glog(text string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" {
			b.WriteString("I1015 08:01:20.866027 4127803 main.cc:131] " + l)
		}
	}
	return b.String()
}

func names(ms *tail.Metrics) string {
	var out []string
	for _, m := range ms.List {
		out = append(out, m.Name+"="+m.Num.Text+m.Unit)
	}
	return strings.Join(out, " ")
}

// registry builds the registry of a spec file's formats.
func registry(t *testing.T, formats string) *Registry {
	t.Helper()
	spec, err := checkout.Parse(checkout.File, []byte(`{"formats": `+formats+`}`))
	if err != nil {
		t.Fatal(err)
	}
	return FromSpec(spec)
}

// TestBuiltinNames: checkout's list of built-in names (which it checks a
// spec file against without importing a parser) is this registry's.
func TestBuiltinNames(t *testing.T) {
	if got, want := checkout.BuiltinFormats(), Builtins(); !slices.Equal(got, want) {
		t.Errorf("checkout.BuiltinFormats() = %v; want %v", got, want)
	}
}

// TestWrapStripsPrefix: a declared format wrapping strata reads a
// glog-prefixed log as strata reads the plain one, line for line.
func TestWrapStripsPrefix(t *testing.T) {
	plain := "init: 356.06 ms\ndecode: 64 tok in 6729.76 ms (9.51 tok/s)\n[runner] min_avail 3.21 GiB\n"
	r := registry(t, `{"glog_strata": {"wrap": "strata", "prefix": "`+glogPrefix+`"}}`)
	f, _ := r.Get("glog_strata")
	strata, _ := r.Get(Strata)
	got, want := f.Parse("x", glog(plain)), strata.Parse("x", plain)
	if names(got) != names(want) || len(got.List) == 0 {
		t.Errorf("glog_strata.Parse = %s; want %s", names(got), names(want))
	}
	for i := range got.List {
		if got.List[i].Line != want.List[i].Line {
			t.Errorf("metric %s on line %d; want %d", got.List[i].Name, got.List[i].Line, want.List[i].Line)
		}
	}
}

// TestRename: a wrapped format's metrics take the names (and units) the
// declaration maps them to, through two wrappings.
func TestRename(t *testing.T) {
	r := registry(t, `{
		"base":   [{"pattern": "^gpu (?P<v>[0-9.]+) us/tok$", "metrics": {"v": {"name": "gpu_us", "unit": "µs/tok"}}}],
		"outer":  {"wrap": "base", "metrics": {"gpu_us": {"name": "t1_gpu_us_per_tok"}}},
		"outer2": {"wrap": "outer", "prefix": "^> "}}`)
	f, _ := r.Get("outer2")
	if got, want := names(f.Parse("x", "> gpu 103870 us/tok\n")), "t1_gpu_us_per_tok=103870µs/tok"; got != want {
		t.Errorf("outer2.Parse = %q; want %q", got, want)
	}
	if f.EchoesPrompt() || !r.byName[LlamaCpp].EchoesPrompt() {
		t.Error("EchoesPrompt: want llama.cpp's true and a pattern format's false")
	}
}
