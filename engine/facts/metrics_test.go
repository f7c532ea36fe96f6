package facts

import (
	"os"
	"path/filepath"

	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/format"
)

// TestParseRunDeclaredFormat: a run of a program the spec maps to a
// declared format is read with the format's patterns.
func TestParseRunDeclaredFormat(t *testing.T) {
	s, err := checkout.Parse(checkout.File, []byte(`{"programs": [{"match": "eng", "parser": "eng"}],
"formats": {"eng": [{"pattern": "^decode: (?P<n>[0-9]+) tok in (?P<ms>[0-9.,]+) ms$",
  "metrics": {"n": {"name": "decode_tokens"}, "ms": {"name": "decode_ms", "unit": "ms"}}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	parser, _ := format.FromSpec(s).Program("./eng")
	r := &archive.Run{Name: "r", Source: "t", Cmd: []string{"./eng"}, Parser: parser, Tail: "hello\ndecode: 64 tok in 6,729.76 ms\n"}
	ms := ParseRun(s, r)
	if len(ms.Errors) > 0 {
		t.Fatalf("ParseRun: errors %v", ms.Errors)
	}
	got, ok := ms.Get("decode_ms")
	if !ok || got.Value() != 6729.76 || got.Unit != "ms" || got.Line != 2 {
		t.Errorf("ParseRun(decode line).Get(decode_ms) = %+v, %v; want 6729.76 ms at line 2", got, ok)
	}
}

// TestRecordFieldMetrics: a record field the spec maps to a metric is a
// metric of the run, under its vocabulary name, as written.
func TestRecordFieldMetrics(t *testing.T) {
	dir := t.TempDir()
	spec := `{"results": [{"file": "runs.jsonl", "fields": {"name": "id", "argv": "argv", "tail": "log",
  "metrics": {"vm.swapout_mib": {"name": "swapout_mib", "unit": "MiB"}, "vm.min_avail_gib": {"name": "min_avail_gib", "unit": "GiB"}}}}]}`
	runs := `{"id": "a", "argv": ["x"], "log": "", "vm": {"swapout_mib": 0.0, "min_avail_gib": 3.21}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "strataspec.json"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(runs), 0o644); err != nil {
		t.Fatal(err)
	}
	snap, err := archive.Load(dir, format.For)
	if err != nil {
		t.Fatal(err)
	}
	ms := ParseRun(snap.Spec, snap.Run("a"))
	for name, want := range map[string]string{"swapout_mib": "0.0 MiB", "min_avail_gib": "3.21 GiB"} {
		m, ok := ms.Get(name)
		if got := m.Num.Text + " " + m.Unit; !ok || got != want {
			t.Errorf("ParseRun(a).Get(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}
