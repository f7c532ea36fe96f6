// Package memory holds the memory rule: swapout and min_avail in every
// run, prompt_region(false) pairs, and the plan's hypotheses the
// checkout's spec names ("rules": {"memory": …}) labelled as such.
package memory

import (
	"fmt"
	"math"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/arena"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/scratch"
	"github.com/strataspec/strataspec/engine/tail"
)

// Memory checks the runner's memory lines in every run, the prompt
// region's release in every run that logs an expert arena, and that the plan labels the
// memory hypotheses the spec names.
var Memory = &analysis.Analyzer{
	Name:     "memory",
	Doc:      "runner memory lines (swapout 0, min_avail) in every run; prompt_region(false) pairs in every tail that logs an expert arena; the plan's memory hypotheses labelled",
	Fix:      "log swapout and min_avail in every run, and label unmeasured memory claims as hypotheses",
	Requires: []*analysis.Analyzer{facts.RunMetrics.Analyzer},
	Uses:     []*analysis.Analyzer{facts.Plan.Analyzer},
	Metrics: []string{tail.SwapoutMiB, tail.MinAvailGiB, tail.PrefillTokens, "arena_gb",
		tail.PhysFootprintBeforeGB, tail.PhysFootprintAfterGB, tail.ResidentSizeBeforeGB, tail.ResidentSizeAfterGB},
	Run: runMemory,
}

// MemorySettings are the memory rule's settings ("rules": {"memory": …}).
type MemorySettings struct {
	// MinAvailWarnGiB is the min_avail below which a run is reported as
	// having run under memory pressure: its timings may include paging.
	MinAvailWarnGiB float64 `json:"min_avail_warn_gib"`
	// PrefillTokens is the prompt length from which a run is a prefill run,
	// whose prompt-region release the pass finding quotes.
	PrefillTokens float64 `json:"prefill_tokens"`
	// Hypotheses are claims the plan may make only with a caveat.
	Hypotheses []Hypothesis `json:"hypotheses,omitempty"`
	// Scratch is the prompt scratch configuration of the runs, for the
	// "scratch-residency" evidence (engine/scratch).
	Scratch *ScratchConfig `json:"scratch,omitempty"`
}

// ScratchConfig is a scratch.Config as the spec writes it.
type ScratchConfig struct {
	C        int    `json:"c"`
	D        int    `json:"d"`
	TM       int    `json:"tm"`
	RowBytes uint64 `json:"row_bytes"`
	Cells    int    `json:"cells"`
	PLE      bool   `json:"ple"`
	Flash    bool   `json:"flash"`
}

func (c ScratchConfig) config() scratch.Config {
	return scratch.Config{C: c.C, D: c.D, TM: c.TM, RowBytes: arena.Bytes(c.RowBytes), Cells: c.Cells, PLE: c.PLE, Flash: c.Flash}
}

// Hypothesis is a claim the plan states that no run measures: a line
// that renders Phrase (case ignored; plan.Doc.Find) needs the caveat
// Caveat in its section.
type Hypothesis struct {
	Phrase string `json:"phrase"`
	Caveat string `json:"caveat"`
	// Subject names what the claim is about in the pass finding, e.g.
	// "the XNU billing mechanism".
	Subject string `json:"subject"`
	// Measure says how the claim could be measured instead.
	Measure string `json:"measure,omitempty"`
	// Evidence names a measurement the warning quotes against the claim:
	// "scratch-residency" (the CPU-faulted part of the prompt scratch of
	// the settings' Scratch configuration, and the resident_size drop across
	// prompt_region(false)), or "" for none.
	Evidence string `json:"evidence,omitempty"`
}

// evidenceScratch is the one evidence kind the rule computes.
const evidenceScratch = "scratch-residency"

func (s MemorySettings) Validate(spec *checkout.Spec) error {
	if s.MinAvailWarnGiB < 0 || s.PrefillTokens < 0 {
		return spec.RuleErrorf("memory", `"min_avail_warn_gib" and "prefill_tokens" must not be below 0`)
	}
	for _, h := range s.Hypotheses {
		if h.Phrase == "" || h.Caveat == "" || h.Subject == "" {
			return spec.RuleErrorf("memory", `a hypothesis needs "phrase", "caveat" and "subject"`)
		}
		if h.Evidence != "" && h.Evidence != evidenceScratch {
			return spec.RuleErrorf("memory", "hypothesis %q: unknown evidence %q (known: %s)", h.Phrase, h.Evidence, evidenceScratch)
		}
		if h.Evidence == evidenceScratch {
			if s.Scratch == nil {
				return spec.RuleErrorf("memory", "hypothesis %q: evidence %s needs \"scratch\", the runs' scratch configuration", h.Phrase, evidenceScratch)
			}
			if _, err := scratch.CPUFaulted(s.Scratch.config()); err != nil {
				return spec.RuleErrorf("memory", "scratch: %v", err)
			}
		}
	}
	return nil
}

