package arena

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strataspec/strataspec/engine/arena"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

func arenaMetric(text string, line int) tail.Metric {
	return tail.Metric{Num: num.MustParse(text), Line: line}
}

// arenaAudited builds the audit's 14 strata runs (§3 "uniform arena"): 10 on
// the Q2_0 file (15.820 GiB, 2,441 slots, 1 class), 4 on the IQ3_S file
// (23.419 GiB, 1,550 slots, 1,440 filled, 3 classes), all with
// STRATA_METAL_ARENA_GB=3.4 and "expert arena 3.40 GB".
func arenaAudited() []arenaRun {
	var runs []arenaRun
	for i := 0; i < 14; i++ {
		r := arenaRun{
			Name: fmt.Sprintf("run%02d", i), File: "results/phase0_phase2_m5_validation.json",
			EnvName: "STRATA_METAL_ARENA_GB", Env: "3.4", HasEnv: true, ArenaGB: arenaMetric("3.40", 10),
		}
		if i%3 == 2 { // 4 of 14
			r.Experts, r.FileGiB = "IQ3_S", num.MustParse("23.419")
			r.Slots, r.Filled, r.Classes = arenaMetric("1550", 11), arenaMetric("1440", 11), arenaMetric("3", 11)
		} else {
			r.Experts, r.FileGiB = "Q2_0", num.MustParse("15.820")
			r.Slots, r.Classes = arenaMetric("2441", 11), arenaMetric("1", 11)
		}
		runs = append(runs, r)
	}
	return runs
}

