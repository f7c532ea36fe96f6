package tail_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/engine/tail"
)

// speedTail is a speed-run log in the engine's format (fixtures/m5-v3/README.md).
const speedTail = `strata_window_cli 0.9.3-m5 (metal, K256, SEPARATE_PROMPT_BUF=1)
model: models/K256-Q2_0-metal.gguf dense 4.220 GiB (4.53 GB), mlock ok
experts: models/K256-Q2_0-metal.gguf.experts 15.820 GiB, 48 layers x 256 experts = 12288 slices, F_NOCACHE preads
metal: Apple M5, recommendedMaxWorkingSetSize 18.80 GB
arena: STRATA_METAL_ARENA_GB=3.4 (explicit; auto budget off, cap check logs only)
mem: locked 2.90 GB | unpinned 0.34 GB | hc 1.28 GB | scratch 1.36 GB
prompt_gemm plan: C=1024 cells=4224 ple=1 flash=1 need 1.36 GB (separate transient mmap), peak prefill 6.50 GB, cap 18.80 GB
init: 347.12 ms
fill: profile prefetch started (1987 experts, moce=0.85)
  fill  25% 0.69 GB
fill: 2.77 GB in 0.4 s (6.44 GB/s)
expert arena 3.40 GB: 2441 slots (1987 filled), 1 size class, 16 KiB pages
prompt: 1024 tokens from data/m5_val_prompts/strata_prompt_1024tok.txt
prompt_gemm_init: 1.36 GB scratch in a separate transient mmap while a prompt runs
prefill: 1024 tok in 3194.19 ms (320.58 tok/s)
prompt_region(false): phys_footprint 4.73 GB -> 4.67 GB, resident_size 7.65 GB -> 7.60 GB
decode: [16/64] 13.27 tok/s
decode: 64 tok in 4702.42 ms (13.61 tok/s)
cache: hit 84.23% arena + 8.50% RA = 92.73%, miss 7.27% (37.9 misses/tok, 52.39 MB/tok)
timing: host wait 14.10 ms/tok, T1 GPU 71.712 ms/tok
[runner] vm_stat: swapouts +0 pages (0.0 MiB swapout)
[runner] min_avail 2.91 GiB (vm_stat free+inactive+purgeable, 0.25 s samples)
[runner] iostat: disk0 read 6,985.29 MB
`

const tfTail = `expert arena 3.40 GB: 1550 slots (1440 filled), 3 size classes, 16 KiB pages
init: 412.90 ms
prompt_gemm plan: C=1024 cells=4224 ple=1 flash=1 need 1.36 GB (separate transient mmap), peak prefill 6.50 GB, cap 18.80 GB
fill: 2.70 GB in 0.4 s (7.03 GB/s)
tf: n_prompt 32, n_gen 64, teacher-forced against reference logits
prompt_gemm_init: 1.36 GB scratch in a separate transient mmap while a prompt runs
prompt_region(false): phys_footprint 4.74 GB -> 4.68 GB, resident_size 7.69 GB -> 7.63 GB
tf: [16/64] kld 0.0465
tf: eval_tokens=64 in 2093.18 ms
cache: hit 55.12% arena + 23.40% RA = 78.52%, miss 21.48% (101.4 misses/tok, 207.51 MB/tok)
kld: mean 0.058127, median 0.011904, p99 0.871263, max 1.902217
top-1 agreement: 58/64 (90.63%)
ppl: 26.48 (reference 25.57)
[runner] vm_stat: swapouts +0 pages (0.0 MiB swapout)
[runner] min_avail 3.36 GiB (vm_stat free+inactive+purgeable, 0.25 s samples)
[runner] iostat: disk0 read 18,126.46 MB
`

