package archive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/snapfs"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, s := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	return dir
}

// A folder of logs is a snapshot: one run per log, a sidecar for argv and
// the rest, llama-bench files as runs, no spec file needed.
func TestLoadFolderOfLogs(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"runs/cli.log":       "llama_perf_context_print: eval time = 10.00 ms / 5 runs\n",
		"runs/cli.json":      `{"cmd": "./main -m 'my model.gguf' -n 64", "exit_code": 0, "duration_s": 3.5, "start": "2024-09-10T10:00:00Z", "host": "mac"}`,
		"runs/bare.log":      "llama_print_timings: eval time = 1.00 ms\n",
		"runs/pp.bench.json": `[{"avg_ts": 1.0}]`,
		"runs/notes.txt":     "not a run",
	})
	s, err := Load(dir)
	require.NoError(t, err)
	var names []string
	for _, r := range s.Runs {
		names = append(names, r.Name)
	}
	assert.ElementsMatch(t, []string{"cli", "bare", "pp"}, names)
	cli := s.Run("cli")
	require.NotNil(t, cli)
	assert.Equal(t, []string{"./main", "-m", "my model.gguf", "-n", "64"}, cli.Cmd)
	assert.Equal(t, checkout.ParserLlamaCpp, cli.Parser)
	assert.Equal(t, 3.5, cli.DurationS)
	assert.True(t, cli.HasExit)
	assert.Equal(t, `"mac"`, cli.Extra["host"])
	assert.Equal(t, checkout.ParserLlamaCpp, s.Run("bare").Parser, "a log without argv is recognised by its lines")
	assert.Equal(t, checkout.ParserBench, s.Run("pp").Parser)
	assert.Len(t, s.Notes, 1, "the sidecar's unknown key is noted once: %v", s.Notes)
}

func TestLoadJSONLines(t *testing.T) {
	dir := writeTree(t, map[string]string{
		checkout.File: `{"results": [{"file": "runs.jsonl", "fields": {"name": "id", "argv": "argv", "tail": "out.text"}}]}`,
		"runs.jsonl":  "{\"id\": \"a\", \"argv\": [\"llama-cli\"], \"out\": {\"text\": \"x\"}}\n\n{\"id\": \"b\", \"argv\": [\"llama-cli\"], \"out\": {\"text\": \"y\"}}\n{\"id\": \"a\"}\n",
	})
	_, err := Load(dir)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 4, e.Line, "the duplicate is on line 4: %v", err)
	assert.Contains(t, e.Msg, "duplicate run name")
}

func TestLoadConfined(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.json"), []byte(`{"runs": [{"name": "SECRET-hunter2"}]}`), 0o644))
	dir := writeTree(t, map[string]string{
		checkout.File: `{"results": [{"file": "results/r.json"}]}`,
	})
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "results"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(dir, "results", "r.json")))
	_, err := Load(dir)
	require.Error(t, err)
	assert.True(t, errors.Is(err, snapfs.ErrOutside), "error %v; want ErrOutside", err)
	assert.NotContains(t, err.Error(), "hunter2")
	assert.False(t, strings.Contains(err.Error(), outside), "the error names the outside path: %v", err)
}

// An optional input that is present but leads outside the root is an
// error, never skipped as if absent; so is a spec file linked outside.
func TestLoadOptionalInputsOutside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "s.json")
	require.NoError(t, os.WriteFile(secret, []byte(`{"cmd": ["SECRET-hunter2"]}`), 0o644))
	for _, tc := range []struct{ name, link string }{
		{"sidecar", "runs/a.json"},
		{"spec file", checkout.File},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"runs/a.log": "llama_perf_context_print: load time = 1.00 ms\n"})
			require.NoError(t, os.Symlink(secret, filepath.Join(dir, filepath.FromSlash(tc.link))))
			_, err := Load(dir)
			require.Error(t, err, "a %s linked outside the root must not be skipped", tc.name)
			assert.True(t, errors.Is(err, snapfs.ErrOutside), "error %v; want ErrOutside", err)
			assert.NotContains(t, err.Error(), "hunter2")
		})
	}
}

