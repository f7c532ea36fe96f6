package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/scratch"
	"github.com/strataspec/strataspec/engine/tail"
)

// ScratchSource is the engine source file, relative to the snapshot root,
// that holds prompt_gemm_need_bytes() and make().
const ScratchSource = "vendor/strata/metal/window.cpp"

// scratchRun is one strata run as the scratch rule reads it.
type scratchRun struct {
	Name string
	File string // file the tail is in, relative to the snapshot root
	// ExplicitArena is true when STRATA_METAL_ARENA_GB is set: the engine
	// then only logs the cap check.
	ExplicitArena bool
	// Plan is the scratch size on the plan line, Init on the
	// prompt_gemm_init line, both in GB; a zero Metric was not logged.
	Plan, Init tail.Metric
	// Mem is the scratch size on the mem: line, where the log prints one.
	Mem tail.Metric
	// Peak and Cap are the peak prefill and the cap the cap check compares,
	// in GB, where the log prints them.
	Peak, Cap tail.Metric
	// C and Cells are the prompt chunk and KV cells the plan line logs.
	C, Cells tail.Metric
}

func init() {
	Register(Rule{
		Name: "scratch",
		Doc:  "prompt-GEMM scratch: plan line = prompt_gemm_init line = need; need computed by the code that sizes; cap enforced with an explicit arena",
		Check: func(c *Context) ([]finding.Finding, error) {
			runs, err := scratchRuns(c)
			if err != nil {
				return nil, err
			}
			out := checkScratch(runs, scratch.M5())
			src, err := scratchReadSource(c.Snap.Root)
			if err != nil {
				return nil, err
			}
			return append(out, checkScratchSource(src)...), nil
		},
	})
}

// checkScratch checks that every run's plan line and prompt_gemm_init line
// print the need of cfg at their precision (F20), and reports that with an
// explicit arena the cap check only logs (F24).
//
// The need is scratch.Need(cfg). At scratch.M5() it is the audit's figure for
// its mirror of prompt_gemm_need_bytes(), 1.3586 GB, which the model
// reproduces by construction (see package scratch): this check binds the
// logged values to the audit's figure, not to an independent derivation.
func checkScratch(runs []scratchRun, cfg scratch.Config) []finding.Finding {
	var out []finding.Finding
	add := func(sev finding.Severity, id string, r scratchRun, m tail.Metric, raw, format string, args ...any) {
		out = append(out, finding.Finding{Rule: "scratch", ID: id, Severity: sev, File: r.File, Line: m.Line,
			Quote: m.Num.Text, Raw: raw, Source: r.Name, Message: fmt.Sprintf(format, args...)})
	}
	need, err := scratch.Need(cfg)
	if err != nil {
		return []finding.Finding{{Rule: "scratch", ID: "F20", Severity: finding.Fail, Message: err.Error()}}
	}
	needGB := need.GBs()
	needText := num.Format(num.Round(needGB, 4), 4)
	what := fmt.Sprintf("need %s GB (C = %s, %s cells, PLE %s, flash %s)", needText,
		num.Format(float64(cfg.C), 0), num.Format(float64(cfg.Cells), 0), scratchOnOff(cfg.PLE), scratchOnOff(cfg.Flash))
	if len(runs) == 0 {
		return []finding.Finding{{Rule: "scratch", ID: "F20", Severity: finding.Fail, Message: "no strata run logs a prompt-GEMM scratch size"}}
	}
	ok := true
	for _, r := range runs {
		if (r.C.Num.Text != "" && r.C.Value() != float64(cfg.C)) || (r.Cells.Num.Text != "" && r.Cells.Value() != float64(cfg.Cells)) {
			ok = false
			add(finding.Warn, "F20", r, r.C, needText, "run %s: the plan line logs C = %s, %s cells; the need is known only at C = %s, %s cells (the audit's one figure), so its scratch is not checked",
				r.Name, r.C.Num.Text, r.Cells.Num.Text, num.Format(float64(cfg.C), 0), num.Format(float64(cfg.Cells), 0))
			continue
		}
		lines := []scratchLine{{"plan line", r.Plan}, {"prompt_gemm_init line", r.Init}}
		if r.Mem.Num.Text != "" {
			lines = append(lines, scratchLine{"mem: line", r.Mem})
		}
		for _, l := range lines {
			switch {
			case l.m.Num.Text == "":
				ok = false
				add(finding.Fail, "F20", r, l.m, needText, "run %s: no scratch size on the %s", r.Name, l.name)
			case !num.Matches(needGB, l.m.Num):
				ok = false
				add(finding.Fail, "F20", r, l.m, needText, "run %s: %s scratch %s GB ≠ %s", r.Name, l.name, l.m.Num.Text, what)
			}
		}
	}
	if ok {
		r := runs[0]
		mem, withMem := "", 0
		for _, x := range runs {
			if x.Mem.Num.Text != "" {
				withMem++
				if mem == "" {
					mem = x.Mem.Num.Text
				}
			}
		}
		if withMem > 0 {
			mem = fmt.Sprintf(" (and the mem: line's %s GB in %d of them)", mem, withMem)
		}
		add(finding.Pass, "F20", r, r.Plan, needText, "plan line %s GB = prompt_gemm_init %s GB = %s, in all %d strata runs%s",
			r.Plan.Num.Text, r.Init.Num.Text, what, len(runs), mem)
	}

	var explicit []scratchRun
	for _, r := range runs {
		if r.ExplicitArena {
			explicit = append(explicit, r)
		}
	}
	if len(explicit) > 0 {
		// The largest peak prefill against its run's cap.
		r := explicit[0]
		for _, x := range explicit[1:] {
			if x.Peak.Num.Text != "" && (r.Peak.Num.Text == "" || x.Peak.Value()-x.Cap.Value() > r.Peak.Value()-r.Cap.Value()) {
				r = x
			}
		}
		sev, margin := finding.Warn, ""
		if r.Peak.Num.Text != "" && r.Cap.Num.Text != "" {
			if r.Peak.Value() < r.Cap.Value() {
				margin = fmt.Sprintf(" (largest peak prefill %s < cap %s GB, in run %s, but not enforced)", r.Peak.Num.Text, r.Cap.Num.Text, r.Name)
			} else {
				sev = finding.Fail
				margin = fmt.Sprintf(": run %s's peak prefill %s GB is not below the cap %s GB, and nothing stops it", r.Name, r.Peak.Num.Text, r.Cap.Num.Text)
			}
		}
		add(sev, "F24", r, r.Peak, r.Cap.Num.Text, "cap check only logs: %s is set in %d of %d strata runs, and with an explicit arena the scratch need is not subtracted from the budget%s",
			ArenaEnv, len(explicit), len(runs), margin)
	}
	return out
}