func TestParseStrata(t *testing.T) {
	tests := []struct {
		name, text   string
		metric, want string // metric name and printed text
		line         int
	}{
		{"speed", speedTail, "init_ms", "347.12", 8},
		{"speed", speedTail, "fill_gb_s", "6.44", 11},
		{"speed", speedTail, "fill_s", "0.4", 11},
		{"speed", speedTail, "arena_slots", "2441", 12},
		{"speed", speedTail, "arena_size_classes", "1", 12},
		{"speed", speedTail, "prefill_ms", "3194.19", 15},
		{"speed", speedTail, "prefill_tok_s", "320.58", 15},
		{"speed", speedTail, "phys_footprint_before_gb", "4.73", 16},
		{"speed", speedTail, "resident_size_after_gb", "7.60", 16},
		{"speed", speedTail, "decode_tok_s", "13.61", 18},
		{"speed", speedTail, "hit_ra_pct", "8.50", 19},
		{"speed", speedTail, "misses_per_tok", "37.9", 19},
		{"speed", speedTail, "host_wait_ms_per_tok", "14.10", 20},
		{"speed", speedTail, "pure_gpu_ms_per_tok", "57.612", 20},
		{"speed", speedTail, "mem_scratch_gb", "1.36", 6},
		{"speed", speedTail, "prompt_gemm_plan_gb", "1.36", 7},
		{"speed", speedTail, "cap_gb", "18.80", 7},
		{"speed", speedTail, "arena_env_gb", "3.4", 5},
		{"speed", speedTail, "swapout_mib", "0.0", 21},
		{"speed", speedTail, "min_avail_gib", "2.91", 22},
		{"speed", speedTail, "disk0_mb", "6,985.29", 23},
		{"tf", tfTail, "arena_slots_filled", "1440", 1},
		{"tf", tfTail, "arena_size_classes", "3", 1},
		{"tf", tfTail, "eval_tokens", "64", 9},
		{"tf", tfTail, "kld_mean", "0.058127", 11},
		{"tf", tfTail, "top1_count", "58", 12},
		{"tf", tfTail, "top1_pct", "90.63", 12},
		{"tf", tfTail, "ppl_ref", "25.57", 13},
	}
	for _, tt := range tests {
		ms := tail.ParseStrata("t", tt.text)
		if len(ms.Errors) > 0 {
			t.Fatalf("ParseStrata(%s): errors %v", tt.name, ms.Errors)
		}
		m, ok := ms.Get(tt.metric)
		if !ok || m.Num.Text != tt.want || m.Line != tt.line {
			t.Errorf("ParseStrata(%s).Get(%q) = %q line %d (found %v); want %q line %d", tt.name, tt.metric, m.Num.Text, m.Line, ok, tt.want, tt.line)
		}
	}
	if _, ok := tail.ParseStrata("t", tfTail).Get("decode_tok_s"); ok {
		t.Errorf("TF tail has decode_tok_s")
	}
	if m, _ := tail.ParseStrata("t", speedTail).Get("disk0_mb"); m.Value() != 6985.29 {
		t.Errorf("disk0_mb value = %v; want 6985.29", m.Value())
	}
}

func TestParseStrataErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		line int    // line of the wanted error (0: whole tail)
		want string // substring of the error
	}{
		{"missing prompt_region", strings.Replace(speedTail, "prompt_region(false): phys_footprint 4.73 GB -> 4.67 GB, resident_size 7.65 GB -> 7.60 GB\n", "", 1),
			0, `missing required line "prompt_region(false):"`},
		{"missing runner line", strings.Replace(speedTail, "[runner] min_avail 2.91 GiB (vm_stat free+inactive+purgeable, 0.25 s samples)\n", "", 1),
			0, `missing required line "[runner] min_avail"`},
		{"missing timing", strings.Replace(speedTail, "timing: host wait 14.10 ms/tok, T1 GPU 71.712 ms/tok\n", "", 1), 0, `"timing:"`},
		{"missing kld", strings.Replace(tfTail, "kld: mean 0.058127, median 0.011904, p99 0.871263, max 1.902217\n", "", 1), 0, `"kld:"`},
		{"malformed cache", strings.Replace(speedTail, "84.23% arena", "84.23 arena", 1), 19, `malformed "cache:" line`},
		{"bad separator", strings.Replace(speedTail, "6,985.29", "69,85.29", 1), 23, "misplaced thousands separator"},
		{"non-UTF-8", strings.Replace(speedTail, "init: 347.12 ms", "init: 347.12 ms \xff", 1), 8, "invalid UTF-8"},
		{"empty", "", 0, "missing required line"},
	}
	for _, tt := range tests {
		ms := tail.ParseStrata("results/x.json: runs[3].output_tail", tt.text)
		found := false
		for _, e := range ms.Errors {
			if e.Line == tt.line && strings.Contains(e.Error(), tt.want) && strings.HasPrefix(e.Error(), "results/x.json: runs[3].output_tail") {
				found = true
			}
		}
		if !found {
			t.Errorf("ParseStrata(%s) errors = %v; want one at line %d containing %q", tt.name, ms.Errors, tt.line, tt.want)
		}
	}
	// Parsing goes on after an error: the metrics after the bad line are read.
	ms := tail.ParseStrata("t", strings.Replace(speedTail, "84.23% arena", "84.23 arena", 1))
	if _, ok := ms.Get("host_wait_ms_per_tok"); !ok {
		t.Errorf("ParseStrata stopped at the malformed line")
	}
}