func TestCheckArena(t *testing.T) {
	tests := []struct {
		name string
		edit func([]arenaRun)
		want []string // the fail and warn messages contain these, in order
	}{
		{name: "as audited", edit: func([]arenaRun) {}},
		{name: "Q2_0 slot count changed", edit: func(rs []arenaRun) { rs[0].Slots = arenaMetric("2442", 11) },
			want: []string{"Q2_0 run run00: logged 2442 slots; 15.820 GiB / 12,288 slices → 85 pages of 16 KiB per slot, and 3.40 GB (STRATA_METAL_ARENA_GB=3.4) / (85 × 16 KiB) = 2,441 slots"}},
		{name: "Q2_0 pages logged right", edit: func(rs []arenaRun) { rs[1].Pages = arenaMetric("85", 11) }},
		{name: "Q2_0 pages changed", edit: func(rs []arenaRun) { rs[1].Pages = arenaMetric("84", 11) },
			want: []string{"Q2_0 run run01: logged 84 pages per slot; 15.820 GiB / 12,288 slices = 84.37 × 16 KiB → 85 pages"}},
		{name: "IQ3_S slot count changed in one run", edit: func(rs []arenaRun) { rs[5].Slots = arenaMetric("1551", 11) },
			want: []string{"IQ3_S run run05: slots 1551; the other 3 runs of this file and arena log 1550"}},
		{name: "IQ3_S filled above slots", edit: func(rs []arenaRun) { rs[2].Filled = arenaMetric("1600", 11) },
			want: []string{"IQ3_S run run02: filled slots 1600; the other 3 runs of this file and arena log 1440", "IQ3_S run run02: 1600 slots filled of 1550"}},
		{name: "one run with another arena size", edit: func(rs []arenaRun) {
			rs[3].Env, rs[3].ArenaGB = "3.6", arenaMetric("3.60", 10)
		}, want: []string{
			"arena not uniform: run run03 has STRATA_METAL_ARENA_GB=3.6 (3.60 GB logged); 13 of the 14 runs have 3.4 (3.40 GB)",
			"Q2_0 run run03: logged 2441 slots; 15.820 GiB / 12,288 slices → 85 pages of 16 KiB per slot, and 3.60 GB (STRATA_METAL_ARENA_GB=3.6) / (85 × 16 KiB) = 2,585 slots",
		}},
		{name: "logged arena differs from env", edit: func(rs []arenaRun) { rs[5].ArenaGB = arenaMetric("3.41", 10) },
			want: []string{"run run05: logged arena 3.41 GB ≠ STRATA_METAL_ARENA_GB=3.4"}},
		{name: "env unset", edit: func(rs []arenaRun) { rs[4].HasEnv, rs[4].Env = false, "" },
			want: []string{"run run04: STRATA_METAL_ARENA_GB is not set"}},
		{name: "classes not logged", edit: func(rs []arenaRun) { rs[0].Classes = tail.Metric{} },
			want: []string{"Q2_0 run run00: the arena line logs no size classes"}},
		{name: "file size unknown", edit: func(rs []arenaRun) { rs[0].FileGiB = num.Number{} },
			want: []string{"Q2_0 run run00: the size of the .experts file is not known"}},
		{name: "engine echoes another env", edit: func(rs []arenaRun) { rs[0].EnvLogged = arenaMetric("3.5", 5) },
			want: []string{"run run00: the engine logs STRATA_METAL_ARENA_GB=3.5; the archived environment says 3.4"}},
		{name: "4 KiB pages logged", edit: func(rs []arenaRun) { rs[0].PageKiB = arenaMetric("4", 11) },
			want: []string{"Q2_0 run run00: logged 2441 slots; 15.820 GiB / 12,288 slices → 338 pages of 4 KiB per slot, and 3.40 GB (STRATA_METAL_ARENA_GB=3.4) / (338 × 4 KiB) = 2,455 slots"}},
		{name: "slices logged", edit: func(rs []arenaRun) { rs[0].Slices = arenaMetric("6144", 3) },
			want: []string{"Q2_0 run run00: logged 2441 slots; 15.820 GiB / 6,144 slices → 169 pages of 16 KiB per slot"}},
		{name: "slices not a count", edit: func(rs []arenaRun) { rs[0].Slices = arenaMetric("0.5", 3) },
			want: []string{"Q2_0 run run00: 0.5 expert slices is not a count"}},
		{name: "file size printed too coarsely", edit: func(rs []arenaRun) { rs[0].FileGiB = num.MustParse("16") },
			want: []string{"Q2_0 run run00: a .experts file of 16 GiB as printed gives 83–88 pages per slot, 2358–2500 slots"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := arenaAudited()
			tt.edit(runs)
			fs := checkArena(runs, 12288, arena.PageDarwinARM64)
			var bad []string
			for _, f := range fs {
				if f.Check == "" {
					t.Errorf("finding %v has no check", f)
				}
				if f.Severity != finding.Pass {
					bad = append(bad, f.Message)
				}
			}
			if len(bad) != len(tt.want) {
				t.Fatalf("checkArena: %d fail/warn findings %q; want %d", len(bad), bad, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(bad[i], w) {
					t.Errorf("finding %d = %q; want it to contain %q", i, bad[i], w)
				}
			}
		})
	}
}

func TestCheckArenaPass(t *testing.T) {
	fs := checkArena(arenaAudited(), 12288, arena.PageDarwinARM64)
	want := []string{
		"uniform arena: STRATA_METAL_ARENA_GB=3.4 and expert arena 3.40 GB logged in all 14 strata runs (3,400,000,000 bytes)",
		"Q2_0: 15.820 GiB / 12,288 slices = 1.38 MB = 84.4 × 16 KiB → 85 pages per slot; 3.40 GB (STRATA_METAL_ARENA_GB=3.4) / (85 × 16 KiB) = 2,441 slots in 1 size class, as logged in 10 runs",
		"IQ3_S: 1,550 slots (1,440 filled) in 3 size classes, identical in 4 runs",
	}
	if len(fs) != len(want) {
		t.Fatalf("checkArena(audited) = %d findings %v; want %d", len(fs), fs, len(want))
	}
	for i, w := range want {
		if fs[i].Severity != finding.Pass || !strings.HasPrefix(fs[i].Message, w) {
			t.Errorf("finding %d = %s %q; want pass starting %q", i, fs[i].Severity, fs[i].Message, w)
		}
	}
}

// With no slice count logged and none declared in the spec, a one-class
// arena's slot count cannot be checked: said per run, never passed.
func TestCheckArenaNoSlices(t *testing.T) {
	runs := arenaAudited()[:2] // two Q2_0 runs
	fs := checkArena(runs, 0, arena.PageDarwinARM64)
	var got []string
	for _, f := range fs {
		if f.Severity == finding.Fail {
			got = append(got, f.Message)
		}
	}
	want := []string{
		"Q2_0 run run00: the expert slice count is neither logged nor declared (\"slices\" in the arena settings), so the slot count cannot be checked",
		"Q2_0 run run01: the expert slice count is neither logged nor declared (\"slices\" in the arena settings), so the slot count cannot be checked",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checkArena(two Q2_0 runs, no slices) fails (-want +got):\n%s", diff)
	}
}
