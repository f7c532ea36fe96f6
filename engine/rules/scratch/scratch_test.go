package scratch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/scratch"
	"github.com/strataspec/strataspec/engine/source"
	"github.com/strataspec/strataspec/engine/tail"
)

// arenaEnv is the fixtures' explicit-arena variable.
const arenaEnv = "STRATA_METAL_ARENA_GB"

// m5 is the configuration fixtures/m5-v3's spec gives (rules.scratch.need):
// the audit's C, d, TM, cells, PLE and flash, and a row size fitted to its
// one need figure.
func m5() scratch.Config {
	return scratch.Config{C: 1024, D: 2560, TM: 16, RowBytes: 1275558, Cells: 4224, PLE: true, Flash: true}
}

func ptr[T any](v T) *T { return &v }

// scratchAudited builds the audit's 14 strata runs (§2): plan line and
// prompt_gemm_init line both 1.36 GB, STRATA_METAL_ARENA_GB set in all.
func scratchAudited() []Run {
	var runs []Run
	for i := 0; i < 14; i++ {
		runs = append(runs, Run{
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
		edit func([]Run)
		cfg  scratch.Config
		want []string // messages of the non-pass findings, in order
		n    int      // number of non-pass findings, when more than want lists
	}{
		{name: "as audited", edit: func([]Run) {}, cfg: m5(),
			want: []string{"cap check only logs: STRATA_METAL_ARENA_GB is set in 14 of 14 strata runs"}},
		{name: "init line changed in one run", edit: func(rs []Run) { rs[7].Init.Num = num.MustParse("1.37") }, cfg: m5(),
			want: []string{"run run07: prompt_gemm_init line scratch 1.37 GB ≠ need 1.3586 GB (C = 1,024, 4,224 cells, PLE on, flash on)", "cap check only logs"}},
		{name: "plan line printed finer and off", edit: func(rs []Run) { rs[0].Plan.Num = num.MustParse("1.3587") }, cfg: m5(),
			want: []string{"run run00: plan line scratch 1.3587 GB ≠ need 1.3586 GB", "cap check only logs"}},
		{name: "plan line printed finer and right", edit: func(rs []Run) { rs[0].Plan.Num = num.MustParse("1.3586") }, cfg: m5(),
			want: []string{"cap check only logs"}},
		{name: "plan line missing", edit: func(rs []Run) { rs[3].Plan = tail.Metric{} }, cfg: m5(),
			want: []string{"run run03: no scratch size on the plan line", "cap check only logs"}},
		{name: "auto arena everywhere", edit: func(rs []Run) {
			for i := range rs {
				rs[i].ExplicitArena = false
			}
		}, cfg: m5()},
		{name: "peak and cap logged", edit: func(rs []Run) {
			rs[0].Peak, rs[0].Cap = tail.Metric{Num: num.MustParse("6.5")}, tail.Metric{Num: num.MustParse("18.8")}
		}, cfg: m5(), want: []string{"(largest peak prefill 6.5 < cap 18.8 GB, in run run00, but not enforced)"}},
		{name: "peak above cap", edit: func(rs []Run) {
			for i := range rs {
				rs[i].Peak, rs[i].Cap = tail.Metric{Num: num.MustParse("6.50")}, tail.Metric{Num: num.MustParse("18.80")}
			}
			rs[9].Peak = tail.Metric{Num: num.MustParse("19.10")}
		}, cfg: m5(), want: []string{"run run09's peak prefill 19.10 GB is not below the cap 18.80 GB, and nothing stops it"}},
		// A TM other than the one the logs were sized with does not change
		// the need at C = 1,024 (a whole number of tiles); a chunk of 1,000 (a
		// model figure, not the engine's)
		// does.
		{name: "need of another chunk", edit: func([]Run) {}, cfg: func() scratch.Config { c := m5(); c.C = 1000; return c }(),
			want: []string{"run run00: plan line scratch 1.36 GB ≠ need 1.3370 GB (C = 1,000,"},
			n:    2*14 + 1}, // both lines of every run, and the cap warning
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := scratchAudited()
			tt.edit(runs)
			fs := Check(runs, &tt.cfg, arenaEnv)
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
	fs := Check(scratchAudited(), ptr(m5()), arenaEnv)
	if len(fs) != 2 {
		t.Fatalf("checkScratch(audited) = %v; want a pass and a warn", fs)
	}
	want := "plan line 1.36 GB = prompt_gemm_init 1.36 GB = need 1.3586 GB (C = 1,024, 4,224 cells, PLE on, flash on), in all 14 strata runs"
	if fs[0].Severity != finding.Pass || fs[0].Check != "need" || fs[0].Message != want {
		t.Errorf("finding 0 = %s %s %q; want pass need %q", fs[0].Severity, fs[0].Check, fs[0].Message, want)
	}
	if fs[1].Severity != finding.Warn || fs[1].Check != "cap" {
		t.Errorf("finding 1 = %s %s; want warn cap", fs[1].Severity, fs[1].Check)
	}
	// Without a need model the logged sizes are compared with each other.
	runs := scratchAudited()
	runs[2].Init.Num = num.MustParse("1.35")
	fs = Check(runs, nil, "")
	if len(fs) != 1 || fs[0].Severity != finding.Fail || !strings.Contains(fs[0].Message, "run run02: prompt_gemm_init line scratch 1.35 GB ≠ the plan line's 1.36 GB") {
		t.Errorf("Check(no need model, one init line off) = %v; want one fail naming run02", fs)
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

func TestCheckSource(t *testing.T) {
	cfg := Config{File: "vendor/strata/metal/window.cpp", Sizing: "PromptGemm::make", Planning: []string{"prompt_gemm_need_bytes", "prompt_gemm_need_bytes_for"}}
	parse := func(s string) *source.File { return source.Parse(cfg.File, []byte(s), source.C) }
	tests := []struct {
		name string
		src  *source.File
		sev  finding.Severity
		line int
		want string
	}{
		{"as audited", parse(scratchSourceV3), finding.Warn, 11,
			"prompt_gemm_need_bytes() (vendor/strata/metal/window.cpp L11–17) is a hand-kept duplicate of make(), and re-derives the rows with a hard-coded 16 (L13) where the configuration says p.TM; nothing asserts"},
		{"fixed", parse(scratchSourceFixed), finding.Pass, 25,
			"vendor/strata/metal/window.cpp:25 asserts the measured need equals prompt_gemm_need_bytes()"},
		{"assert commented out", parse(strings.Replace(scratchSourceFixed, "  assert(", "  // assert(", 1)), finding.Warn, 11,
			"hand-kept duplicate of make()"},
		{"mirror reads the parameter", parse(strings.ReplaceAll(scratchSourceV3, "(C + 16 - 1) / 16 * 16", "(C + p.TM - 1) / p.TM * p.TM")), finding.Warn, 11,
			"is a hand-kept duplicate of make(); nothing asserts"},
		{"no planning function", parse("int main() {\n  return 0;\n}\n"), finding.Warn, 0, "no definition of prompt_gemm_need_bytes()"},
		{"absent", nil, finding.Warn, 0, "is not in the snapshot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := CheckSource(tt.src, cfg)
			if f.Severity != tt.sev || f.Line != tt.line || f.Check != "mirror" || !strings.Contains(f.Message, tt.want) {
				t.Errorf("CheckSource = %s %s line %d %q; want %s mirror line %d containing %q", f.Severity, f.Check, f.Line, f.Message, tt.sev, tt.line, tt.want)
			}
		})
	}
}