func TestParseRunner(t *testing.T) {
	llama := "llama_perf_context_print: eval time = 1.00 ms / 1 runs\n" +
		"[runner] vm_stat: swapouts +0 pages (0.0 MiB swapout)\n" +
		"[runner] min_avail 3.27 GiB (vm_stat free+inactive+purgeable, 0.25 s samples)\n" +
		"[runner] iostat: disk0 read 105,851.73 MB\n"
	ms := tail.ParseRunner("t", llama)
	if len(ms.Errors) != 0 || len(ms.List) != 4 {
		t.Fatalf("ParseRunner: %d metrics, errors %v; want 4 metrics, no errors", len(ms.List), ms.Errors)
	}
	for _, c := range []struct {
		name, text string
		line       int
	}{{"swapout_mib", "0.0", 2}, {"min_avail_gib", "3.27", 3}, {"disk0_mb", "105,851.73", 4}} {
		if m, _ := ms.Get(c.name); m.Num.Text != c.text || m.Line != c.line {
			t.Errorf("ParseRunner.Get(%q) = %q line %d; want %q line %d", c.name, m.Num.Text, m.Line, c.text, c.line)
		}
	}
	if ms := tail.ParseRunner("t", "nothing\n"); len(ms.Errors) != 3 {
		t.Errorf("ParseRunner(no runner lines) errors = %v; want 3 missing lines", ms.Errors)
	}
}

const parityLog = `# cmd: build/route_parity --model models/K256-Q2_0-metal.gguf --tokens 64
# env: STRATA_METAL_MATH=fast
# exit: 0
route_parity: Apple M5, math=fast, 64 tokens, 48 layers
route_parity: K=512 moce=0.00 max_abs_err 2.15e-07 mean_abs_err 2.69e-09 PASS
route_parity: K=256 moce=0.85 max_abs_err 4.00e-07 mean_abs_err 5.33e-09 PASS
route_parity: 2/2 PASS
`

func TestParseRouteParity(t *testing.T) {
	ms := tail.ParseRouteParity("fast_1.log", parityLog)
	if len(ms.Errors) != 0 {
		t.Fatalf("errors: %v", ms.Errors)
	}
	for _, c := range []struct {
		name, text string
		line       int
	}{{"k512.max_abs_err", "2.15e-07", 5}, {"k256_moce085.max_abs_err", "4.00e-07", 6}, {"k256_moce085.pass", "1", 6}, {"configs_pass", "2", 7}} {
		if m, _ := ms.Get(c.name); m.Num.Text != c.text || m.Line != c.line {
			t.Errorf("ParseRouteParity.Get(%q) = %q line %d; want %q line %d", c.name, m.Num.Text, m.Line, c.text, c.line)
		}
	}
	bad := strings.Replace(parityLog, "max_abs_err 4.00e-07", "max_abs_err four", 1)
	if ms := tail.ParseRouteParity("fast_1.log", bad); len(ms.Errors) != 1 || ms.Errors[0].Line != 6 {
		t.Errorf("ParseRouteParity(bad) errors = %v; want one at line 6", ms.Errors)
	}
	if ms := tail.ParseRouteParity("x", "# cmd: x\n"); len(ms.Errors) != 2 {
		t.Errorf("ParseRouteParity(empty) errors = %v; want 2", ms.Errors)
	}
}

