package archive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/snaptest"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, s := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		snaptest.Write(t, p, s)
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
	s, err := Load(dir, fakeFormats)
	if err != nil {
		t.Fatalf("Load(folder of logs): %v", err)
	}
	var names []string
	for _, r := range s.Runs {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"bare", "cli", "pp"}, names); diff != "" {
		t.Errorf("Load(folder of logs) run names mismatch (-want +got):\n%s", diff)
	}
	cli := s.Run("cli")
	if cli == nil {
		t.Fatal("Load(folder of logs).Run(cli) = nil; want the run")
	}
	if diff := cmp.Diff([]string{"./main", "-m", "my model.gguf", "-n", "64"}, cli.Cmd); diff != "" {
		t.Errorf("Run(cli).Cmd mismatch (-want +got):\n%s", diff)
	}
	if cli.Parser != "llama.cpp" || cli.DurationS != 3.5 || !cli.HasExit || cli.Extra["host"] != `"mac"` {
		t.Errorf("Run(cli) = parser %q, duration %v s, has exit %v, host %s; want %q, 3.5 s, true, \"mac\"",
			cli.Parser, cli.DurationS, cli.HasExit, cli.Extra["host"], "llama.cpp")
	}
	for _, tt := range []struct {
		run  string
		want string
	}{
		{"bare", "llama.cpp"}, // a log without argv is recognised by its lines
		{"pp", "llama-bench"},
	} {
		r := s.Run(tt.run)
		if r == nil {
			t.Errorf("Run(%s) = nil; want the run", tt.run)
		} else if r.Parser != tt.want {
			t.Errorf("Run(%s).Parser = %q; want %q", tt.run, r.Parser, tt.want)
		}
	}
	if len(s.Notes) != 1 {
		t.Errorf("Load(folder of logs).Notes = %v; want one: the sidecar's unknown key, noted once", s.Notes)
	}
}

func TestLoadJSONLines(t *testing.T) {
	dir := writeTree(t, map[string]string{
		checkout.File: `{"results": [{"file": "runs.jsonl", "fields": {"name": "id", "argv": "argv", "tail": "out.text"}}]}`,
		"runs.jsonl":  "{\"id\": \"a\", \"argv\": [\"llama-cli\"], \"out\": {\"text\": \"x\"}}\n\n{\"id\": \"b\", \"argv\": [\"llama-cli\"], \"out\": {\"text\": \"y\"}}\n{\"id\": \"a\"}\n",
	})
	_, err := Load(dir, fakeFormats)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Load(JSON Lines with a duplicate) = %v; want an *Error", err)
	}
	if e.Line != 4 || !strings.Contains(e.Msg, "duplicate run name") {
		t.Errorf("Load(JSON Lines with a duplicate) = %v; want line 4 naming a duplicate run name", err)
	}
}

func TestLoadConfined(t *testing.T) {
	outside := t.TempDir()
	snaptest.Write(t, filepath.Join(outside, "secret.json"), `{"runs": [{"name": "SECRET-hunter2"}]}`)
	dir := writeTree(t, map[string]string{
		checkout.File: `{"results": [{"file": "results/r.json"}]}`,
	})
	if err := os.MkdirAll(filepath.Join(dir, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(outside, "secret.json"), filepath.Join(dir, "results", "r.json"))
	_, err := Load(dir, fakeFormats)
	if !errors.Is(err, snapfs.ErrOutside) {
		t.Fatalf("Load(results file linked outside) = %v; want ErrOutside", err)
	}
	if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, outside) {
		t.Errorf("Load(results file linked outside) = %v; want neither the outside file's content nor its path", err)
	}
}

