package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// fakeEngine writes a shell script that prints its environment variable and
// arguments the way a recorded run would, so Rerun is tested without strata.
func fakeEngine(t *testing.T, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("needs a POSIX shell")
	}
	p := filepath.Join(t.TempDir(), "fake_engine")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRerun(t *testing.T) {
	eng := fakeEngine(t, `echo "line 1"; echo "arena $STRATA_METAL_ARENA_GB GB"; echo "args $*"; exit 3`+"\n")
	r := &archive.Run{Name: "speed", Cmd: []string{"/Users/m5/strata/build/strata_window_cli", "-n", "64"},
		Env: map[string]string{"STRATA_METAL_ARENA_GB": "3.4"}, Tail: "old"}
	fresh, err := Rerun(context.Background(), r, Options{
		Resolve:   func(string) (string, error) { return eng, nil },
		TailLines: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "arena 3.4 GB\nargs -n 64\n"; fresh.Tail != want {
		t.Errorf("Rerun tail = %q; want %q", fresh.Tail, want)
	}
	if fresh.ExitCode != 3 {
		t.Errorf("Rerun exit = %d; want 3", fresh.ExitCode)
	}
	if r.Tail != "old" {
		t.Errorf("Rerun changed the archived run's tail to %q", r.Tail)
	}
}

func TestRerunCarriedOver(t *testing.T) {
	r := &archive.Run{Name: "llama", Cmd: []string{"llama-cli"}, CarriedOver: true}
	if _, err := Rerun(context.Background(), r, Options{}); !errors.Is(err, ErrCarriedOver) {
		t.Errorf("Rerun(carried over) = %v; want ErrCarriedOver", err)
	}
}

func TestRerunMissingProgram(t *testing.T) {
	r := &archive.Run{Name: "x", Cmd: []string{filepath.Join(t.TempDir(), "nope")}, Env: map[string]string{}}
	_, err := Rerun(context.Background(), r, Options{})
	if err == nil || !strings.Contains(err.Error(), "x") {
		t.Errorf("Rerun(missing program) = %v; want an error naming the run", err)
	}
}

func ms(pairs ...string) *tail.Metrics {
	m := &tail.Metrics{}
	for i := 0; i < len(pairs); i += 2 {
		m.Add(tail.Metric{Name: pairs[i], Num: num.MustParse(pairs[i+1])})
	}
	return m
}

func TestCompare(t *testing.T) {
	classify := func(name string) Kind {
		if name == "slots" {
			return Deterministic
		}
		return Measured
	}
	for _, tt := range []struct {
		name     string
		archived *tail.Metrics
		fresh    *tail.Metrics
		wantOK   []bool
	}{
		{"same", ms("slots", "2441", "tok_s", "13.52"), ms("slots", "2441", "tok_s", "13.52"), []bool{true, true}},
		{"drift within", ms("tok_s", "13.52"), ms("tok_s", "13.90"), []bool{true}},
		{"drift beyond", ms("tok_s", "13.52"), ms("tok_s", "9.51"), []bool{false}},
		{"slots changed", ms("slots", "2441"), ms("slots", "2440"), []bool{false}},
		{"printed differently", ms("slots", "2441"), ms("slots", "2,441"), []bool{false}},
		{"missing", ms("slots", "2441"), ms(), []bool{false}},
		{"second occurrence", ms("slots", "2441", "slots", "1550"), ms("slots", "2441", "slots", "1551"), []bool{true, false}},
	} {
		ds := Compare(tt.archived, tt.fresh, classify, 0.05)
		if len(ds) != len(tt.wantOK) {
			t.Fatalf("Compare(%s) = %d drifts; want %d", tt.name, len(ds), len(tt.wantOK))
		}
		for i, d := range ds {
			if d.OK != tt.wantOK[i] {
				t.Errorf("Compare(%s)[%d] = %+v; want OK=%v", tt.name, i, d, tt.wantOK[i])
			}
			if !d.OK && d.Why == "" {
				t.Errorf("Compare(%s)[%d] not OK without a reason", tt.name, i)
			}
		}
	}
}
