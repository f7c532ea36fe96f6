package parity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// parityAudited builds the audit's six route_parity runs (§4): default math
// 2.16e-07 / 3.06e-07, fast 2.15e-07 / 4.00e-07, three repeats each, exit 0.
func parityAudited() []parityRun {
	errs := map[string][2]string{"default": {"2.16e-07", "3.06e-07"}, "fast": {"2.15e-07", "4.00e-07"}}
	var runs []parityRun
	for _, mode := range []string{"default", "fast"} {
		for i := 1; i <= 3; i++ {
			runs = append(runs, parityRun{
				Name: fmt.Sprintf("route_parity_%s_%d", mode, i),
				File: fmt.Sprintf("results/route_parity_%s_%d.txt", mode, i),
				Mode: mode,
				Err: map[string]tail.Metric{
					"k512":         {Name: "max_err", Num: num.MustParse(errs[mode][0]), Line: 7},
					"k256_moce085": {Name: "max_err", Num: num.MustParse(errs[mode][1]), Line: 12},
				},
			})
		}
	}
	return runs
}

// auditedParity are the settings fixtures/m5-v3/strataspec.json declares.
func auditedParity() ParitySettings {
	return ParitySettings{
		Configs: []ParityConfig{
			{Name: "K=512", Key: "k512", Tol: 1e-06},
			{Name: "K=256 + MoCE=0.85", Key: "k256_moce085", Tol: 1e-06},
		},
		ModeEnv: "STRATA_METAL_MATH", DefaultMode: "default", Modes: []string{"default", "fast"}, Repeats: 3,
	}
}

func TestCheckParity(t *testing.T) {
	setErr := func(run int, key, text string) func([]parityRun) []parityRun {
		return func(rs []parityRun) []parityRun {
			m := rs[run].Err[key]
			m.Num = num.MustParse(text)
			rs[run].Err[key] = m
			return rs
		}
	}
	tests := []struct {
		name  string
		edit  func([]parityRun) []parityRun
		fails int
		want  []string // substrings of the fail messages, in order
	}{
		{name: "as audited", edit: func(rs []parityRun) []parityRun { return rs }},
		{name: "one repeat differs", edit: setErr(4, "k256_moce085", "4.01e-07"), fails: 1,
			want: []string{"fast math, K=256 + MoCE=0.85: repeat 2 (run route_parity_fast_2) max err 4.01e-07 differs from repeat 1"}},
		{name: "same value printed differently", edit: setErr(1, "k512", "2.160e-07"), fails: 1,
			want: []string{"repeat 2 (run route_parity_default_2) max err 2.160e-07 differs"}},
		{name: "above tolerance in every repeat", edit: func(rs []parityRun) []parityRun {
			for i := 0; i < 3; i++ {
				rs = setErr(i, "k512", "2.16e-06")(rs)
			}
			return rs
		}, fails: 3, want: []string{"default math, K=512: repeat 1 (run route_parity_default_1) max err 2.16e-06 above the tolerance 1e-06"}},
		{name: "mode missing", edit: func(rs []parityRun) []parityRun { return rs[:3] }, fails: 1,
			want: []string{"route_parity fast math: no run; want 3 repeats"}},
		{name: "a repeat missing", edit: func(rs []parityRun) []parityRun { return append(rs[:4], rs[5]) }, fails: 1,
			want: []string{"route_parity fast math: 2 repeats (route_parity_fast_1, route_parity_fast_3); want 3"}},
		{name: "exit 1", edit: func(rs []parityRun) []parityRun { rs[2].Exit = 1; return rs }, fails: 1,
			want: []string{"route_parity default math, run route_parity_default_3: exit 1; want 0"}},
		{name: "configuration missing", edit: func(rs []parityRun) []parityRun { delete(rs[0].Err, "k512"); return rs }, fails: 1,
			want: []string{"default math, K=512: repeat 1 (run route_parity_default_1) reports no max error"}},
		{name: "route_parity reports FAIL", edit: func(rs []parityRun) []parityRun {
			rs[3].Verdict = map[string]tail.Metric{"k512": {Num: num.MustParse("0"), Line: 7}}
			return rs
		}, fails: 1, want: []string{"fast math, K=512: repeat 1 (run route_parity_fast_1): route_parity itself reports FAIL"}},
		{name: "negative error", edit: setErr(0, "k512", "-2.16e-07"), fails: 3,
			want: []string{"repeat 1 (run route_parity_default_1) max err -2.16e-07 is not an error magnitude", "repeat 2 (run route_parity_default_2) max err 2.16e-07 differs from repeat 1"}},
		{name: "first repeat without the configuration", edit: func(rs []parityRun) []parityRun {
			delete(rs[0].Err, "k512")
			return setErr(2, "k512", "2.17e-07")(rs)
		}, fails: 2, want: []string{"repeat 1 (run route_parity_default_1) reports no max error", "repeat 3 (run route_parity_default_3) max err 2.17e-07 differs from repeat 2 (run route_parity_default_2) 2.16e-07"}},
		{name: "exit not recorded", edit: func(rs []parityRun) []parityRun { rs[1].NoExit, rs[1].Exit = true, -1; return rs }, fails: 1,
			want: []string{"route_parity default math, run route_parity_default_2: no exit status recorded"}},
		{name: "environment not recorded", edit: func(rs []parityRun) []parityRun { rs[5].Mode = ""; return rs }, fails: 2,
			want: []string{"route_parity run route_parity_fast_3: no environment recorded", "route_parity fast math: 2 repeats"}},
		{name: "unknown mode", edit: func(rs []parityRun) []parityRun {
			return append(rs, parityRun{Name: "rp_x", Mode: "precise", Err: rs[0].Err})
		}, fails: 1, want: []string{`unknown math mode "precise"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := checkParity(tt.edit(parityAudited()), auditedParity())
			var fails []string
			for _, f := range fs {
				if f.Check == "" {
					t.Errorf("finding %v has no check", f)
				}
				if f.Severity == finding.Fail {
					fails = append(fails, f.Message)
				}
			}
			if len(fails) != tt.fails {
				t.Fatalf("checkParity: %d fails %q; want %d", len(fails), fails, tt.fails)
			}
			for i, w := range tt.want {
				if !strings.Contains(fails[i], w) {
					t.Errorf("fail %d = %q; want it to contain %q", i, fails[i], w)
				}
			}
		})
	}
}

// TestCheckParityPass checks the pass findings show the four audited figures.
func TestCheckParityPass(t *testing.T) {
	fs := checkParity(parityAudited(), auditedParity())
	want := []string{
		"route_parity default math, K=512: max err 2.16e-07 ≤ 1e-06, identical in 3 repeats, all exit 0",
		"route_parity default math, K=256 + MoCE=0.85: max err 3.06e-07 ≤ 1e-06, identical in 3 repeats, all exit 0",
		"route_parity fast math, K=512: max err 2.15e-07 ≤ 1e-06, identical in 3 repeats, all exit 0",
		"route_parity fast math, K=256 + MoCE=0.85: max err 4.00e-07 ≤ 1e-06, identical in 3 repeats, all exit 0",
	}
	if len(fs) != len(want) {
		t.Fatalf("checkParity(audited) = %d findings %v; want %d", len(fs), fs, len(want))
	}
	for i, w := range want {
		if fs[i].Severity != finding.Pass || fs[i].Message != w {
			t.Errorf("finding %d = %s %q; want pass %q", i, fs[i].Severity, fs[i].Message, w)
		}
	}
}
