package checkout

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/snapfs"
)

// TestGuessCSV: a CSV file whose header has a name-like column is run
// records, one a row, its fields guessed from the header; llama-bench's
// CSV stays llama-bench output, and a CSV with no name column is not
// placed.
func TestGuessCSV(t *testing.T) {
	dir := t.TempDir()
	for rel, s := range map[string]string{
		"runs.csv":         "run,cmd,exit_code,duration_s,vm.swapout_mib,output\na,./x -n 4,0,1.5,0.0,\"init: 1 ms\"\n",
		"bench/pp.csv":     "build_commit,avg_ts\nc392e509,18930.3\n",
		"notes/table.csv":  "model,size\nK256,4.2\n",
		"notes/broken.csv": "name,cmd\nx\n",
		"notes/empty.csv":  "name,cmd\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys, err := snapfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	s, said, err := Guess(fsys, func(b []byte) bool { return strings.Contains(string(b), "avg_ts") })
	if err != nil {
		t.Fatal(err)
	}
	want := []Results{{File: "runs.csv", Fields: Fields{Name: "run", Argv: "cmd", Exit: "exit_code", Duration: "duration_s", Tail: "output"}}}
	if diff := cmp.Diff(want, s.Results, cmp.AllowUnexported(Results{})); diff != "" {
		t.Errorf("Guess: results (-want +got):\n%s\n%s", diff, strings.Join(said, "\n"))
	}
	if diff := cmp.Diff([]string{"bench/pp.csv"}, s.Bench); diff != "" {
		t.Errorf("Guess: bench (-want +got):\n%s", diff)
	}
	// a CSV not placed is said so, with why
	for _, want := range []string{
		"notes/table.csv: not placed: no run records (no column named name, run,",
		"notes/broken.csv: not placed: notes/broken.csv:2:",
		"notes/empty.csv: not placed: a header and no rows",
	} {
		if !slices.ContainsFunc(said, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("Guess said:\n%s\nwant a line starting %q", strings.Join(said, "\n"), want)
		}
	}
}
