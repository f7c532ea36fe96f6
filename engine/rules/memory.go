package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/scratch"
	"github.com/strataspec/strataspec/engine/tail"
)

// MinAvailWarnGiB is the min_avail below which a run is reported as having
// run under memory pressure: its timings may include paging.
const MinAvailWarnGiB = 1.0

// XNUBillingCaveat is the caveat id that labels PLAN's claim about what XNU
// bills for the prompt scratch as a hypothesis (audit §2 ⚠, F25).
const XNUBillingCaveat = "xnu-billing-hypothesis"

// xnuClaim is the text of that claim, matched case-insensitively.
const xnuClaim = "xnu bills only"

func init() {
	Register(Rule{
		Name:  "memory",
		Doc:   "runner memory lines (swapout 0, min_avail) in every run; prompt_region(false) pairs in every strata tail; XNU billing claim labelled a hypothesis",
		Check: checkMemory,
	})
}

func checkMemory(c *Context) ([]finding.Finding, error) {
	var out []finding.Finding
	out = append(out, memorySwapAvail(c)...)
	out = append(out, memoryPromptRegion(c)...)
	fs, err := memoryXNU(c)
	if err != nil {
		return nil, err
	}
	return append(out, fs...), nil
}

func memorySwapAvail(c *Context) []finding.Finding {
	resultsFile := c.Snap.ResultsFile
	var out []finding.Finding
	fail := func(sev finding.Severity, file string, line int, quote, format string, args ...any) {
		out = append(out, finding.Finding{Rule: "memory", ID: "F07", Severity: sev, File: file, Line: line, Quote: quote, Message: fmt.Sprintf(format, args...)})
	}
	var lo, hi tail.Metric
	n, bad := 0, 0
	for _, r := range c.Snap.Runs {
		ms := c.Metrics[r.Name]
		sw, ok1 := ms.Get(tail.SwapoutMiB)
		av, ok2 := ms.Get(tail.MinAvailGiB)
		if !ok1 || !ok2 {
			fail(finding.Fail, r.Source, 0, "", "run %s: the tail has no runner swapout or min_avail line", r.Name)
			bad++
			continue
		}
		if sw.Value() != 0 {
			fail(finding.Fail, r.Source, sw.Line, tailLine(r.Tail, sw.Line), "run %s swapped: %s MiB swapout (want 0.0)", r.Name, sw.Num.Text)
			bad++
		}
		if av.Value() < MinAvailWarnGiB {
			fail(finding.Warn, r.Source, av.Line, tailLine(r.Tail, av.Line), "run %s: min_avail %s GiB is below %.1f GiB: its timings may include memory pressure", r.Name, av.Num.Text, MinAvailWarnGiB)
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
		out = append(out, finding.Finding{Rule: "memory", ID: "F07", Severity: finding.Pass, File: resultsFile,
			Raw: fmt.Sprintf("%s–%s GiB", lo.Num.Text, hi.Num.Text), Source: fmt.Sprintf("%d runs", n),
			Message: fmt.Sprintf("0.0 MiB swapout in all %d runs; min_avail %s–%s GiB", n, lo.Num.Text, hi.Num.Text)})
	}
	return out
}

func memoryPromptRegion(c *Context) []finding.Finding {
	resultsFile := c.Snap.ResultsFile
	var out []finding.Finding
	strata := c.Snap.StrataRuns()
	bad := 0
	var prefill []string
	for _, r := range strata {
		ms := c.Metrics[r.Name]
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
			out = append(out, finding.Finding{Rule: "memory", ID: "F22", Severity: finding.Fail, File: r.Source,
				Message: fmt.Sprintf("run %s: no prompt_region(false) line with phys_footprint and resident_size before and after", r.Name)})
			bad++
			continue
		}
		pair := fmt.Sprintf("phys_footprint %s → %s, resident_size %s → %s GB", v[0].Num.Text, v[1].Num.Text, v[2].Num.Text, v[3].Num.Text)
		if v[1].Value() > v[0].Value() || v[3].Value() > v[2].Value() {
			out = append(out, finding.Finding{Rule: "memory", ID: "F22", Severity: finding.Warn, File: r.Source, Line: v[0].Line,
				Quote: tailLine(r.Tail, v[0].Line), Message: fmt.Sprintf("run %s: releasing the prompt region grew the process: %s", r.Name, pair)})
		}
		if pt, ok := ms.Get(tail.PrefillTokens); ok && pt.Value() >= 1024 {
			prefill = append(prefill, fmt.Sprintf("%s-tok run %s → %s and %s → %s", num.Format(pt.Value(), 0), v[0].Num.Text, v[1].Num.Text, v[2].Num.Text, v[3].Num.Text))
		}
	}
	if bad == 0 && len(strata) > 0 {
		msg := fmt.Sprintf("prompt_region(false) logs both proc_mem pairs (phys_footprint, resident_size) in all %d strata tails", len(strata))
		if len(prefill) > 0 {
			msg += "; " + strings.Join(prefill, "; ")
		}
		out = append(out, finding.Finding{Rule: "memory", ID: "F22", Severity: finding.Pass, File: resultsFile, Message: msg})
	}
	return out
}

