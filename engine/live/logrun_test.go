package live_test

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/live"
	"github.com/strataspec/strataspec/engine/live/livetest"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestLiveLogRunFresh: a run read from a log file (fixtures/llamacpp-real's
// cli_a_01: no tail in a record, its output in runs/cli_a_01.log) re-runs
// into a run whose output is the fresh process's alone: Text returns what
// the fake printed now (load time 1150.23 ms), never the archived log
// (102.16 ms), and the archived run still reads its log.
func TestLiveLogRunFresh(t *testing.T) {
	snap, err := archive.Load(snaptest.Fixture(t, "llamacpp-real"), format.For)
	if err != nil {
		t.Fatalf("archive.Load(fixtures/llamacpp-real): %v", err)
	}
	r := snap.Run("cli_a_01")
	if r == nil || r.Tail != "" {
		t.Fatalf("fixtures/llamacpp-real: cli_a_01 = %+v; want a run read from its log", r)
	}
	archived, err := r.Text()
	if err != nil {
		t.Fatal(err)
	}
	const old, now = "load time =     102.16 ms", "load time =    1150.23 ms"
	if !strings.Contains(archived, old) {
		t.Fatalf("runs/cli_a_01.log prints no %q", old)
	}
	rp := &livetest.Replay{Output: strings.Replace(archived, old, now, 1), Parser: livetest.LlamaCpp, WantArgs: r.Cmd[1:], WantEnv: r.Env}
	res, err := rerun(t, r, checkout(t, r.Cmd[0]), rp, live.Options{TailLines: live.EngineLines(archived)})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := res.Run.Text()
	if err != nil {
		t.Fatalf("the re-run's Text() = %v", err)
	}
	if !strings.Contains(fresh, now) || strings.Contains(fresh, old) {
		t.Errorf("the re-run of cli_a_01: Text() holds %q: %v, %q: %v; want the fresh output's load time only", now, strings.Contains(fresh, now), old, strings.Contains(fresh, old))
	}
	if res.Run.Source != "live re-run of cli_a_01" || res.Run.ExitCode != 0 {
		t.Errorf("the re-run of cli_a_01: Source %q, exit %d; want \"live re-run of cli_a_01\", 0", res.Run.Source, res.Run.ExitCode)
	}
	if again, err := r.Text(); err != nil || again != archived {
		t.Errorf("the archived cli_a_01 after its re-run: Text() = %d bytes, %v; want its log, %d bytes", len(again), err, len(archived))
	}
}

// TestLiveFreshNoRecordFields: a run whose record gives metrics (fixtures/
// m5-shapes maps the runner's vm and io fields: swapout_mib, min_avail_gib,
// disk0_mb) re-parsed over a fresh output yields none of them: the record is
// the archived run's, and a re-run's record fields compared with it would be
// the archived values set against themselves.
func TestLiveFreshNoRecordFields(t *testing.T) {
	snap, err := archive.Load(snaptest.Fixture(t, "m5-shapes"), format.For)
	if err != nil {
		t.Fatalf("archive.Load(fixtures/m5-shapes): %v", err)
	}
	checked := 0
	for _, r := range snap.Runs {
		if len(r.Metrics) == 0 {
			continue
		}
		checked++
		if ms := facts.ParseRun(nil, r); len(ms.List) == 0 {
			t.Fatalf("run %s: its archived record yields no metric", r.Name)
		}
		fresh := facts.ParseRun(nil, r.WithOutput("live re-run of "+r.Name, ""))
		for _, m := range fresh.List {
			t.Errorf("run %s over an empty fresh output: metric %s = %s; want none (not the archived record's)", r.Name, m.Name, m.Num.Text)
		}
	}
	if checked == 0 {
		t.Fatal("fixtures/m5-shapes: no run with record metrics")
	}
}
