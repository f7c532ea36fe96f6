package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/scratch"
	"github.com/strataspec/strataspec/engine/tail"
)

// scratchAudited builds the audit's 14 strata runs (§2): plan line and
// prompt_gemm_init line both 1.36 GB, STRATA_METAL_ARENA_GB set in all.
func scratchAudited() []scratchRun {
	var runs []scratchRun
	for i := 0; i < 14; i++ {
		runs = append(runs, scratchRun{
			Name: fmt.Sprintf("run%02d", i), File: "results/phase0_phase2_m5_validation.json", ExplicitArena: true,
			Plan: tail.Metric{Num: num.MustParse("1.36"), Line: 4},
			Init: tail.Metric{Num: num.MustParse("1.36"), Line: 9},
		})
	}
	return runs
}

func TestCheckScratch(t *testing.T) {
	tests := []struct {
		name string
		edit func([]scratchRun)
		cfg  scratch.Config
		want []string // messages of the non-pass findings, in order
		n    int      // number of non-pass findings, when more than want lists
	}{
		{name: "as audited", edit: func([]scratchRun) {}, cfg: scratch.M5(),
			want: []string{"cap check only logs: STRATA_METAL_ARENA_GB is set in 14 of 14 strata runs"}},
		{name: "init line changed in one run", edit: func(rs []scratchRun) { rs[7].Init.Num = num.MustParse("1.37") }, cfg: scratch.M5(),
			want: []string{"run run07: prompt_gemm_init line scratch 1.37 GB ≠ need 1.3586 GB (C = 1,024, 4,224 cells, PLE on, flash on)", "cap check only logs"}},
		{name: "plan line printed finer and off", edit: func(rs []scratchRun) { rs[0].Plan.Num = num.MustParse("1.3587") }, cfg: scratch.M5(),
			want: []string{"run run00: plan line scratch 1.3587 GB ≠ need 1.3586 GB", "cap check only logs"}},
		{name: "plan line printed finer and right", edit: func(rs []scratchRun) { rs[0].Plan.Num = num.MustParse("1.3586") }, cfg: scratch.M5(),
			want: []string{"cap check only logs"}},
		{name: "plan line missing", edit: func(rs []scratchRun) { rs[3].Plan = tail.Metric{} }, cfg: scratch.M5(),
			want: []string{"run run03: no scratch size on the plan line", "cap check only logs"}},
		{name: "auto arena everywhere", edit: func(rs []scratchRun) {
			for i := range rs {
				rs[i].ExplicitArena = false
			}
		}, cfg: scratch.M5()},
		{name: "peak and cap logged", edit: func(rs []scratchRun) {
			rs[0].Peak, rs[0].Cap = tail.Metric{Num: num.MustParse("6.5")}, tail.Metric{Num: num.MustParse("18.8")}
		}, cfg: scratch.M5(), want: []string{"(largest peak prefill 6.5 < cap 18.8 GB, in run run00, but not enforced)"}},
		{name: "peak above cap", edit: func(rs []scratchRun) {
			for i := range rs {
				rs[i].Peak, rs[i].Cap = tail.Metric{Num: num.MustParse("6.50")}, tail.Metric{Num: num.MustParse("18.80")}
			}
			rs[9].Peak = tail.Metric{Num: num.MustParse("19.10")}
		}, cfg: scratch.M5(), want: []string{"run run09's peak prefill 19.10 GB is not below the cap 18.80 GB, and nothing stops it"}},
		// A TM other than the one the logs were sized with does not change
		// the need at C = 1,024 (a whole number of tiles); a chunk of 1,000 (a
		// model figure, not the engine's)
		// does.
		{name: "need of another chunk", edit: func([]scratchRun) {}, cfg: func() scratch.Config { c := scratch.M5(); c.C = 1000; return c }(),
			want: []string{"run run00: plan line scratch 1.36 GB ≠ need 1.3370 GB (C = 1,000,"},
			n:    2*14 + 1}, // both lines of every run, and the cap warning
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := scratchAudited()
			tt.edit(runs)
			fs := checkScratch(runs, tt.cfg)
			var bad []string
			for _, f := range fs {
				if f.Severity != finding.Pass {
					bad = append(bad, f.Message)
				}
			}
			n := max(tt.n, len(tt.want))
			if len(bad) != n {
				t.Fatalf("checkScratch: %d non-pass findings %q; want %d starting %q", len(bad), bad, n, tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(bad[i], w) {
					t.Errorf("finding %d = %q; want it to contain %q", i, bad[i], w)
				}
			}
		})
	}
}