// memoryXNU checks that PLAN labels its XNU billing claim a hypothesis.
func memoryXNU(c *Context) ([]finding.Finding, error) {
	if c.Snap.FS == nil || !c.Snap.FS.Exists(PlanFile) {
		return nil, nil // no plan: nothing claimed
	}
	v, err := c.Memo("plan.doc", func() (any, error) {
		b, err := c.Snap.ReadFile(PlanFile)
		if err != nil {
			return nil, err
		}
		return plan.Parse(PlanFile, b), nil
	})
	if err != nil {
		return nil, err
	}
	doc, ok := v.(*plan.Doc)
	if !ok {
		return nil, fmt.Errorf("memory: PLAN.md memo holds %T", v)
	}
	b, err := scratch.CPUFaulted(scratch.M5())
	if err != nil {
		return nil, fmt.Errorf("memory: p.R + p.emb of the audited configuration: %w", err)
	}
	faulted := num.Format(b.GBs(), 3)
	rss := residentDrop(c)
	var out []finding.Finding
	for _, l := range doc.Lines {
		if indexFold(l.Text, xnuClaim) < 0 {
			continue
		}
		place := doc.Place(l.N)
		quote := strings.TrimSpace(l.Text)
		if cv, ok := doc.Caveat(XNUBillingCaveat, place); ok {
			out = append(out, finding.Finding{Rule: "memory", ID: "F25", Severity: finding.Pass, File: PlanFile, Line: l.N, Quote: quote,
				Source:  fmt.Sprintf("PLAN.md:%d caveat (%s)", cv.Line, XNUBillingCaveat),
				Message: fmt.Sprintf("%s: the XNU billing mechanism is labelled a hypothesis (caveat at line %d)", placeOr(place), cv.Line)})
			continue
		}
		out = append(out, finding.Finding{Rule: "memory", ID: "F25", Severity: finding.Warn, File: PlanFile, Line: l.N, Quote: quote,
			Raw: fmt.Sprintf("p.R + p.emb = %s GB; resident_size drop %s", faulted, rss), Source: "scratch.CPUFaulted, prompt_region(false) lines",
			Message: fmt.Sprintf("%s: %q is a hypothesis, not a measurement (p.R + p.emb = %s GB, but resident_size also drops only %s: the scratch was never resident by either metric); label it with a `> **Caveat** (%s): …` line in this section, or measure it with vmmap/footprint",
				placeOr(place), xnuClaimText(l.Text), faulted, rss, XNUBillingCaveat)})
	}
	return out, nil
}

func placeOr(p string) string {
	if p == "" {
		return PlanFile
	}
	return p
}

// xnuClaimText returns the claim's clause from a PLAN line that contains
// it (see indexFold), at most 80 runes.
func xnuClaimText(line string) string {
	i := indexFold(line, xnuClaim)
	if i < 0 {
		return ""
	}
	s := line[i:]
	if j := strings.IndexAny(s, ".;)"); j > 0 && !strings.Contains(s[:j], "~0") {
		s = s[:j]
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return strings.TrimSpace(s)
}

// indexFold returns the byte index in s of the first match of the ASCII
// text sub, ignoring ASCII case, or -1. Unlike an index into
// strings.ToLower(s), the index is s's own: lowering can change the byte
// length of non-ASCII text before the match.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if asciiEqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

func asciiEqualFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// residentDrop describes the resident_size drop across prompt_region(false)
// in the prefill runs, e.g. "0.05 GB (7.65 → 7.60)".
func residentDrop(c *Context) string {
	for _, r := range c.Snap.StrataRuns() {
		ms := c.Metrics[r.Name]
		pt, ok := ms.Get(tail.PrefillTokens)
		if !ok || pt.Value() < 1024 {
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
