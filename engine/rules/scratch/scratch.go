// Package scratch holds the scratch rule, about the prompt-GEMM scratch:
// the size a run plans for it equals the size it allocates and the need
// the sizing code computes, the planning path is not a hand-kept copy of
// the sizing path, and the cap is enforced.
package scratch

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/arena"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/scratch"
	"github.com/strataspec/strataspec/engine/source"
	"github.com/strataspec/strataspec/engine/tail"
)

// Config is the rule's settings, "rules": {"scratch": {…}} in the spec.
type Config struct {
	// File is the engine source holding the sizing and planning functions.
	File string `json:"file,omitempty"`
	// Sizing names the function that sizes (and allocates) the buffers,
	// Planning the functions that compute the need before any prompt runs.
	Sizing   string   `json:"sizing,omitempty"`
	Planning []string `json:"planning,omitempty"`
	// Need is the configuration the runs were sized at, for scratch.Need;
	// without it the logged sizes are compared with each other only.
	Need *Need `json:"need,omitempty"`
	// ExplicitEnv is the environment variable that makes the arena size
	// explicit, after which the engine only logs its cap check.
	ExplicitEnv string `json:"explicit_env,omitempty"`
}

// Need is a scratch.Config as the spec writes it.
type Need struct {
	C        int    `json:"c"`
	D        int    `json:"d"`
	TM       int    `json:"tm"`
	RowBytes uint64 `json:"row_bytes"`
	Cells    int    `json:"cells,omitempty"`
	PLE      bool   `json:"ple,omitempty"`
	Flash    bool   `json:"flash,omitempty"`
	// Note says where the figures come from (e.g. that row_bytes is fitted
	// to one audited figure); it is for the reader of the spec.
	Note string `json:"note,omitempty"`
}

func (n *Need) config() scratch.Config {
	return scratch.Config{C: n.C, D: n.D, TM: n.TM, RowBytes: arena.Bytes(n.RowBytes), Cells: n.Cells, PLE: n.PLE, Flash: n.Flash}
}

// Scratch is the rule.
var Scratch = &analysis.Analyzer{
	Name:     "scratch",
	Doc:      "prompt-GEMM scratch: plan line = prompt_gemm_init line = need; planning and sizing are one function; the cap is enforced with an explicit arena",
	Fix:      "plan and size the scratch with one function, and enforce the cap",
	Requires: []*analysis.Analyzer{facts.RunMetrics.Analyzer, facts.Sources.Analyzer},
	Metrics:  scratchMetrics,
	Run:      run,
}

// Run is one run that logs a prompt-GEMM scratch size, as the rule reads it.
type Run struct {
	Name string
	File string // the tail's file, as findings name it
	// ExplicitArena is true when the spec's explicit-arena variable is set.
	ExplicitArena bool
	// Plan is the scratch size on the plan line, Init on the
	// prompt_gemm_init line, Mem on the mem: line, in GB; a zero Metric was
	// not logged.
	Plan, Init, Mem tail.Metric
	// Peak and Cap are the peak prefill and the cap the cap check compares.
	Peak, Cap tail.Metric
	// C and Cells are the prompt chunk and KV cells the plan line logs.
	C, Cells tail.Metric
}

func run(p *analysis.Pass) (any, error) {
	var cfg Config
	if _, err := analysis.OptionalSettings(p, &cfg); err != nil {
		return nil, err
	}
	snap := p.Snap
	ms := facts.RunMetrics.Of(p)
	runs := Runs(snap, ms, cfg.ExplicitEnv)
	if len(runs) == 0 && cfg.File == "" {
		return nil, analysis.NoSettings("%s, and no sizing source named in %s (rules.scratch.file)", facts.NoRunWith(scratchMetrics[:2]...), checkout.File)
	}
	var need *scratch.Config
	if cfg.Need != nil {
		c := cfg.Need.config()
		need = &c
	}
	for _, f := range Check(runs, need, cfg.ExplicitEnv) {
		p.Report(f)
	}
	if cfg.File == "" {
		return nil, nil
	}
	if cfg.Sizing == "" || len(cfg.Planning) == 0 {
		spec := p.Spec
		return nil, spec.RuleErrorf("scratch", "\"file\" needs \"sizing\" and \"planning\"")
	}
	srcs := facts.Sources.Of(p)
	f, err := srcs.File(cfg.File)
	if err != nil && !errors.Is(err, facts.ErrAbsent) {
		return nil, err
	}
	p.Report(CheckSource(f, cfg))
	return nil, nil
}

// scratchMetrics are the metrics the scratch rule reads; a run that logs a
// prompt-GEMM plan or init line (the first two) is one it checks.
var scratchMetrics = []string{"prompt_gemm_plan_gb", "prompt_gemm_init_gb", "mem_scratch_gb",
	"peak_prefill_gb", "cap_gb", "prompt_gemm_c", "prompt_gemm_cells"}

