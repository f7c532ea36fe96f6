package spec

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/scratch"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// The engine's invariants (issue 4; audit §2, §3 "uniform arena", §4) on
// the snapshots: route parity, arena slots, scratch size and the runner's
// self-test. Deterministic claims: an engine run must reproduce them exactly.

// invariantRules are the rules these tests run.
const invariantRules = "parity,arena,scratch,selftest"

// invEdit is one change to a file of a snapshot copy: the n-th occurrence
// (1-based; 0 means the only one) of old becomes new, or, with old empty, the
// file is removed.
type invEdit struct {
	file     string
	old, new string
	n        int
}

func (e invEdit) apply(t *testing.T, root string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(e.file))
	switch {
	case e.old == "":
		snaptest.Remove(t, p)
	case e.n == 0:
		snaptest.Edit(t, p, e.old, e.new)
	default:
		snaptest.EditNth(t, p, e.old, e.new, e.n)
	}
}

// invWant is one expected finding: rule, audit id, severity and a part of the
// message (the figures a reader checks against the audit).
type invWant struct {
	rule string
	id   string
	sev  finding.Severity
	msg  string
}

// invFind reports whether fs holds a finding matching w.
func invFind(fs []finding.Finding, w invWant) bool {
	for _, f := range fs {
		if f.Rule == w.rule && f.ID == w.id && f.Severity == w.sev && strings.Contains(f.Message, w.msg) {
			return true
		}
	}
	return false
}

func invDump(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n\t")
		b.WriteString(f.String())
	}
	return b.String()
}

// The audited snapshot: what the audit found for each invariant, with the
// figures it gives.
func TestInvariantsAudited(t *testing.T) {
	root := snaptest.Fixture(t, "m5-v3")
	fs := auditFindings(t, root, invariantRules)
	// Route parity (§4, F41): tolerance and repeat count are the spec's.
	parity := []struct {
		mode, config, maxErr, tol string
		repeats                   string
	}{
		{"default", "K=512", "2.16e-07", "1e-06", "3"},
		{"default", "K=256 + MoCE=0.85", "3.06e-07", "1e-06", "3"},
		{"fast", "K=512", "2.15e-07", "1e-06", "3"},
		{"fast", "K=256 + MoCE=0.85", "4.00e-07", "1e-06", "3"},
	}
	var wants []invWant
	for _, p := range parity {
		wants = append(wants, invWant{"parity", "F41", finding.Pass,
			"route_parity " + p.mode + " math, " + p.config + ": max err " + p.maxErr + " ≤ " + p.tol + ", identical in " + p.repeats + " repeats, all exit 0"})
	}
	wants = append(wants,
		// Uniform arena (§3, F31).
		invWant{"arena", "F31", finding.Pass, "STRATA_METAL_ARENA_GB=3.4 and expert arena 3.40 GB logged in all 14 strata runs"},
		invWant{"arena", "F31", finding.Pass, "Q2_0: 15.820 GiB / 12,288 slices = 1.38 MB = 84.4 × 16 KiB → 85 pages per slot; 3.40 GB (STRATA_METAL_ARENA_GB=3.4) / (85 × 16 KiB) = 2,441 slots in 1 size class, as logged in 10 runs"},
		invWant{"arena", "F31", finding.Pass, "IQ3_S: 1,550 slots (1,440 filled) in 3 size classes, identical in 4 runs"},
		// Scratch (§2, F20, F23, F24).
		invWant{"scratch", "F20", finding.Pass, "plan line 1.36 GB = prompt_gemm_init 1.36 GB = need 1.3586 GB (C = 1,024, 4,224 cells, PLE on, flash on), in all 14 strata runs"},
		invWant{"scratch", "F24", finding.Warn, "cap check only logs: STRATA_METAL_ARENA_GB is set in 14 of 14 strata runs, and with an explicit arena the scratch need is not subtracted from the budget (largest peak prefill 6.50 < cap 18.80 GB"},
		invWant{"scratch", "F23", finding.Warn, "is a hand-kept duplicate of make(), and re-derives the rows with a hard-coded 16 (L2159, L2178) where the configuration says p.TM; nothing asserts need == prompt_gemm_need_bytes()"},
		// Self-test (§3, §4, F42, F28).
		invWant{"selftest", "F42", finding.Fail, `garbled prefix "self-test: 0 scripts/run_phase0_phase2_m5_validation.py "`},
		invWant{"selftest", "F28", finding.Fail, "the self-test's eviction check tests only a return value, never residency (L725 assert evict_file_cache(__file__) is True;"},
	)
	for _, w := range wants {
		if !invFind(fs, w) {
			t.Errorf("m5-v3: no %s %s %s finding containing %q; findings:%s", w.rule, w.id, w.sev, w.msg, invDump(fs))
		}
	}
	// Nothing else fails: the audit found these invariants holding.
	for _, f := range fs {
		if f.Severity == finding.Fail && f.Rule != "selftest" {
			t.Errorf("m5-v3: unexpected fail %s", f)
		}
	}
}