func TestParityKey(t *testing.T) {
	for _, c := range []struct{ k, moce, want string }{{"512", "0.00", "k512"}, {"256", "0.85", "k256_moce085"}, {"256", "0.80", "k256_moce08"}, {"64", "0", "k64"}} {
		if got := tail.ParityKey(c.k, c.moce); got != c.want {
			t.Errorf("ParityKey(%q, %q) = %q; want %q", c.k, c.moce, got, c.want)
		}
	}
}

func TestParseSelfTest(t *testing.T) {
	tests := []struct {
		name, text        string
		pass, garbled, ok string
		errs              int
	}{
		{"garbled", "# exit: 0\nself-test: ok a\nself-test: ok b\nself-test: 0 scripts/run_phase0_phase2_m5_validation.py self-test: PASS\n", "1", "1", "2", 0},
		{"clean", "self-test: ok evict_file_cache: mincore residency 1.00 -> 0.00\nself-test: PASS\n", "1", "0", "1", 0},
		{"fail", "self-test: FAIL evict\nself-test: FAIL\n", "0", "0", "0", 0},
		{"no verdict", "self-test: ok a\n", "", "", "1", 1},
	}
	for _, tt := range tests {
		ms := tail.ParseSelfTest("self_test.log", tt.text)
		if len(ms.Errors) != tt.errs {
			t.Errorf("ParseSelfTest(%s) errors = %v; want %d", tt.name, ms.Errors, tt.errs)
		}
		for name, want := range map[string]string{"verdict_pass": tt.pass, "verdict_garbled": tt.garbled, "checks_ok": tt.ok} {
			m, ok := ms.Get(name)
			if want == "" {
				if ok {
					t.Errorf("ParseSelfTest(%s) has %s", tt.name, name)
				}
				continue
			}
			if m.Num.Text != want {
				t.Errorf("ParseSelfTest(%s).Get(%q) = %q; want %q", tt.name, name, m.Num.Text, want)
			}
		}
	}
	if m, _ := tail.ParseSelfTest("x", tests[1].text).Get("residency_after"); m.Num.Text != "0.00" {
		t.Errorf("residency_after = %q; want 0.00", m.Num.Text)
	}
}

// fixtureSnapshot loads a committed fixture.
func fixtureSnapshot(t testing.TB, name string) *archive.Snapshot {
	t.Helper()
	s, err := archive.Load(snaptest.Fixture(t, name), format.For)
	if err != nil {
		t.Fatalf("archive.Load: %v", err)
	}
	return s
}

// TestFixtureTails parses every tail of both fixtures: no errors, and the
// audit's figures where the audit gives them.
func TestFixtureTails(t *testing.T) {
	for _, name := range []string{"m5-v3", "m5"} {
		s := fixtureSnapshot(t, name)
		for _, r := range s.Runs {
			var ms *tail.Metrics
			if r.Strata() {
				ms = tail.ParseStrata(r.Source, r.Tail)
			} else {
				ms = tail.ParseRunner(r.Source, r.Tail)
			}
			if len(ms.Errors) > 0 {
				t.Errorf("%s %s: %v", name, r.Name, ms.Errors)
			}
			if m, _ := ms.Get(tail.SwapoutMiB); m.Num.Text != "0.0" {
				t.Errorf("%s %s: swapout %q; want 0.0", name, r.Name, m.Num.Text)
			}
		}
		for _, p := range s.Parity {
			if ms := tail.ParseRouteParity(p.File, p.Text); len(ms.Errors) > 0 {
				t.Errorf("%s %s: %v", name, p.File, ms.Errors)
			}
		}
		ms := tail.ParseSelfTest(s.SelfTest.File, s.SelfTest.Text)
		wantGarbled := map[string]string{"m5-v3": "1", "m5": "0"}[name]
		if m, _ := ms.Get("verdict_garbled"); m.Num.Text != wantGarbled {
			t.Errorf("%s self-test verdict_garbled = %q; want %s", name, m.Num.Text, wantGarbled)
		}
	}
}