// scratchLine is one logged scratch size and the line it is on.
type scratchLine struct {
	name string
	m    tail.Metric
}

func scratchOnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// scratchSource is the engine source file the scratch rule reads.
type scratchSource struct {
	File  string   // relative to the snapshot root
	Lines []string // nil when the snapshot has no such file
}

func scratchReadSource(root string) (scratchSource, error) {
	lines, err := readSourceLines(root, ScratchSource)
	if err != nil {
		return scratchSource{File: ScratchSource}, fmt.Errorf("scratch: %w", err)
	}
	return scratchSource{File: ScratchSource, Lines: lines}, nil
}

// readSourceLines reads a source file of the snapshot (rel is relative to
// root, slash-separated) as lines, with CRLF line endings read as LF. A
// file the snapshot does not have gives nil lines and no error: the rules
// report what they could not check. Any other failure (a directory in the
// file's place, a permission error) is an error naming the file.
func readSourceLines(root, rel string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return nil, fmt.Errorf("%s: %w", rel, pe.Err) // the snapshot-relative name
	}
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n"), nil
}

var (
	scratchNeedDef  = regexp.MustCompile(`\bprompt_gemm_need_bytes\w*\s*\([^)]*\)\s*(const\s*)?\{?\s*$`)
	scratchAssert   = regexp.MustCompile(`\bassert\s*\(.*==.*\bprompt_gemm_need_bytes\s*\(|\bassert\s*\(.*\bprompt_gemm_need_bytes\s*\([^)]*\)\s*==`)
	scratchLiteral  = regexp.MustCompile(`\b16\b`)
	scratchComment  = regexp.MustCompile(`//.*$`)
	scratchTMInMake = regexp.MustCompile(`\bTM\b`)
)

