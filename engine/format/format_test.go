package format

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/metric"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
	"github.com/strataspec/strataspec/engine/unit"
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

// TestBuiltinNames: the built-ins are listed once, in recognition order,
// and a spec file may not take their names for its own formats.
func TestBuiltinNames(t *testing.T) {
	want := []string{Strata, Perplexity, Server, Bench, LlamaCpp, RouteParity, SelfTest}
	if got := Builtins(); !slices.Equal(got, want) {
		t.Errorf("Builtins() = %v; want %v", got, want)
	}
	r := registry(t, `{"mine": {"wrap": "strata"}}`)
	if got := r.Builtins(); !slices.Equal(got, want) {
		t.Errorf("FromSpec(mine).Builtins() = %v; want %v", got, want)
	}
	spec, err := checkout.Parse(checkout.File, []byte(`{"formats": {"strata": {"wrap": "llama.cpp"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.CheckFormats(Builtins()); err == nil || !strings.Contains(err.Error(), "built-in") {
		t.Errorf("CheckFormats(a format named strata) = %v; want a built-in name refused", err)
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

// TestNormalize: a declared format that reads a vocabulary metric in
// another unit of its dimension yields it in the vocabulary's unit, its
// printed precision moved with the decimal point; a metric the vocabulary
// does not name keeps its unit.
func TestNormalize(t *testing.T) {
	r := registry(t, `{"gpu": [
		{"pattern": "^gpu (?P<v>[0-9.,]+) us/tok$", "metrics": {"v": {"name": "t1_gpu_ms_per_tok", "unit": "µs/tok"}}},
		{"pattern": "^fill (?P<v>[0-9.]+) MB/s$", "metrics": {"v": {"name": "fill_gb_s", "unit": "MB/s"}}},
		{"pattern": "^own (?P<v>[0-9.]+) us$", "metrics": {"v": {"name": "own_us", "unit": "µs"}}},
		{"pattern": "^n (?P<v>[0-9]+) tokens$", "metrics": {"v": {"name": "decode_tokens", "unit": "tokens"}}}]}`)
	f, _ := r.Get("gpu")
	ms := f.Parse("x", "gpu 1,234.5 us/tok\nfill 6100 MB/s\nown 250 us\nn 64 tokens\n")
	if got, want := names(ms), "t1_gpu_ms_per_tok=1.2345ms/tok fill_gb_s=6.100GB/s own_us=250µs decode_tokens=64tokens"; got != want {
		t.Errorf("gpu.Parse = %q; want %q", got, want)
	}
	if m, _ := ms.Get("t1_gpu_ms_per_tok"); m.Value() != 1.2345 || m.Num.Decimals != 4 || m.Line != 1 {
		t.Errorf("t1_gpu_ms_per_tok = %v (%d decimals, line %d); want 1.2345 (4, line 1)", m.Value(), m.Num.Decimals, m.Line)
	}
	if len(ms.Errors) != 0 {
		t.Errorf("gpu.Parse errors = %v; want none", ms.Errors)
	}
}

// TestNormalizeErrors: a metric in a unit the table does not hold, or in
// one that does not convert into the vocabulary's, is an error at its line
// and is not kept (a reader that bypasses the spec's checks, as a built-in
// parser could).
func TestNormalizeErrors(t *testing.T) {
	ms := &tail.Metrics{Source: "runs/a.log", List: []tail.Metric{
		{Name: "decode_ms", Num: num.MustParse("3.5"), Unit: "MB", Line: 3},
		{Name: "init_ms", Num: num.MustParse("356.06"), Unit: "msec", Line: 4},
		{Name: "prefill_ms", Num: num.MustParse("2"), Unit: "s", Line: 5},
	}}
	Normalize(ms)
	if got, want := names(ms), "prefill_ms=2,000ms"; got != want {
		t.Errorf("Normalize kept %q; want %q", got, want)
	}
	want := []string{
		`runs/a.log:3: metric decode_ms = 3.5 MB: the vocabulary reads decode_ms in ms: unit: MB (bytes) does not convert to ms (time)`,
		`runs/a.log:4: metric init_ms = 356.06 msec: unit "msec": column 1: unknown unit "msec"`,
	}
	var got []string
	for _, e := range ms.Errors {
		got = append(got, e.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("Normalize errors = %q; want %q", got, want)
	}
}

// TestVocabularyUnits: every unit the vocabulary names is a unit of the
// table, so a metric read in another spelling or scale converts into it.
func TestVocabularyUnits(t *testing.T) {
	for _, d := range metric.Vocabulary() {
		if _, err := unit.Parse(d.Unit); err != nil {
			t.Errorf("metric %s: unit.Parse(%q) = %v; want a unit of the table", d.Name, d.Unit, err)
		}
	}
}

// TestStrataPrintedUnit: the strata log's timing line is read in the unit
// it prints, and the registry's format yields the vocabulary's: the same
// GPU times printed in µs/tok read as they do printed in ms/tok, the
// difference (pure GPU) included; a unit of another dimension, or one the
// unit table does not know, is an error at the line and the metric is not
// kept.
func TestStrataPrintedUnit(t *testing.T) {
	strata, _ := Builtin().Get(Strata)
	read := func(timing string) *tail.Metrics { return strata.Parse("x", "init: 347.12 ms\n"+timing+"\n") }
	gpu := func(ms *tail.Metrics) string {
		var out []string
		for _, m := range ms.List {
			if strings.Contains(m.Name, "_per_tok") {
				out = append(out, fmt.Sprintf("%s=%g%s@%d", m.Name, m.Value(), m.Unit, m.Line))
			}
		}
		return strings.Join(out, " ")
	}
	want := gpu(read("timing: host wait 24.830 ms/tok, T1 GPU 103.870 ms/tok"))
	if w := "host_wait_ms_per_tok=24.83ms/tok@2 t1_gpu_ms_per_tok=103.87ms/tok@2 pure_gpu_ms_per_tok=79.04ms/tok@2"; want != w {
		t.Fatalf("ms/tok timing line read as %q; want %q", want, w)
	}
	for _, line := range []string{
		"timing: host wait 24830 µs/tok, T1 GPU 103870 µs/tok",
		"timing: host wait 24830 us/tok, T1 GPU 103.870 ms/tok",
		"timing: host wait 0.024830 s/tok, T1 GPU 103870 µs/tok",
	} {
		if got := gpu(read(line)); got != want {
			t.Errorf("%q read as %q; want %q", line, got, want)
		}
	}
	printed := strata.ParseAsPrinted("x", "init: 347.12 ms\ntiming: host wait 24830 µs/tok, T1 GPU 103870 µs/tok\n")
	if got, want := gpu(printed), "host_wait_ms_per_tok=24830µs/tok@2 t1_gpu_ms_per_tok=103870µs/tok@2 pure_gpu_ms_per_tok=79040µs/tok@2"; got != want {
		t.Errorf("ParseAsPrinted read %q; want the units as printed, %q", got, want)
	}
	for _, tt := range []struct{ line, err string }{
		{"timing: host wait 24.83 MB/tok, T1 GPU 103.870 ms/tok", "x:2: metric host_wait_ms_per_tok = 24.83 MB/tok: the vocabulary reads host_wait_ms_per_tok in ms/tok"},
		{"timing: host wait 24.83 ms/tok, T1 GPU 103.870 jiffies/tok", `x:2: metric t1_gpu_ms_per_tok = 103.870 jiffies/tok: unit "jiffies/tok"`},
	} {
		ms := read(tt.line)
		found := false
		for _, e := range ms.Errors {
			found = found || strings.HasPrefix(e.Error(), tt.err)
		}
		if !found {
			t.Errorf("%q: errors %v; want one starting %q", tt.line, ms.Errors, tt.err)
		}
		if g := gpu(ms); strings.Contains(g, "pure_gpu") {
			t.Errorf("%q: read %q; want no pure GPU time from a time it could not read", tt.line, g)
		}
	}
}