// An optional input that is present but leads outside the root is an
// error, never skipped as if absent; so is a spec file linked outside.
func TestLoadOptionalInputsOutside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "s.json")
	snaptest.Write(t, secret, `{"cmd": ["SECRET-hunter2"]}`)
	for _, tc := range []struct{ name, link string }{
		{"sidecar", "runs/a.json"},
		{"spec file", checkout.File},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"runs/a.log": "llama_perf_context_print: load time = 1.00 ms\n"})
			symlink(t, secret, filepath.Join(dir, filepath.FromSlash(tc.link)))
			_, err := Load(dir, fakeFormats)
			if !errors.Is(err, snapfs.ErrOutside) {
				t.Fatalf("Load(%s linked outside) = %v; want ErrOutside, never skipped", tc.name, err)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Load(%s linked outside) = %v; want no content of the outside file", tc.name, err)
			}
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
	s, err := Load(dir, fakeFormats)
	if err != nil {
		t.Fatalf("Load(glob matching nothing): %v", err)
	}
	if want := "logs: run/*.log matches no file"; len(s.Notes) != 1 || !strings.Contains(s.Notes[0].String(), want) {
		t.Errorf("Load(glob matching nothing).Notes = %v; want one note containing %q", s.Notes, want)
	}
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
	snaptest.Write(b, filepath.Join(dir, "runs.jsonl"), sb.String())
	snaptest.Write(b, filepath.Join(dir, checkout.File), `{"results": [{"file": "runs.jsonl"}]}`)
	b.ResetTimer()
	for range b.N {
		s, err := Load(dir, fakeFormats)
		if err != nil || len(s.Runs) != 20000 {
			b.Fatalf("Load = %d runs, %v", len(s.Runs), err)
		}
	}
}

// A log's output is read when asked for (Run.Text), not held by the
// snapshot; TailLine quotes one line of it.
func TestLogTextReadWhenAsked(t *testing.T) {
	dir := writeTree(t, map[string]string{"runs/a.log": "first\r\nsecond\nthird \xff\n"})
	s, err := Load(dir, fakeFormats)
	if err != nil {
		t.Fatalf("Load(one log): %v", err)
	}
	r := s.Run("a")
	if r == nil {
		t.Fatal("Run(a) = nil; want the log's run")
	}
	if r.Tail != "" {
		t.Errorf("Run(a).Tail = %q; want empty: a log's text is not kept in the snapshot", r.Tail)
	}
	text, err := r.Text()
	if want := "first\r\nsecond\nthird \uFFFD\n"; err != nil || text != want {
		t.Errorf("Run(a).Text() = %q, %v; want %q", text, err, want)
	}
	for n, want := range map[int]string{0: "", 1: "first", 2: "second", 3: "third \uFFFD", 5: ""} {
		if got := r.TailLine(n); got != want {
			t.Errorf("TailLine(%d) = %q; want %q", n, got, want)
		}
	}
	snaptest.Remove(t, filepath.Join(dir, "runs", "a.log"))
	if text, err := r.Text(); err == nil {
		t.Errorf("Run(a).Text() after the log is removed = %q, nil; want an error, not an empty output", text)
	}
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
	if err != nil {
		t.Fatalf("snapfs.Open: %v", err)
	}
	defer fsys.Close()
	if ok, err := fsys.Present("PLAM.md"); ok || err != nil {
		t.Errorf("Present(PLAM.md) = %v, %v; want false, nil", ok, err)
	}
	symlink(t, "nowhere.md", filepath.Join(dir, "PLAN.md"))
	if ok, err := fsys.Present("PLAN.md"); err == nil || !strings.Contains(err.Error(), "leads nowhere") {
		t.Errorf("Present(PLAN.md linked to nothing) = %v, %v; want an error containing \"leads nowhere\"", ok, err)
	}
}

// A field path the spec declares that no record has is noted (found in
// review: argv mapped to a missing path gave runs without argv, silently).
func TestDeclaredFieldNoRecordHas(t *testing.T) {
	dir := writeTree(t, map[string]string{
		checkout.File: `{"results": [{"file": "r.json", "fields": {"argv": "command.argv", "exit": "nope"}}]}`,
		"r.json":      `{"runs": [{"name": "a", "command": {"args": ["llama-cli"]}, "output_tail": "x"}]}`,
	})
	s, err := Load(dir, fakeFormats)
	if err != nil {
		t.Fatalf("Load(field paths no record has): %v", err)
	}
	var got []string
	for _, n := range s.Notes {
		got = append(got, n.Msg)
	}
	for _, want := range []string{
		`fields.argv: no run record of r.json has "command.argv"`,
		`fields.exit: no run record of r.json has "nope"`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("Load(field paths no record has).Notes = %q; want one %q", got, want)
		}
	}
}

// symlink links name to target or stops the test.
func symlink(tb testing.TB, target, name string) {
	tb.Helper()
	if err := os.Symlink(target, name); err != nil {
		tb.Fatal(err)
	}
}
