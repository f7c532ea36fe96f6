package archive

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/checkout"
)

// TestCommandLineEnv: a run recorded as one command line opens with the
// environment assignments the shell read ("A=1 ./prog", "env A=1 ./prog"):
// they are the run's environment, and argv[0] is the program, whose format
// the registry names. A recorded environment's value wins over the line's
// (noted when they differ); an argv array is exec's, kept as given; a run
// carried over gets no environment.
func TestCommandLineEnv(t *testing.T) {
	dir := writeTree(t, map[string]string{
		checkout.File: `{"results": [{"file": "r.json"}]}`,
		"r.json": `{"runs": [
{"name": "a", "cmd": "STRATA_METAL_ARENA_GB=3.4 build/strata_window_cli --moce 0.85"},
{"name": "b", "cmd": "env A=1 B_2=two build/strata_window_cli -n 4", "env": {"A": "0", "HOME": "/h"}},
{"name": "c", "cmd": ["A=1", "build/strata_window_cli"]},
{"name": "d", "cmd": "A=1 build/strata_window_cli", "env": null},
{"name": "e", "cmd": "env"},
{"name": "f", "cmd": "1A=2 ./x"}]}`,
	})
	s, err := Load(dir, fakeFormats)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		run    string
		cmd    []string
		env    map[string]string
		parser string
	}{
		{"a", []string{"build/strata_window_cli", "--moce", "0.85"}, map[string]string{"STRATA_METAL_ARENA_GB": "3.4"}, "strata"},
		{"b", []string{"build/strata_window_cli", "-n", "4"}, map[string]string{"A": "0", "B_2": "two", "HOME": "/h"}, "strata"},
		{"c", []string{"A=1", "build/strata_window_cli"}, nil, ""},
		{"d", []string{"build/strata_window_cli"}, nil, "strata"},
		{"e", []string{"env"}, nil, ""},
		{"f", []string{"1A=2", "./x"}, nil, ""},
	} {
		r := s.Run(tt.run)
		if r == nil {
			t.Fatalf("run %s not loaded", tt.run)
		}
		if diff := cmp.Diff(tt.cmd, r.Cmd); diff != "" {
			t.Errorf("run %s: Cmd (-want +got):\n%s", tt.run, diff)
		}
		if diff := cmp.Diff(tt.env, r.Env); diff != "" {
			t.Errorf("run %s: Env (-want +got):\n%s", tt.run, diff)
		}
		if r.Parser != tt.parser {
			t.Errorf("run %s: Parser = %q; want %q", tt.run, r.Parser, tt.parser)
		}
	}
	var notes []string
	for _, n := range s.Notes {
		if strings.Contains(n.Msg, "command line sets") {
			notes = append(notes, n.String())
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `run "b": its command line sets A=1, its recorded environment A=0`) {
		t.Errorf("notes about the command line's environment = %q; want one for run b's A", notes)
	}
}

// TestLoadCSV: a CSV results file is one run a row, its columns mapped as a
// JSON record's fields (dotted names as nested paths, record metrics
// included); each run's place is its row's line, a multi-line output cell
// its tail. A CSV file has no "runs" path, and a bad row is an error at its
// line.
func TestLoadCSV(t *testing.T) {
	dir := writeTree(t, map[string]string{
		checkout.File: `{"results": [{"file": "runs.csv", "fields": {"name": "run", "argv": "cmd", "tail": "output",
  "metrics": {"vm.swapout_mib": {"name": "swapout_mib", "unit": "MiB"}}}}]}`,
		"runs.csv": "run,cmd,exit_code,vm.swapout_mib,output\n" +
			"a,build/strata_window_cli -n 4,0,0.0,\"init: 1 ms\ndecode: 4 tok\"\n" +
			"b,llama-cli -n 4,1,,x\n",
	})
	s, err := Load(dir, fakeFormats)
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.Run("a"), s.Run("b")
	if a == nil || b == nil {
		t.Fatalf("runs = %v; want a and b", s.Runs)
	}
	if diff := cmp.Diff([]string{"build/strata_window_cli", "-n", "4"}, a.Cmd); diff != "" {
		t.Errorf("run a: Cmd (-want +got):\n%s", diff)
	}
	if a.Line != 2 || b.Line != 4 || a.Tail != "init: 1 ms\ndecode: 4 tok" || a.Parser != "strata" || !b.HasExit || b.ExitCode != 1 {
		t.Errorf("runs a, b = line %d %q %q, line %d exit %v %d; want line 2, the two-line tail, strata; line 4, exit 1",
			a.Line, a.Tail, a.Parser, b.Line, b.HasExit, b.ExitCode)
	}
	if len(a.Metrics) != 1 || a.Metrics[0].Name != "swapout_mib" || a.Metrics[0].Line != 2 || len(b.Metrics) != 0 {
		t.Errorf("record metrics = %+v, %+v; want swapout_mib at line 2 for a, none for b (its cell is empty)", a.Metrics, b.Metrics)
	}
	if !strings.HasPrefix(a.Source, "runs.csv: ") {
		t.Errorf("run a's Source = %q; want runs.csv: …", a.Source)
	}
	for _, tt := range []struct{ spec, csv, want string }{
		{`{"results": [{"file": "runs.csv", "runs": "runs"}]}`, "name\nx\n", "a CSV file holds one run a row"},
		{`{"results": [{"file": "runs.csv"}]}`, "name,exit_code\nx,0\ny\n", "runs.csv:3:"},
		{`{"results": [{"file": "runs.csv"}]}`, "name,exit_code\nx,zero\n", "runs.csv:2:"},
		// the cell's own column, not the row's JSON text's
		{`{"results": [{"file": "runs.csv"}]}`, "name,exit_code\nx,zero\n", "runs.csv:2:3: exit_code: want an integer"},
		{`{"results": [{"file": "runs.csv"}]}`, "name,cmd,exit_code\n\"x\",\"[\"\"a\"\", 1]\",0\n", "runs.csv:2:5: cmd[1]: "},
		{`{"results": [{"file": "runs.csv"}]}`, "name,note,exit_code\nx,\"two\nlines\",-\n", "runs.csv:3:8: exit_code: "},
	} {
		dir := writeTree(t, map[string]string{checkout.File: tt.spec, "runs.csv": tt.csv})
		if _, err := Load(dir, fakeFormats); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) = %v; want an error containing %q", tt.csv, err, tt.want)
		}
	}
}
