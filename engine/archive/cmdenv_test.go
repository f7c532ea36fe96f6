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