func TestCheckScratchPass(t *testing.T) {
	fs := checkScratch(scratchAudited(), scratch.M5())
	if len(fs) != 2 {
		t.Fatalf("checkScratch(audited) = %v; want a pass and a warn", fs)
	}
	want := "plan line 1.36 GB = prompt_gemm_init 1.36 GB = need 1.3586 GB (C = 1,024, 4,224 cells, PLE on, flash on), in all 14 strata runs"
	if fs[0].Severity != finding.Pass || fs[0].ID != "F20" || fs[0].Message != want {
		t.Errorf("finding 0 = %s %s %q; want pass F20 %q", fs[0].Severity, fs[0].ID, fs[0].Message, want)
	}
	if fs[1].Severity != finding.Warn || fs[1].ID != "F24" {
		t.Errorf("finding 1 = %s %s; want warn F24", fs[1].Severity, fs[1].ID)
	}
}

// The source excerpts: as audited (a hand-kept duplicate with the row tile
// hard-coded to 16) and as fixed (an assert in prompt_gemm_init).
const (
	scratchSourceV3 = `// window.cpp (excerpt)
struct PromptGemm {
  static PromptGemm make(const Cfg& cfg, bool measure) {
    PromptGemm p;
    p.TM = cfg.tm ? cfg.tm : 16; // default tile
    size_t maxrows = (cfg.C + p.TM - 1) / p.TM * p.TM;
    return p;
  }
};

size_t prompt_gemm_need_bytes() {
  size_t need = 0;
  size_t maxrows = (C + 16 - 1) / 16 * 16;
  need += maxrows * row_bytes;
  need += align_up(maxrows, 16) * d * 4;
  return need;
}

void prompt_gemm_init() {
  size_t need = PromptGemm::make(cfg, true).bytes();
  log("prompt_gemm_init %.2f GB", need / 1e9);
}
`
	scratchSourceFixed = scratchSourceV3 + `
void prompt_gemm_check(size_t need) {
  assert(need == prompt_gemm_need_bytes());
}
`
)

func TestCheckScratchSource(t *testing.T) {
	lines := func(s string) []string { return strings.Split(s, "\n") }
	tests := []struct {
		name string
		src  scratchSource
		sev  finding.Severity
		line int
		want string
	}{
		{"as audited", scratchSource{File: ScratchSource, Lines: lines(scratchSourceV3)}, finding.Warn, 11,
			"prompt_gemm_need_bytes() (vendor/strata/metal/window.cpp L11–17) is a hand-kept duplicate of make(), and re-derives the rows with a hard-coded 16 (L13, L15) where the configuration says p.TM; nothing asserts"},
		{"fixed", scratchSource{File: ScratchSource, Lines: lines(scratchSourceFixed)}, finding.Pass, 25,
			"vendor/strata/metal/window.cpp:25 asserts the measured need equals prompt_gemm_need_bytes()"},
		{"assert commented out", scratchSource{File: ScratchSource, Lines: lines(strings.Replace(scratchSourceFixed, "  assert(", "  // assert(", 1))}, finding.Warn, 11,
			"hand-kept duplicate of make()"},
		{"absent", scratchSource{File: ScratchSource}, finding.Warn, 0, "is not in the snapshot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := checkScratchSource(tt.src)
			if len(fs) != 1 {
				t.Fatalf("checkScratchSource = %v; want 1 finding", fs)
			}
			f := fs[0]
			if f.Severity != tt.sev || f.Line != tt.line || f.ID != "F23" || !strings.Contains(f.Message, tt.want) {
				t.Errorf("checkScratchSource = %s %s line %d %q; want %s F23 line %d containing %q", f.Severity, f.ID, f.Line, f.Message, tt.sev, tt.line, tt.want)
			}
		})
	}
}

func TestScratchReadSource(t *testing.T) {
	root := t.TempDir()
	src, err := scratchReadSource(root)
	if err != nil || src.Lines != nil {
		t.Fatalf("scratchReadSource(empty root) = %v, %v; want no lines, no error", src.Lines, err)
	}
	p := filepath.Join(root, filepath.FromSlash(ScratchSource))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("a\r\nb\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err = scratchReadSource(root)
	if err != nil || len(src.Lines) != 3 || src.Lines[1] != "b" {
		t.Fatalf("scratchReadSource = %q, %v; want [a b \"\"]", src.Lines, err)
	}
	// A directory where the file should be is unreadable input: an error.
	root2 := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root2, filepath.FromSlash(ScratchSource)), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := scratchReadSource(root2); err == nil || !strings.HasPrefix(err.Error(), "scratch: "+ScratchSource+": ") {
		t.Errorf("scratchReadSource(directory) = %v; want an error naming %s", err, ScratchSource)
	}
}