// The fixed snapshot: the self-test is clean and asserts eviction with
// mincore, the source asserts the need; the cap check still only logs.
func TestInvariantsFixed(t *testing.T) {
	root := snaptest.Fixture(t, "m5")
	fs := auditFindings(t, root, invariantRules)
	for _, w := range []invWant{
		{"selftest", "F42", finding.Pass, `--self-test verdict is exactly "self-test: PASS", exit 0`},
		{"selftest", "F28", finding.Pass, "the self-test checks eviction by its effect: condition ok and after <= EVICTED_MAX"},
		{"scratch", "F23", finding.Pass, "asserts the measured need equals prompt_gemm_need_bytes()"},
		{"scratch", "F24", finding.Warn, "cap check only logs"},
	} {
		if !invFind(fs, w) {
			t.Errorf("m5: no %s %s %s finding containing %q; findings:%s", w.rule, w.id, w.sev, w.msg, invDump(fs))
		}
	}
	for _, f := range fs {
		if f.Severity == finding.Fail {
			t.Errorf("m5: unexpected fail %s", f)
		}
	}
}

// Each invariant fails when one value of a copy of the audited snapshot is
// changed, and the failure names the place.
func TestInvariantsBroken(t *testing.T) {
	const results = snaptest.ResultsFile
	tests := []struct {
		name  string
		snap  string // fixture copied; "" for m5-v3
		edits []invEdit
		want  invWant
	}{
		{"one repeat's error changed", "",
			[]invEdit{{file: "results/route_parity/fast_2.log", old: "max_abs_err 4.00e-07", new: "max_abs_err 4.01e-07"}},
			invWant{"parity", "F41", finding.Fail, "route_parity fast math, K=256 + MoCE=0.85: repeat 2 (run fast_2) max err 4.01e-07 differs from repeat 1 (run fast_1) 4.00e-07"}},
		{"error above tolerance", "",
			[]invEdit{
				{file: "results/route_parity/default_1.log", old: "max_abs_err 2.16e-07", new: "max_abs_err 2.16e-06"},
				{file: "results/route_parity/default_2.log", old: "max_abs_err 2.16e-07", new: "max_abs_err 2.16e-06"},
				{file: "results/route_parity/default_3.log", old: "max_abs_err 2.16e-07", new: "max_abs_err 2.16e-06"},
			},
			invWant{"parity", "F41", finding.Fail, "route_parity default math, K=512: repeat 1 (run default_1) max err 2.16e-06 above the tolerance 1e-06"}},
		{"a mode missing", "",
			[]invEdit{{file: "results/route_parity/fast_1.log"}, {file: "results/route_parity/fast_2.log"}, {file: "results/route_parity/fast_3.log"}},
			invWant{"parity", "F41", finding.Fail, "route_parity fast math: no run; want 3 repeats"}},
		// A route_parity log is the program's output; its run record beside
		// it says how it ran. Without one, neither mode nor exit is known.
		{"a route_parity run record missing", "",
			[]invEdit{{file: "results/route_parity/fast_2.json"}},
			invWant{"parity", "F41", finding.Fail, "route_parity run fast_2: no environment recorded (no header, no sidecar run record), so its math mode is unknown"}},
		{"a route_parity run that exited 1", "",
			[]invEdit{{file: "results/route_parity/default_3.json", old: `"exit_code": 0`, new: `"exit_code": 1`}},
			invWant{"parity", "F41", finding.Fail, "route_parity default math, run default_3: exit 1; want 0"}},
		// Rows from review: a line the route_parity or self-test parser
		// could not read passed in silence.
		{"an unreadable route_parity line", "",
			[]invEdit{{file: "results/route_parity/default_2.log", old: "route_parity: 2/2 PASS", new: "route_parity: K=128 moce=0.50 max_abs_err n/a PASS\nroute_parity: 2/2 PASS"}},
			invWant{"parity", "F41", finding.Fail, "results/route_parity/default_2.log: malformed route_parity configuration line"}},
		// Rows from review: route_parity's own FAIL on a configuration the
		// spec has no row for passed in silence.
		{"an undeclared configuration fails", "",
			[]invEdit{{file: "results/route_parity/fast_3.log", old: "route_parity: 2/2 PASS", new: "route_parity: K=128 moce=0.50 max_abs_err 3.10e-05 mean_abs_err 4.00e-07 FAIL\nroute_parity: 2/3 PASS"}},
			invWant{"parity", "F41", finding.Fail, "route_parity run fast_3: its summary passes 2 of 3 configurations"}},
		{"an undeclared configuration passes", "",
			[]invEdit{{file: "results/route_parity/fast_3.log", old: "route_parity: 2/2 PASS", new: "route_parity: K=128 moce=0.50 max_abs_err 3.10e-07 mean_abs_err 4.00e-09 PASS\nroute_parity: 3/3 PASS"}},
			invWant{"parity", "F41", finding.Warn, "route_parity run fast_3 reports configuration k128_moce05 (max err 3.10e-07), which the spec declares no tolerance for"}},
		{"a second self-test verdict", "m5",
			[]invEdit{{file: "results/self_test.log", old: "\nself-test: PASS", new: "\nself-test: FAIL\nself-test: PASS"}},
			invWant{"selftest", "F42", finding.Fail, "results/self_test.log: second verdict line (first at line"}},
		{"a logged slot count changed", "",
			[]invEdit{{file: results, old: "expert arena 3.40 GB: 2441 slots", new: "expert arena 3.40 GB: 2442 slots", n: 1}},
			invWant{"arena", "F31", finding.Fail, "logged 2442 slots; 15.820 GiB / 12,288 slices → 85 pages of 16 KiB per slot, and 3.40 GB (STRATA_METAL_ARENA_GB=3.4) / (85 × 16 KiB) = 2,441 slots"}},
		{"one run with another arena size", "",
			[]invEdit{
				{file: results, old: `"STRATA_METAL_ARENA_GB": "3.4"`, new: `"STRATA_METAL_ARENA_GB": "3.6"`, n: 1},
				{file: results, old: "STRATA_METAL_ARENA_GB=3.4 (", new: "STRATA_METAL_ARENA_GB=3.6 (", n: 1},
				{file: results, old: "expert arena 3.40 GB", new: "expert arena 3.60 GB", n: 1},
			},
			invWant{"arena", "F31", finding.Fail, "has STRATA_METAL_ARENA_GB=3.6 (3.60 GB logged); 13 of the 14 runs have 3.4 (3.40 GB)"}},
		// The spec's settings decide: a changed setting changes the finding.
		{"a tolerance below the audited errors", "",
			[]invEdit{{file: "strataspec.json", old: `"key": "k256_moce085", "tolerance": 1e-06`, new: `"key": "k256_moce085", "tolerance": 3e-07`}},
			invWant{"parity", "F41", finding.Fail, "route_parity default math, K=256 + MoCE=0.85: repeat 1 (run default_1) max err 3.06e-07 above the tolerance 3e-07"}},
		{"four repeats asked for", "",
			[]invEdit{{file: "strataspec.json", old: `"repeats": 3`, new: `"repeats": 4`}},
			invWant{"parity", "F41", finding.Fail, "route_parity fast math: 3 repeats (fast_1, fast_2, fast_3); want 4"}},
		{"a third math mode asked for", "",
			[]invEdit{{file: "strataspec.json", old: `"modes": ["default", "fast"]`, new: `"modes": ["default", "fast", "precise"]`}},
			invWant{"parity", "F41", finding.Fail, "route_parity precise math: no run; want 3 repeats"}},
		{"a configuration the spec no longer declares", "",
			[]invEdit{{file: "strataspec.json", old: `{"name": "K=512", "key": "k512", "tolerance": 1e-06},`, new: ``}},
			invWant{"parity", "F41", finding.Warn, "route_parity run default_1 reports configuration k512 (max err 2.16e-07), which the spec declares no tolerance for"}},
		{"another arena variable", "",
			[]invEdit{{file: "strataspec.json", old: `"env": "STRATA_METAL_ARENA_GB"`, new: `"env": "ARENA_GB"`}},
			invWant{"arena", "F31", finding.Fail, "run strata_q2_0_moce0_short_43tok: ARENA_GB is not set"}},
		{"another caveat asked of the hypothesis", "m5",
			[]invEdit{{file: "strataspec.json", old: `"caveat": "xnu-billing-hypothesis"`, new: `"caveat": "xnu-measured"`}},
			invWant{"memory", "F25", finding.Warn, "label it with a `> **Caveat** (xnu-measured): …` line in this section"}},
		{"a scratch of twice the prompt chunk", "",
			[]invEdit{{file: "strataspec.json", old: `"scratch": {"c": 1024, "d": 2560`, new: `"scratch": {"c": 2048, "d": 2560`}},
			invWant{"memory", "F25", finding.Warn, "(p.R + p.emb = 0.105 GB, but resident_size also drops only 0.05 GB"}},
		{"a higher memory-pressure threshold", "",
			[]invEdit{{file: "strataspec.json", old: `"min_avail_warn_gib": 1.0`, new: `"min_avail_warn_gib": 3.0`}},
			invWant{"memory", "F07", finding.Warn, "run strata_q2_0_moce085_prefill_2048tok: min_avail 2.85 GiB is below 3.0 GiB"}},
		{"a scratch value changed in one log line", "",
			[]invEdit{{file: results, old: "prompt_gemm_init: 1.36 GB", new: "prompt_gemm_init: 1.37 GB", n: 5}},
			invWant{"scratch", "F20", finding.Fail, "prompt_gemm_init line scratch 1.37 GB ≠ need 1.3586 GB"}},
		{"the plan line's scratch changed", "",
			[]invEdit{{file: results, old: "need 1.36 GB", new: "need 1.35 GB", n: 14}},
			invWant{"scratch", "F20", finding.Fail, "plan line scratch 1.35 GB ≠ need 1.3586 GB"}},
		{"the fixed source's assert removed", "m5",
			[]invEdit{{file: "vendor/strata/metal/window.cpp", old: "assert(pg_->bytes == prompt_gemm_need_bytes());", new: ";"}},
			invWant{"scratch", "F23", finding.Warn, "hand-kept duplicate of make()"}},
		{"the fixed verdict garbled", "m5",
			[]invEdit{{file: "results/self_test.log", old: "\nself-test: PASS", new: "\nself-test: 0 x.py self-test: PASS"}},
			invWant{"selftest", "F42", finding.Fail, `garbled prefix "self-test: 0 x.py "`}},
		{"the fixed self-test back to a return code", "m5",
			[]invEdit{{file: "scripts/run_phase0_phase2_m5_validation.py", old: "ok and after <= EVICTED_MAX)", new: "ok)"}},
			invWant{"selftest", "F28", finding.Fail, "tests only a return value, never residency"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := tt.snap
			if snap == "" {
				snap = "m5-v3"
			}
			root := snaptest.CopyFixture(t, snap)
			for _, e := range tt.edits {
				e.apply(t, root)
			}
			fs := auditFindings(t, root, tt.want.rule)
			if !invFind(fs, tt.want) {
				t.Errorf("no %s %s %s finding containing %q; findings:%s", tt.want.rule, tt.want.id, tt.want.sev, tt.want.msg, invDump(fs))
			}
		})
	}
}