// A glob the spec file declares that matches nothing is noted: a typo
// must not drop every run silently.
func TestLoadNotesEmptyGlob(t *testing.T) {
	dir := writeTree(t, map[string]string{
		checkout.File: `{"logs": [{"glob": "run/*.log"}]}`,
		"runs/a.log":  "x\n",
	})
	s, err := Load(dir)
	require.NoError(t, err)
	require.Len(t, s.Notes, 1)
	assert.Contains(t, s.Notes[0].String(), "logs: run/*.log matches no file")
}

// Loading is linear in the number of runs: the name index is kept as runs
// are added (it was rebuilt per lookup, quadratic: 20,000 JSON Lines runs
// took 5.6 s).
func BenchmarkLoadJSONLines(b *testing.B) {
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, "{\"name\": \"run%d\", \"cmd\": [\"llama-cli\"], \"output_tail\": \"llama_perf_context_print: load time = 1.00 ms\\n\"}\n", i)
	}
	dir := b.TempDir()
	require.NoError(b, os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(sb.String()), 0o644))
	require.NoError(b, os.WriteFile(filepath.Join(dir, checkout.File), []byte(`{"results": [{"file": "runs.jsonl"}]}`), 0o644))
	b.ResetTimer()
	for range b.N {
		s, err := Load(dir)
		if err != nil || len(s.Runs) != 20000 {
			b.Fatalf("Load = %d runs, %v", len(s.Runs), err)
		}
	}
}

// A log's output is read when asked for (Run.Text), not held by the
// snapshot; TailLine quotes one line of it.
func TestLogTextReadWhenAsked(t *testing.T) {
	dir := writeTree(t, map[string]string{"runs/a.log": "first\r\nsecond\nthird \xff\n"})
	s, err := Load(dir)
	require.NoError(t, err)
	r := s.Run("a")
	require.NotNil(t, r)
	assert.Empty(t, r.Tail, "a log's text is not kept in the snapshot")
	text, err := r.Text()
	require.NoError(t, err)
	assert.Equal(t, "first\r\nsecond\nthird \uFFFD\n", text)
	for n, want := range map[int]string{0: "", 1: "first", 2: "second", 3: "third \uFFFD", 5: ""} {
		if got := r.TailLine(n); got != want {
			t.Errorf("TailLine(%d) = %q; want %q", n, got, want)
		}
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "runs", "a.log")))
	_, err = r.Text()
	assert.Error(t, err, "a log removed after loading is an error, not an empty output")
}

// A plan the spec file declares must be there, and a PLAN.md that is a
// link to nothing is an error, not "no plan" (found in review: both gave
// PASS with the plan rules not applied).
func TestDeclaredPlanMissing(t *testing.T) {
	dir := writeTree(t, map[string]string{
		checkout.File: `{"plan": "PLAM.md"}`,
		"runs/a.log":  "x\n",
	})
	fsys, err := snapfs.Open(dir)
	require.NoError(t, err)
	defer fsys.Close()
	ok, err := fsys.Present("PLAM.md")
	assert.False(t, ok)
	assert.NoError(t, err)
	require.NoError(t, os.Symlink("nowhere.md", filepath.Join(dir, "PLAN.md")))
	_, err = fsys.Present("PLAN.md")
	assert.ErrorContains(t, err, "leads nowhere")
}

// A field path the spec declares that no record has is noted (found in
// review: argv mapped to a missing path gave runs without argv, silently).
func TestDeclaredFieldNoRecordHas(t *testing.T) {
	dir := writeTree(t, map[string]string{
		checkout.File: `{"results": [{"file": "r.json", "fields": {"argv": "command.argv", "exit": "nope"}}]}`,
		"r.json":      `{"runs": [{"name": "a", "command": {"args": ["llama-cli"]}, "output_tail": "x"}]}`,
	})
	s, err := Load(dir)
	require.NoError(t, err)
	var got []string
	for _, n := range s.Notes {
		got = append(got, n.Msg)
	}
	assert.Contains(t, got, `fields.argv: no run record of r.json has "command.argv"`)
	assert.Contains(t, got, `fields.exit: no run record of r.json has "nope"`)
}