func runMemory(p *analysis.Pass) (any, error) {
	var cfg MemorySettings
	if err := analysis.Settings(p, "memory", "memory settings", &cfg); err != nil {
		return nil, err
	}
	snap := p.Snap
	ms := facts.RunMetrics.Of(p)
	m := &memory{snap: snap, ms: ms, cfg: cfg}
	p.ReportAll(m.swapAvail())
	p.ReportAll(m.promptRegion())
	if len(cfg.Hypotheses) == 0 {
		return nil, nil
	}
	doc, ok := facts.Plan.Lookup(p)
	if !ok {
		return nil, nil // no plan: nothing claimed
	}
	fs, err := m.hypotheses(doc)
	if err != nil {
		return nil, err
	}
	p.ReportAll(fs)
	return nil, nil
}

type memory struct {
	snap *archive.Snapshot
	ms   map[string]*tail.Metrics
	cfg  MemorySettings
}

func (c *memory) swapAvail() []finding.Finding {
	var out []finding.Finding
	add := func(sev finding.Severity, file string, line int, quote, format string, args ...any) {
		out = append(out, finding.Finding{Severity: sev, Check: "swap", File: file, Line: line, Quote: quote, Message: fmt.Sprintf(format, args...)})
	}
	var lo, hi tail.Metric
	n, bad := 0, 0
	for _, r := range c.snap.Runs {
		ms := c.ms[r.Name]
		sw, ok1 := ms.Get(tail.SwapoutMiB)
		av, ok2 := ms.Get(tail.MinAvailGiB)
		if !ok1 || !ok2 {
			add(finding.Fail, r.Source, 0, "", "run %s has no swapout_mib or min_avail_gib (the runner's vm_stat and min_avail lines, or record fields)", r.Name)
			bad++
			continue
		}
		if sw.Value() != 0 {
			file, line, quote := facts.Where(r, sw)
			add(finding.Fail, file, line, quote, "run %s swapped: %s MiB swapout (want 0.0)", r.Name, sw.Num.Text)
			bad++
		}
		if av.Value() < c.cfg.MinAvailWarnGiB {
			file, line, quote := facts.Where(r, av)
			add(finding.Warn, file, line, quote, "run %s: min_avail %s GiB is below %.1f GiB: its timings may include memory pressure", r.Name, av.Num.Text, c.cfg.MinAvailWarnGiB)
		}
		if n == 0 || av.Value() < lo.Value() {
			lo = av
		}
		if n == 0 || av.Value() > hi.Value() {
			hi = av
		}
		n++
	}
	if n > 0 && bad == 0 {
		out = append(out, finding.Finding{Severity: finding.Pass, Check: "swap", File: c.snap.ResultsFile,
			Raw: fmt.Sprintf("%s–%s GiB", lo.Num.Text, hi.Num.Text), Source: fmt.Sprintf("%d runs", n),
			Message: fmt.Sprintf("0.0 MiB swapout in all %d runs; min_avail %s–%s GiB", n, lo.Num.Text, hi.Num.Text)})
	}
	return out
}

// prefill reports whether a run's prompt makes it a prefill run.
func (c *memory) prefill(ms *tail.Metrics) (tail.Metric, bool) {
	pt, ok := ms.Get(tail.PrefillTokens)
	return pt, ok && c.cfg.PrefillTokens > 0 && pt.Value() >= c.cfg.PrefillTokens
}

