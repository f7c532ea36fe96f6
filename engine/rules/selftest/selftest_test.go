package selftest

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/source"
	"github.com/strataspec/strataspec/engine/tail"
)

// The runner's self-test, as the audit quotes it (§3) and as fixed.
const (
	ResultnerV3 = `import ctypes

def evict_file_cache(path):
    return True

def self_test():
    assert evict_file_cache(__file__) is True
    assert warm_file_cache(__file__) is True
    assert parse_mem("mem: scratch 1.36 GB") == 1.36
    print("self-test: PASS")

if __name__ == "__main__":
    self_test()
`
	ResultnerFixed = `def self_test():
    before = residency(__file__)
    evict_file_cache(__file__)
    assert (residency(__file__)
            <= 0.01), "evict left pages resident"  # mincore
    print("self-test: PASS")
`
	// The fixture's forms: check(name, condition) with the condition in
	// local variables, and the audited check of a constant.
	ResultnerCheck = `def self_test():
    failures = []

    def check(name, cond):
        print(name)

    before = residency(probe)
    ok = evict_file_cache(probe)
    after = residency(probe)
    check(f"evict_file_cache: mincore residency {before:.2f} -> {after:.2f}", ok and after <= EVICTED_MAX)
    print("self-test: PASS")
`
	ResultnerConstant = `def self_test():
    check("parse", parse_mem(SAMPLE) == 1)
    assert evict_file_cache(__file__) is True
    check("evict_file_cache(__file__) returned True", True)
    print("self-test:", len(failures), sys.argv[0], "self-test: PASS" if not failures else "self-test: FAIL")
`
	// Residency is printed in the name, not checked in the condition.
	ResultnerUnchecked = `def self_test():
    before = residency(probe)
    ok = evict_file_cache(probe)
    after = residency(probe)
    check(f"evict: mincore residency {before:.2f} -> {after:.2f}", ok)
`
	ResultnerNoEvict = `def self_test():
    assert parse_mem("x") == 1
    print('self-test: OK PASS')
`
)

const runner = "scripts/run_phase0_phase2_m5_validation.py"

// parse reads a runner source and finds its self-test function.
func parse(src string) *Func {
	return find(source.Parse(runner, []byte(src), source.Python), Config{})
}

func TestCheckSelftest(t *testing.T) {
	garbled := "self-test: 0 scripts/run_phase0_phase2_m5_validation.py self-test: PASS"
	good := Result{File: "results/self_test.log", Verdict: tail.Metric{Num: num.MustParse("1"), Line: 9}, VerdictText: "self-test: PASS",
		ChecksOK: tail.Metric{Num: num.MustParse("5")}, ChecksFailed: tail.Metric{Num: num.MustParse("0")}}
	tests := []struct {
		name string
		edit func(*Result)
		sev  []finding.Severity
		want []string
	}{
		{"clean", func(*Result) {}, []finding.Severity{finding.Pass}, []string{`--self-test verdict is exactly "self-test: PASS", exit 0, 5 checks ok`}},
		{"trailing CR", func(r *Result) { r.VerdictText += "\r" }, []finding.Severity{finding.Pass}, nil},
		{"garbled prefix", func(r *Result) { r.VerdictText = garbled }, []finding.Severity{finding.Fail},
			[]string{`the verdict line is "` + garbled + `", not the runner's PASS line "self-test: PASS": garbled prefix "self-test: 0 scripts/run_phase0_phase2_m5_validation.py "`}},
		{"suffix", func(r *Result) { r.VerdictText = "self-test: PASS (3 skipped)" }, []finding.Severity{finding.Fail},
			[]string{`the verdict line is "self-test: PASS (3 skipped)", not the runner's PASS line "self-test: PASS"`}},
		{"no verdict", func(r *Result) { r.Verdict, r.VerdictText = tail.Metric{}, "" }, []finding.Severity{finding.Fail},
			[]string{`--self-test printed no verdict line; want "self-test: PASS"`}},
		{"exit 1", func(r *Result) { r.Exit = 1 }, []finding.Severity{finding.Fail}, []string{"--self-test exited 1; want 0"}},
		{"failed checks", func(r *Result) { r.ChecksFailed.Num = num.MustParse("2") }, []finding.Severity{finding.Fail}, []string{"--self-test reports 2 failed checks"}},
		{"absent", func(r *Result) { *r = Result{} }, []finding.Severity{finding.Fail}, []string{"no --self-test output in the snapshot"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good
			tt.edit(&r)
			fs := Check(r, DefaultPassLine, runner)
			if len(fs) != len(tt.sev) {
				t.Fatalf("checkSelftest = %v; want %d findings", fs, len(tt.sev))
			}
			for i, f := range fs {
				if f.Severity != tt.sev[i] || f.Check != "verdict" {
					t.Errorf("finding %d = %s %s; want %s verdict", i, f.Severity, f.Check, tt.sev[i])
				}
				if i < len(tt.want) && !strings.Contains(f.Message, tt.want[i]) {
					t.Errorf("finding %d = %q; want it to contain %q", i, f.Message, tt.want[i])
				}
			}
		})
	}
}

