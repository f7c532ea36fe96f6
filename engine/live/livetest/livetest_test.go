package livetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/live"
)

const speedTail = `init: 339.50 ms
prefill: 43 tok in 201.37 ms (213.54 tok/s)
expert arena 3.40 GB: 2441 slots (2362 filled), 1 size class, 16 KiB pages
[runner] min_avail 3.21 GiB (vm_stat free+inactive+purgeable, 0.25 s samples)
`

func TestRender(t *testing.T) {
	r := &Replay{Output: speedTail, Parser: Strata, Jitter: 0.5, Seed: 7, Flood: 2}
	flood, lines := Render(r)
	if len(lines) != 3 {
		t.Fatalf("Render: %d lines %q; want the 3 engine lines (runner line dropped)", len(lines), lines)
	}
	if lines[2] != "expert arena 3.40 GB: 2441 slots (2362 filled), 1 size class, 16 KiB pages" {
		t.Errorf("Render changed a line of deterministic metrics: %q", lines[2])
	}
	if lines[0] == "init: 339.50 ms" || !strings.HasPrefix(lines[0], "init: ") || !strings.HasSuffix(lines[0], " ms") {
		t.Errorf("Render(jitter 50%%) line 1 = %q; want init_ms moved, printed like the original", lines[0])
	}
	// prefill_tokens (43) is deterministic, prefill_ms and the rate measured
	if !strings.HasPrefix(lines[1], "prefill: 43 tok in ") || strings.Contains(lines[1], "201.37") {
		t.Errorf("Render line 2 = %q; want 43 kept and 201.37 moved", lines[1])
	}
	if want := []string{"init: 1018.50 ms", "init: 1018.50 ms"}; strings.Join(flood, "|") != strings.Join(want, "|") {
		t.Errorf("Render flood = %q; want %q (the first measured line, tripled)", flood, want)
	}
	if _, again := Render(r); strings.Join(again, "\n") != strings.Join(lines, "\n") {
		t.Errorf("Render(seed 7) = %q, then %q; want the same lines for one seed", lines, again)
	}
	r.Jitter = 0
	if _, same := Render(r); strings.Join(same, "\n")+"\n" != strings.Join(strings.Split(speedTail, "\n")[:3], "\n")+"\n" {
		t.Errorf("Render(jitter 0) = %q; want the engine lines as recorded", same)
	}
	if live.EngineLines(speedTail) != 3 {
		t.Errorf("EngineLines(speedTail) = %d; want 3", live.EngineLines(speedTail))
	}
}

func TestNumberAt(t *testing.T) {
	for _, tt := range []struct {
		line, text string
		from, want int
	}{
		{"x 13.4 3.4", "3.4", 0, 7},
		{"3.4 x", "3.4", 0, 0},
		{"a 1,234.5 b 234.5", "234.5", 0, 12},
		{"a 12 b", "12", 3, -1},
		{"a 12 b 12", "12", 3, 7},
	} {
		if got := numberAt(tt.line, tt.text, tt.from); got != tt.want {
			t.Errorf("numberAt(%q, %q, %d) = %d; want %d", tt.line, tt.text, tt.from, got, tt.want)
		}
	}
}

// TestLoadParser: a replay file whose parser is no built-in format is
// refused with the name (before, it was read as strata's output, found no
// metric to jitter, and its re-run reproduced trivially); "" is strata's.
func TestLoadParser(t *testing.T) {
	for _, tt := range []struct {
		parser string
		want   string // in the error; "" for none
	}{
		{"", ""},
		{Bench, ""},
		{"llama_bench", `replay parser "llama_bench" is no built-in format`},
	} {
		p := filepath.Join(t.TempDir(), "replay.json")
		if err := os.WriteFile(p, []byte(`{"Output": "x\n", "Parser": "`+tt.parser+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Load(parser %q) = %v; want an error containing %q", tt.parser, err, tt.want)
		}
	}
}