// Runs reads the scratch lines of the runs that log a prompt-GEMM scratch
// size, from their parsed logs.
func Runs(snap *archive.Snapshot, ms map[string]*tail.Metrics, explicitEnv string) []Run {
	var out []Run
	for _, r := range facts.RunsWith(snap, ms, scratchMetrics[:2]...) {
		m := ms[r.Name]
		get := func(name string) tail.Metric {
			if m == nil {
				return tail.Metric{}
			}
			v, _ := m.Get(name)
			return v
		}
		_, explicit := r.Env[explicitEnv]
		out = append(out, Run{
			Name: r.Name, File: r.Source, ExplicitArena: explicitEnv != "" && explicit,
			Plan: get("prompt_gemm_plan_gb"), Init: get("prompt_gemm_init_gb"), Mem: get("mem_scratch_gb"),
			Peak: get("peak_prefill_gb"), Cap: get("cap_gb"),
			C: get("prompt_gemm_c"), Cells: get("prompt_gemm_cells"),
		})
	}
	return out
}

// Check checks that every run's plan line and prompt_gemm_init line (and
// mem: line, where printed) print the need of cfg at their precision, or,
// without cfg, the same size; and reports that with an explicit arena the
// cap check only logs.
func Check(runs []Run, cfg *scratch.Config, explicitEnv string) []finding.Finding {
	var out []finding.Finding
	add := func(sev finding.Severity, check string, r Run, m tail.Metric, raw, format string, args ...any) {
		out = append(out, finding.Finding{Severity: sev, Check: check, File: r.File, Line: m.Line,
			Quote: m.Num.Text, Raw: raw, Source: r.Name, Message: fmt.Sprintf(format, args...)})
	}
	if len(runs) == 0 {
		return []finding.Finding{{Severity: finding.Fail, Check: "need", Message: "no run logs a prompt-GEMM scratch size (" + strings.Join(scratchMetrics[:2], ", ") + ")"}}
	}
	var needGB float64
	var needText, what string
	if cfg != nil {
		need, err := scratch.Need(*cfg)
		if err != nil {
			return []finding.Finding{{Severity: finding.Fail, Check: "need", Source: checkout.File, Message: fmt.Sprintf("rules.scratch.need: %v", err)}}
		}
		needGB = need.GBs()
		needText = num.Format(num.Round(needGB, 4), 4)
		what = fmt.Sprintf("need %s GB (C = %s, %s cells, PLE %s, flash %s)", needText,
			num.Format(float64(cfg.C), 0), num.Format(float64(cfg.Cells), 0), onOff(cfg.PLE), onOff(cfg.Flash))
	}
	ok := true
	for _, r := range runs {
		if cfg != nil && ((r.C.Num.Text != "" && r.C.Value() != float64(cfg.C)) || (r.Cells.Num.Text != "" && r.Cells.Value() != float64(cfg.Cells))) {
			ok = false
			add(finding.Warn, "need", r, r.C, needText, "run %s: the plan line logs C = %s, %s cells; the spec's need is for C = %s, %s cells only, so its scratch is not checked",
				r.Name, r.C.Num.Text, r.Cells.Num.Text, num.Format(float64(cfg.C), 0), num.Format(float64(cfg.Cells), 0))
			continue
		}
		lines := []line{{"plan line", r.Plan}, {"prompt_gemm_init line", r.Init}}
		if r.Mem.Num.Text != "" {
			lines = append(lines, line{"mem: line", r.Mem})
		}
		for _, l := range lines {
			switch {
			case l.m.Num.Text == "":
				ok = false
				add(finding.Fail, "need", r, l.m, needText, "run %s: no scratch size on the %s", r.Name, l.name)
			case cfg != nil && !num.Matches(needGB, l.m.Num):
				ok = false
				add(finding.Fail, "need", r, l.m, needText, "run %s: %s scratch %s GB ≠ %s", r.Name, l.name, l.m.Num.Text, what)
			case cfg == nil && r.Plan.Num.Text != "" && !num.Matches(r.Plan.Value(), l.m.Num):
				ok = false
				add(finding.Fail, "need", r, l.m, r.Plan.Num.Text, "run %s: %s scratch %s GB ≠ the plan line's %s GB", r.Name, l.name, l.m.Num.Text, r.Plan.Num.Text)
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
		if cfg != nil {
			add(finding.Pass, "need", r, r.Plan, needText, "plan line %s GB = prompt_gemm_init %s GB = %s, in all %d strata runs%s",
				r.Plan.Num.Text, r.Init.Num.Text, what, len(runs), mem)
		} else {
			add(finding.Pass, "need", r, r.Plan, "", "plan line %s GB = prompt_gemm_init %s GB in all %d strata runs%s; the spec gives no need model (rules.scratch.need), so the need itself is not recomputed",
				r.Plan.Num.Text, r.Init.Num.Text, len(runs), mem)
		}
	}

	var explicit []Run
	for _, r := range runs {
		if r.ExplicitArena {
			explicit = append(explicit, r)
		}
	}
	if len(explicit) > 0 && explicitEnv != "" {
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
		add(sev, "cap", r, r.Peak, r.Cap.Num.Text, "cap check only logs: %s is set in %d of %d strata runs, and with an explicit arena the scratch need is not subtracted from the budget%s",
			explicitEnv, len(explicit), len(runs), margin)
	}
	return out
}

// line is one logged scratch size and the line it is on.
type line struct {
	name string
	m    tail.Metric
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

var (
	// roundUpLitRE matches a round-up to a multiple of a literal:
	// ((x + 16 - 1) / 16) * 16 or (x + 16 - 1) / 16 * 16.
	roundUpLitRE = regexp.MustCompile(`\+\s*([0-9]+)\s*-\s*1\s*\)\s*/\s*([0-9]+)\s*\)?\s*\*\s*([0-9]+)`)
	// roundUpFieldRE matches a round-up to a multiple of a parameter:
	// ((C + p.TM - 1) / p.TM) * p.TM.
	roundUpFieldRE = regexp.MustCompile(`\+\s*([A-Za-z_][A-Za-z0-9_]*(?:\.|->)[A-Za-z_][A-Za-z0-9_]*)\s*-\s*1\s*\)\s*/`)
)

// CheckSource checks the engine source for a planning path that is a
// hand-kept copy of the sizing path (audit §2 ⚠): the planning functions
// re-derive the sizes (with a literal tile where the sizing function reads
// a parameter) and nothing asserts that the planned need equals the
// measured one. An assertion comparing with a call of a planning function,
// anywhere in the file, passes. f is nil when the file is absent.
func CheckSource(f *source.File, cfg Config) finding.Finding {
	plan := cfg.Planning[0]
	sizing := cfg.Sizing
	if i := strings.LastIndex(sizing, "::"); i >= 0 {
		sizing = sizing[i+2:]
	}
	fd := func(sev finding.Severity, line int, quote, format string, args ...any) finding.Finding {
		return finding.Finding{Severity: sev, Check: "mirror", File: cfg.File, Line: line,
			Quote: quote, Source: cfg.File, Message: fmt.Sprintf(format, args...)}
	}
	if f == nil {
		return fd(finding.Warn, 0, "", "%s is not in the snapshot: whether %s() can desync from %s() is not checked", cfg.File, plan, sizing)
	}
	for i, code := range f.Code {
		if !strings.Contains(code, "assert") || !strings.Contains(code, "==") {
			continue
		}
		for _, name := range cfg.Planning {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*\(`).MatchString(code) {
				return fd(finding.Pass, i+1, strings.TrimSpace(f.Lines[i]), "%s:%d asserts the measured need equals %s(): the plan cannot silently desync from %s()", cfg.File, i+1, name, sizing)
			}
		}
	}
	var funcs []source.Func
	for _, name := range cfg.Planning {
		funcs = append(funcs, f.FuncsNamed(name)...)
	}
	if len(funcs) == 0 {
		return fd(finding.Warn, 0, "", "%s: no definition of %s() and no assert that it equals the measured need", cfg.File, plan)
	}
	field := ""
	for _, fn := range f.FuncsNamed(cfg.Sizing) {
		for l := fn.Start; l <= fn.End && field == ""; l++ {
			if m := roundUpFieldRE.FindStringSubmatch(f.Code[l-1]); m != nil {
				field = m[1]
			}
		}
	}
	var lits, spans []string
	lit := ""
	for _, fn := range funcs {
		spans = append(spans, fmt.Sprintf("%d–%d", fn.Start, fn.End))
		for l := fn.Start; l <= fn.End; l++ {
			if m := roundUpLitRE.FindStringSubmatch(f.Code[l-1]); m != nil && m[1] == m[2] && m[2] == m[3] {
				lits = append(lits, fmt.Sprintf("L%d", l))
				lit = m[1]
			}
		}
	}
	dup := ""
	if len(lits) > 0 {
		dup = fmt.Sprintf(", and re-derives the rows with a hard-coded %s (%s)", lit, strings.Join(lits, ", "))
		if field != "" {
			dup += " where the configuration says " + field
		}
	}
	start := funcs[0].Start
	return fd(finding.Warn, start, strings.TrimSpace(f.Lines[start-1]),
		"%s() (%s L%s) is a hand-kept duplicate of %s()%s; nothing asserts need == %s(), so an edit to %s() would silently desync the plan",
		plan, cfg.File, strings.Join(spans, ", L"), sizing, dup, plan, sizing)
}