func TestSelftestPass(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{ResultnerV3, "self-test: PASS"},
		{ResultnerNoEvict, "self-test: OK PASS"},
		{ResultnerConstant, "self-test: PASS"},
		{"", DefaultPassLine},
	}
	for _, tt := range tests {
		if got := parse(tt.src).PassLine(); got != tt.want {
			t.Errorf("PassLine(%q) = %q; want %q", tt.src, got, tt.want)
		}
	}
	var none *Func
	if got := none.PassLine(); got != DefaultPassLine {
		t.Errorf("PassLine(no runner) = %q; want %q", got, DefaultPassLine)
	}
}

func TestCheckSelftestEviction(t *testing.T) {
	tests := []struct {
		name string
		src  string
		sev  finding.Severity
		line int
		want string
	}{
		{"return value only", ResultnerV3, finding.Fail, 7,
			"the self-test's eviction check tests only a return value, never residency (L7 assert evict_file_cache(__file__) is True)"},
		{"residency", ResultnerFixed, finding.Pass, 4,
			`checks eviction by its effect: condition (residency(__file__) <= 0.01)`},
		{"residency through variables", ResultnerCheck, finding.Pass, 10,
			"condition ok and after <= EVICTED_MAX, that is (evict_file_cache(probe)) and (residency(probe)) <= EVICTED_MAX"},
		{"constant check", ResultnerConstant, finding.Fail, 3,
			`(L3 assert evict_file_cache(__file__) is True; L4 check("evict_file_cache(__file__) returned True", True))`},
		{"residency read but not checked", ResultnerUnchecked, finding.Fail, 5, "tests only a return value"},
		{"no eviction assertion", ResultnerNoEvict, finding.Warn, 1, "the self-test checks nothing about eviction"},
		{"no self-test", "def main():\n    pass\n", finding.Warn, 0, "no self-test function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := CheckEviction(parse(tt.src), runner)
			if f.Severity != tt.sev || f.Line != tt.line || f.Check != "eviction" || !strings.Contains(f.Message, tt.want) {
				t.Errorf("CheckEviction = %s %s line %d %q; want %s eviction line %d containing %q", f.Severity, f.Check, f.Line, f.Message, tt.sev, tt.line, tt.want)
			}
		})
	}
	if f := CheckEviction(nil, runner); f.Severity != finding.Warn || !strings.Contains(f.Message, "is not in the snapshot") {
		t.Errorf("CheckEviction(absent) = %v; want a warn saying so", f)
	}
}

func TestSelftestChecks(t *testing.T) {
	src := `def self_test():
    p =probe()
    r = residency(p)
    assert r == 0, "resident"
    ok = (evict(p) and
          r < 0.01)
    check("evict", ok)
    x == 1
`
	fn := parse(src)
	got := checks(fn.File.Lines, fn.Start-1, fn.End-1)
	want := []check{
		{line: 4, text: `assert r == 0, "resident"`, cond: "r == 0", expanded: "(residency((probe()))) == 0"},
		{line: 7, text: `check("evict", ok)`, cond: "ok", expanded: "((evict((probe())) and (residency((probe()))) < 0.01))"},
	}
	if len(got) != len(want) {
		t.Fatalf("selftestChecks = %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("selftestChecks[%d] = %+v; want %+v", i, got[i], want[i])
		}
	}
}
