package tail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/num"
)

// The fast path for plain decimals agrees with num.Parse.
func TestPlainDecimalAgreesWithNum(t *testing.T) {
	for _, tok := range []string{"0", "0.00", "1264", "38.11", "10869.57", "1.", ".5", "007.10", "-1", "+2.50", "-0.000034"} {
		got, ok := PlainDecimal(tok)
		want, err := num.Parse(tok)
		if !ok || err != nil || got != want {
			t.Errorf("PlainDecimal(%q) = %+v, %v; want %+v (num.Parse err %v)", tok, got, ok, want, err)
		}
	}
	for _, tok := range []string{"", ".", "-", "1.2.3", "1-2", "1e3", "inf", "1,234", "--1"} {
		if _, ok := PlainDecimal(tok); ok {
			t.Errorf("PlainDecimal(%q) ok; want the general parser", tok)
		}
	}
}

// matchBoth runs a rule's template and its regexp on a line.
func matchBoth(ru *lineRule, line string) (tpl []string, re []string) {
	caps := make([]string, ru.tpl.ncap)
	if ru.tpl.match(line, caps) {
		tpl = caps
	}
	if m := ru.re.FindStringSubmatch(line); m != nil {
		re = m[1:]
	}
	return tpl, re
}

// Every rule's template matches exactly as its regexp: on every line of the
// fixtures' logs and results that starts with a rule's prefix, on edge
// cases, and under the fuzzer.
func TestTemplateRegexp(t *testing.T) {
	lines := []string{
		"kld: mean 12, median 3, p99 4, max 5",
		"kld: mean 1,234, median 3, p99 4, max 5",
		"kld: mean 1,2, median 3, p99 4, max 5",
		"kld: mean -inf, median nan, p99 +4e-3, max .5",
		"kld: mean 1.e5, median 3., p99 4E+2, max 5e",
		"expert arena 3.40 GB: 2441 slots (1987 filled), 2 size classes, 16 KiB pages",
		"expert arena 3.40 GB: 2441 slots (1987 filled), 1 size class, 16 KiB pages",
		"metal: Apple M5, recommendedMaxWorkingSetSize 18.80 GB, recommendedMaxWorkingSetSize 1 GB x",
		"arena: STRATA_METAL_ARENA_GB=3.4x",
		"arena: STRATA_METAL_ARENA_GB=3.4 (explicit)",
		"[runner] vm_stat: swapouts +12 pages (0.0 MiB swapout)",
		"[runner] vm_stat: swapouts +-12 pages (0.0 MiB swapout)",
		"prompt_gemm plan: C=1024 cells=4224 ple=1 flash=1 need 1.36 GB (separate (x) mmap), peak prefill 6.50 GB, cap 18.80 GB",
		"model: a b dense 4.220 GiB (4.53 GB)",
		"model:  dense 4.220 GiB (4.53 GB)",
		"prompt: 1024 tokens",
		"prompt: 1024tokens",
	}
	var files []string
	for _, glob := range []string{"../../fixtures/*/results/*.json", "../../fixtures/*/*.log", "../../fixtures/*/*/*.log"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Tails sit in JSON strings: split on the escaped newline too.
		for _, l := range strings.Split(strings.ReplaceAll(string(b), `\n`, "\n"), "\n") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	for _, set := range []*ruleSet{strataSet, runnerSet} {
		for i := range set.rules {
			ru := &set.rules[i]
			for _, l := range lines {
				if !strings.HasPrefix(l, ru.prefix) && !strings.HasPrefix(ru.pat, l[:min(len(l), 3)]) {
					continue
				}
				tpl, re := matchBoth(ru, l)
				if strings.Join(tpl, "|") != strings.Join(re, "|") || (tpl == nil) != (re == nil) {
					t.Errorf("rule %s on %q: template %q, regexp %q", ru.key, l, tpl, re)
				}
			}
		}
	}
}

func FuzzTemplateRegexp(f *testing.F) {
	f.Add("kld: mean 1,234, median 3, p99 4, max 5")
	f.Add("cache: hit 82.17% arena + 9.38% RA = 91.55%, miss 8.45% (4.09 misses/tok, 0.32 MB/tok)")
	f.Fuzz(func(t *testing.T, l string) {
		for _, set := range []*ruleSet{strataSet, runnerSet} {
			for i := range set.rules {
				ru := &set.rules[i]
				tpl, re := matchBoth(ru, ru.prefix+l)
				if strings.Join(tpl, "|") != strings.Join(re, "|") || (tpl == nil) != (re == nil) {
					t.Errorf("rule %s on %q: template %q, regexp %q", ru.key, ru.prefix+l, tpl, re)
				}
			}
		}
	})
}

func TestCompileTemplatePanics(t *testing.T) {
	for _, p := range []string{`a(b|c)`, `x\d`, `a+`, `(?:a.b)?`} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("compileTemplate(%q) did not panic; want an unsupported-syntax panic", p)
				}
			}()
			compileTemplate(p)
		}()
	}
}