// The scratch model's declared constants, one row each: a change to the
// configuration in the engine packages must be made here too. (The parity
// and arena settings live in the fixtures' strataspec.json; their tests are
// the spec-edit rows of TestInvariantsBroken.)
func TestInvariantConstants(t *testing.T) {
	m5 := scratch.M5()
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"scratch.M5().C", int64(m5.C), 1024},
		{"scratch.M5().D", int64(m5.D), 2560},
		{"scratch.M5().TM", int64(m5.TM), 16},
		{"scratch.M5().Cells", int64(m5.Cells), 4224},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d; want %d", c.name, c.got, c.want)
		}
	}
	if !m5.PLE || !m5.Flash {
		t.Errorf("scratch.M5() = %+v; want PLE and flash on", m5)
	}
}

// The arithmetic of the audit's §2, one row per figure it prints.
func TestInvariantArithmetic(t *testing.T) {
	cpu, err := scratch.CPUFaulted(scratch.M5())
	if err != nil {
		t.Fatal(err)
	}
	need, err := scratch.Need(scratch.M5())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		name   string
		gb     float64
		quoted string
	}{
		{"p.R + p.emb", cpu.GBs(), "0.052"},
		{"prompt_gemm_need_bytes()", need.GBs(), "1.3586"}, // fitted: see package scratch
		{"plan and prompt_gemm_init lines", need.GBs(), "1.36"},
	} {
		if !num.Matches(r.gb, num.MustParse(r.quoted)) {
			t.Errorf("%s = %.6f GB; want %s at its printed precision", r.name, r.gb, r.quoted)
		}
	}
}