// checkScratchSource checks the engine source for the audit's ⚠ (F23): a
// prompt_gemm_need_bytes() that re-derives the sizes with a hard-coded 16
// where make() uses p.TM, with nothing asserting that it equals the measured
// need. An assert(need == prompt_gemm_need_bytes()) passes.
func checkScratchSource(src scratchSource) []finding.Finding {
	f := func(sev finding.Severity, line int, quote, format string, args ...any) []finding.Finding {
		return []finding.Finding{{Rule: "scratch", ID: "F23", Severity: sev, File: src.File, Line: line,
			Quote: quote, Source: src.File, Message: fmt.Sprintf(format, args...)}}
	}
	if src.Lines == nil {
		return f(finding.Warn, 0, "", "%s is not in the snapshot: whether prompt_gemm_need_bytes() can desync from make() is not checked", src.File)
	}
	for i, l := range src.Lines {
		code := scratchComment.ReplaceAllString(l, "")
		if scratchAssert.MatchString(code) {
			return f(finding.Pass, i+1, strings.TrimSpace(l), "%s:%d asserts the measured need equals prompt_gemm_need_bytes(): the plan cannot silently desync from make()", src.File, i+1)
		}
	}
	// prompt_gemm_need_bytes() and the helpers it delegates to
	// (prompt_gemm_need_bytes_for…): the planning path.
	funcs := scratchFuncs(src.Lines, scratchNeedDef)
	if len(funcs) == 0 {
		return f(finding.Warn, 0, "", "%s: no definition of prompt_gemm_need_bytes() and no assert that it equals the measured need", src.File)
	}
	var sixteen, spans []string
	for _, fn := range funcs {
		spans = append(spans, fmt.Sprintf("%d–%d", fn[0]+1, fn[1]+1))
		for i := fn[0]; i <= fn[1]; i++ {
			code := scratchComment.ReplaceAllString(src.Lines[i], "")
			if scratchLiteral.MatchString(code) && !scratchTMInMake.MatchString(code) {
				sixteen = append(sixteen, fmt.Sprintf("L%d", i+1))
			}
		}
	}
	dup := ""
	if len(sixteen) > 0 {
		dup = fmt.Sprintf(", and re-derives the rows with a hard-coded 16 (%s) where the configuration says p.TM", strings.Join(sixteen, ", "))
	}
	start := funcs[0][0]
	return f(finding.Warn, start+1, strings.TrimSpace(src.Lines[start]),
		"prompt_gemm_need_bytes() (%s L%s) is a hand-kept duplicate of make()%s; nothing asserts need == prompt_gemm_need_bytes(), so an edit to make() would silently desync the plan",
		src.File, strings.Join(spans, ", L"), dup)
}

// scratchFuncs returns the 0-based first and last lines of every function
// whose header matches def, by brace depth.
func scratchFuncs(lines []string, def *regexp.Regexp) [][2]int {
	var out [][2]int
	for i := 0; i < len(lines); i++ {
		code := scratchComment.ReplaceAllString(lines[i], "")
		if !def.MatchString(code) || strings.HasSuffix(strings.TrimSpace(code), ";") {
			continue
		}
		end := len(lines) - 1
		depth, opened := 0, false
	body:
		for j := i; j < len(lines); j++ {
			for _, c := range scratchComment.ReplaceAllString(lines[j], "") {
				switch c {
				case '{':
					depth++
					opened = true
				case '}':
					depth--
				}
			}
			if opened && depth <= 0 {
				end = j
				break body
			}
		}
		out = append(out, [2]int{i, end})
		i = end
	}
	return out
}

// scratchRuns reads the strata runs' scratch lines from the parsed log:
// the plan line (prompt_gemm_plan_gb, prompt_gemm_c, prompt_gemm_cells,
// peak_prefill_gb, cap_gb), the prompt_gemm_init line
// (prompt_gemm_init_gb), the mem: line's scratch (mem_scratch_gb) where
// printed, and whether STRATA_METAL_ARENA_GB was set.
func scratchRuns(c *Context) ([]scratchRun, error) {
	if c.Snap == nil {
		return nil, fmt.Errorf("scratch: no snapshot")
	}
	var out []scratchRun
	for _, r := range c.Snap.StrataRuns() {
		ms := c.Metrics[r.Name]
		if ms == nil {
			return nil, fmt.Errorf("scratch: %s: no parsed metrics for run %s", r.Source, r.Name)
		}
		get := func(name string) tail.Metric { m, _ := ms.Get(name); return m }
		_, explicit := r.Env[ArenaEnv]
		out = append(out, scratchRun{
			Name: r.Name, File: r.Source, ExplicitArena: explicit,
			Plan: get("prompt_gemm_plan_gb"), Init: get("prompt_gemm_init_gb"), Mem: get("mem_scratch_gb"),
			Peak: get("peak_prefill_gb"), Cap: get("cap_gb"),
			C: get("prompt_gemm_c"), Cells: get("prompt_gemm_cells"),
		})
	}
	return out, nil
}