func (c *memory) promptRegion() []finding.Finding {
	var out []finding.Finding
	pr := tail.PromptRegion()
	strata := facts.RunsWith(c.snap, c.ms, append([]string{"arena_gb"}, pr[:]...)...)
	bad := 0
	var prefill []string
	for _, r := range strata {
		ms := c.ms[r.Name]
		var v [4]tail.Metric
		missing := false
		for i, name := range tail.PromptRegion() {
			m, ok := ms.Get(name)
			if !ok {
				missing = true
			}
			v[i] = m
		}
		if missing {
			out = append(out, finding.Finding{Severity: finding.Fail, Check: "prompt_region", File: r.Source,
				Message: fmt.Sprintf("run %s: no prompt_region(false) line with phys_footprint and resident_size before and after", r.Name)})
			bad++
			continue
		}
		pair := fmt.Sprintf("phys_footprint %s → %s, resident_size %s → %s GB", v[0].Num.Text, v[1].Num.Text, v[2].Num.Text, v[3].Num.Text)
		if v[1].Value() > v[0].Value() || v[3].Value() > v[2].Value() {
			out = append(out, finding.Finding{Severity: finding.Warn, Check: "prompt_region", File: r.Source, Line: v[0].Line,
				Quote: r.TailLine(v[0].Line), Message: fmt.Sprintf("run %s: releasing the prompt region grew the process: %s", r.Name, pair)})
		}
		if pt, ok := c.prefill(ms); ok {
			prefill = append(prefill, fmt.Sprintf("%s-tok run %s → %s and %s → %s", num.Format(pt.Value(), 0), v[0].Num.Text, v[1].Num.Text, v[2].Num.Text, v[3].Num.Text))
		}
	}
	if bad == 0 && len(strata) > 0 {
		msg := fmt.Sprintf("prompt_region(false) logs both proc_mem pairs (phys_footprint, resident_size) in all %d tails that log an expert arena", len(strata))
		if len(prefill) > 0 {
			msg += "; " + strings.Join(prefill, "; ")
		}
		out = append(out, finding.Finding{Severity: finding.Pass, Check: "prompt_region", File: c.snap.ResultsFile, Message: msg})
	}
	return out
}

// hypotheses checks that the plan labels each hypothesis it states.
func (c *memory) hypotheses(doc *plan.Doc) ([]finding.Finding, error) {
	var out []finding.Finding
	for _, h := range c.cfg.Hypotheses {
		var raw, source, evidence string
		if h.Evidence == evidenceScratch {
			b, err := scratch.CPUFaulted(c.cfg.Scratch.config())
			if err != nil {
				return nil, fmt.Errorf("memory: the CPU-faulted scratch: %w", err)
			}
			faulted := num.Format(b.GBs(), 3)
			rss := c.residentDrop()
			raw = fmt.Sprintf("p.R + p.emb = %s GB; resident_size drop %s", faulted, rss)
			source = "scratch.CPUFaulted, prompt_region(false) lines"
			evidence = fmt.Sprintf(" (p.R + p.emb = %s GB, but resident_size also drops only %s: the scratch was never resident by either metric)", faulted, rss)
		}
		measure := ""
		if h.Measure != "" {
			measure = ", or measure it with " + h.Measure
		}
		for _, fd := range doc.Find(h.Phrase) {
			l := fd.Line
			place := doc.Place(l.N)
			where := place
			if where == "" {
				where = doc.File
			}
			quote := strings.TrimSpace(l.Text)
			if cv, ok := doc.Caveat(h.Caveat, place); ok {
				out = append(out, finding.Finding{Severity: finding.Pass, Check: "hypothesis", File: doc.File, Line: l.N, Quote: quote,
					Source:  fmt.Sprintf("%s:%d caveat (%s)", doc.File, cv.Line, h.Caveat),
					Message: fmt.Sprintf("%s: %s is labelled a hypothesis (caveat at line %d)", where, h.Subject, cv.Line)})
				continue
			}
			out = append(out, finding.Finding{Severity: finding.Warn, Check: "hypothesis", File: doc.File, Line: l.N, Quote: quote,
				Raw: raw, Source: source,
				Message: fmt.Sprintf("%s: %q is a hypothesis, not a measurement%s; label it with a `> **Caveat** (%s): …` line in this section%s",
					where, fd.Clause(80), evidence, h.Caveat, measure)})
		}
	}
	return out, nil
}

// residentDrop describes the resident_size drop across prompt_region(false)
// in the first prefill run, e.g. "0.05 GB (7.65 → 7.60)".
func (c *memory) residentDrop() string {
	pr := tail.PromptRegion()
	for _, r := range facts.RunsWith(c.snap, c.ms, pr[:]...) {
		ms := c.ms[r.Name]
		if _, ok := c.prefill(ms); !ok {
			continue
		}
		b, ok1 := ms.Get(tail.ResidentSizeBeforeGB)
		a, ok2 := ms.Get(tail.ResidentSizeAfterGB)
		if ok1 && ok2 {
			d := max(a.Num.Decimals, b.Num.Decimals)
			return fmt.Sprintf("%s GB (%s → %s)", num.Format(math.Abs(b.Value()-a.Value()), d), b.Num.Text, a.Num.Text)
		}
	}
	return "unknown"
}