// seeds adds every fixture tail of a kind to a fuzz corpus.
func seeds(f *testing.F, kind string) {
	s, err := archive.Load(snaptest.FixturePath("m5-v3"), format.For)
	if err != nil {
		f.Fatalf("fuzz seeds: %v", err)
	}
	switch kind {
	case "strata", "runner":
		for _, r := range s.Runs {
			if r.Strata() == (kind == "strata") {
				f.Add(r.Tail)
			}
		}
	case "parity":
		for _, p := range s.Parity {
			f.Add(p.Text)
		}
	case "selftest":
		f.Add(s.SelfTest.Text)
	}
}

func FuzzParseStrata(f *testing.F) {
	f.Add(speedTail)
	f.Add(tfTail)
	seeds(f, "strata")
	f.Fuzz(func(t *testing.T, text string) { checkParse(t, text, tail.ParseStrata, true) })
}

func FuzzParseRunner(f *testing.F) {
	seeds(f, "runner")
	f.Add("[runner] iostat: disk0 read 1,2,3 MB\n")
	f.Fuzz(func(t *testing.T, text string) { checkParse(t, text, tail.ParseRunner, true) })
}

func FuzzParseRouteParity(f *testing.F) {
	f.Add(parityLog)
	seeds(f, "parity")
	f.Fuzz(func(t *testing.T, text string) { checkParse(t, text, tail.ParseRouteParity, true) })
}

func FuzzParseSelfTest(f *testing.F) {
	f.Add("self-test: PASS\n")
	seeds(f, "selftest")
	f.Fuzz(func(t *testing.T, text string) { checkParse(t, text, tail.ParseSelfTest, false) })
}

// TestParseProperties runs the fuzz properties over the fixture tails, so
// that they hold on real input without -fuzz.
func TestParseProperties(t *testing.T) {
	s, err := archive.Load(snaptest.FixturePath("m5-v3"), format.For)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Runs {
		if r.Strata() {
			checkParse(t, r.Tail, tail.ParseStrata, true)
		}
		checkParse(t, r.Tail, tail.ParseRunner, true)
	}
	for _, p := range s.Parity {
		checkParse(t, p.Text, tail.ParseRouteParity, true)
	}
	checkParse(t, s.SelfTest.Text, tail.ParseSelfTest, false)
}

// lineCount is the number of lines a parser numbers in text: a final line
// ending does not start another line.
func lineCount(text string) int {
	if text == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
}

// checkParse checks what holds for any input: every metric names a line
// inside the text, every error names the source and a line inside the text
// (or 0 for a line that is missing); and, where the format reads each
// metric from its own line (reprint), parse → print → parse is stable: the
// text's metric lines alone, printed again in order, parse to the same
// metrics. The self-test's format does not allow it: its check counts are
// totals over the ok/FAIL lines, reported on the verdict line.
func checkParse(t *testing.T, text string, parse func(source, text string) *tail.Metrics, reprint bool) {
	t.Helper()
	ms := parse("f", text)
	if ms == nil {
		t.Fatal("nil metrics")
	}
	n := lineCount(text)
	lines := strings.Split(text, "\n")
	keep := map[int]bool{}
	for _, m := range ms.List {
		if m.Line < 1 || m.Line > n || m.Name == "" {
			t.Fatalf("metric %+v: line outside 1–%d, or no name", m, n)
		}
		keep[m.Line] = true
	}
	for _, e := range ms.Errors {
		if e.File != "f" || e.Line < 0 || e.Line > n {
			t.Fatalf("error %+v: not in f, or line outside 0–%d", e, n)
		}
	}
	if !reprint {
		return
	}
	var printed []string
	for i, l := range lines {
		if keep[i+1] {
			printed = append(printed, l)
		}
	}
	again := parse("f", strings.Join(printed, "\n"))
	if got, want := metricTexts(again), metricTexts(ms); !slices.Equal(got, want) {
		t.Fatalf("reparsing the %d metric lines gives\n%q\nwant\n%q", len(printed), got, want)
	}
}

// metricTexts lists the metrics as "name=text unit", in order.
func metricTexts(ms *tail.Metrics) []string {
	var out []string
	for _, m := range ms.List {
		out = append(out, m.Name+"="+m.Num.Text+" "+m.Unit)
	}
	return out
}
