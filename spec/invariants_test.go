package spec

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/rules"
	"github.com/strataspec/strataspec/engine/tail"
)

// The engine's invariants (issue 4; audit §2, §3 "uniform arena", §4) on
// the snapshots: route parity, arena slots, scratch size and the runner's
// self-test. Deterministic claims: an engine run must reproduce them exactly.

// invariantRules are the rules these tests run.
var invariantRules = []string{"parity", "arena", "scratch", "selftest"}

// invariantsContext loads a snapshot and parses every tail and record, as
// the audit does, into the context the rules read.
func invariantsContext(t *testing.T, root string) *rules.Context {
	t.Helper()
	snap, err := archive.Load(root)
	if err != nil {
		t.Fatalf("archive.Load(%q): %v", root, err)
	}
	c := &rules.Context{Snap: snap, Metrics: map[string]*tail.Metrics{}}
	for _, r := range snap.StrataRuns() {
		c.Metrics[r.Name] = tail.ParseStrata(r.Source, r.Tail)
	}
	for _, rec := range snap.Parity {
		c.Metrics[rec.File] = tail.ParseRouteParity(rec.File, rec.Text)
	}
	if rec := snap.SelfTest; rec != nil {
		c.Metrics[rec.File] = tail.ParseSelfTest(rec.File, rec.Text)
	}
	return c
}

// runInvariants runs the invariant rules named (all of them if none) and
// returns their findings.
func runInvariants(t *testing.T, c *rules.Context, names ...string) []finding.Finding {
	t.Helper()
	if len(names) == 0 {
		names = invariantRules
	}
	rs, err := rules.Select(strings.Join(names, ","))
	if err != nil {
		t.Fatal(err)
	}
	var out []finding.Finding
	for _, r := range rs {
		fs, err := r.Check(c)
		if err != nil {
			t.Fatalf("rule %s: %v", r.Name, err)
		}
		out = append(out, fs...)
	}
	return out
}

// invCopy copies a fixture snapshot into a temporary directory.
func invCopy(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
	return dst
}

// invEdit is one change to a file of a snapshot copy: the n-th occurrence
// (1-based) of old becomes new, or, with old empty, the file is removed.
type invEdit struct {
	file     string
	old, new string
	n        int
}

func (e invEdit) apply(t *testing.T, root string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(e.file))
	if e.old == "" {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	n := e.n
	if n == 0 {
		n = 1
	}
	at := -1
	for from := 0; n > 0; n-- {
		i := strings.Index(s[from:], e.old)
		if i < 0 {
			t.Fatalf("%s: occurrence %d of %q not found", e.file, e.n, e.old)
		}
		at = from + i
		from = at + len(e.old)
	}
	s = s[:at] + e.new + s[at+len(e.old):]
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// invFixture returns the path of a fixture snapshot.
func invFixture(t *testing.T, name string) string {
	t.Helper()
	root := filepath.Join("..", "fixtures", name)
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(archive.ResultsFile))); err != nil {
		t.Fatalf("fixture %s has no results file: %v", name, err)
	}
	return root
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
	root := invFixture(t, "m5-v3")
	fs := runInvariants(t, invariantsContext(t, root))
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
		invWant{"arena", "F31", finding.Pass, "Q2_0: 15.820 GiB / 12,288 slices = 1.38 MB = 84.4 × 16 KiB → 85 pages per slot; 3.4 GB / (85 × 16 KiB) = 2,441 slots in 1 size class, as logged in 10 runs"},
		invWant{"arena", "F31", finding.Pass, "IQ3_S: 1550 slots (1440 filled) in 3 size classes, identical in 4 runs"},
		// Scratch (§2, F20, F23, F24).
		invWant{"scratch", "F20", finding.Pass, "plan line 1.36 GB = prompt_gemm_init 1.36 GB = need 1.3586 GB (C = 1,024, 4,224 cells, PLE on, flash on), in all 14 strata runs"},
		invWant{"scratch", "F24", finding.Warn, "cap check only logs: STRATA_METAL_ARENA_GB is set in 14 of 14 strata runs"},
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
	root := invFixture(t, "m5")
	fs := runInvariants(t, invariantsContext(t, root))
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
	src := invFixture(t, "m5-v3")
	const results = archive.ResultsFile
	tests := []struct {
		name  string
		edits []invEdit
		want  invWant
	}{
		{"one repeat's error changed",
			[]invEdit{{file: "results/route_parity/fast_2.log", old: "max_abs_err 4.00e-07", new: "max_abs_err 4.01e-07"}},
			invWant{"parity", "F41", finding.Fail, "route_parity fast math, K=256 + MoCE=0.85: repeat 2 (run fast_2) max err 4.01e-07 differs from repeat 1 (run fast_1) 4.00e-07"}},
		{"error above tolerance",
			[]invEdit{
				{file: "results/route_parity/default_1.log", old: "max_abs_err 2.16e-07", new: "max_abs_err 2.16e-06"},
				{file: "results/route_parity/default_2.log", old: "max_abs_err 2.16e-07", new: "max_abs_err 2.16e-06"},
				{file: "results/route_parity/default_3.log", old: "max_abs_err 2.16e-07", new: "max_abs_err 2.16e-06"},
			},
			invWant{"parity", "F41", finding.Fail, "route_parity default math, K=512: repeat 1 (run default_1) max err 2.16e-06 above the tolerance 1e-06"}},
		{"a mode missing",
			[]invEdit{{file: "results/route_parity/fast_1.log"}, {file: "results/route_parity/fast_2.log"}, {file: "results/route_parity/fast_3.log"}},
			invWant{"parity", "F41", finding.Fail, "route_parity fast math: no run; want 3 repeats"}},
		{"a logged slot count changed",
			[]invEdit{{file: results, old: "expert arena 3.40 GB: 2441 slots", new: "expert arena 3.40 GB: 2442 slots"}},
			invWant{"arena", "F31", finding.Fail, "logged 2442 slots; 15.820 GiB / 12,288 slices → 85 pages of 16 KiB per slot, and 3.4 GB / (85 × 16 KiB) = 2,441 slots"}},
		{"one run with another arena size",
			[]invEdit{
				{file: results, old: `"STRATA_METAL_ARENA_GB": "3.4"`, new: `"STRATA_METAL_ARENA_GB": "3.6"`},
				{file: results, old: "STRATA_METAL_ARENA_GB=3.4 (", new: "STRATA_METAL_ARENA_GB=3.6 ("},
				{file: results, old: "expert arena 3.40 GB", new: "expert arena 3.60 GB"},
			},
			invWant{"arena", "F31", finding.Fail, "has STRATA_METAL_ARENA_GB=3.6 (3.60 GB logged); the other 13 runs have 3.4 (3.40 GB)"}},
		{"a scratch value changed in one log line",
			[]invEdit{{file: results, old: "prompt_gemm_init: 1.36 GB", new: "prompt_gemm_init: 1.37 GB", n: 5}},
			invWant{"scratch", "F20", finding.Fail, "prompt_gemm_init line scratch 1.37 GB ≠ need 1.3586 GB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := invCopy(t, src)
			for _, e := range tt.edits {
				e.apply(t, root)
			}
			fs := runInvariants(t, invariantsContext(t, root), tt.want.rule)
			if !invFind(fs, tt.want) {
				t.Errorf("no %s %s %s finding containing %q; findings:%s", tt.want.rule, tt.want.id, tt.want.sev, tt.want.msg, invDump(fs))
			}
		})
	}
}
