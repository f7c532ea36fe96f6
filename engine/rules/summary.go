package rules

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// Runs the summary rule names findings after (audit §1a).
const (
	// SummaryFlagship is the run whose perf carries the 44 derived fields
	// and the memory line's four (F02).
	SummaryFlagship = "strata_metal_optimized_k256_q2_0_moce085"
	// SummaryMoCE0 is the 43-token MoCE=0 run whose perf block and
	// summary_comparison row the audit found exact (F03).
	SummaryMoCE0 = "strata_q2_0_moce0_short_43tok"
)

// pureGPUTolerance is how far the runner's pure_gpu may be from the
// independent T1 GPU − host wait: the runner rounds it to 2 dp.
const pureGPUTolerance = 0.005

func init() {
	Register(Rule{
		Name:  "summary",
		Doc:   "the runner's perf dicts and summary_comparison equal an independent parse of the tails (pure_gpu within 2-dp rounding)",
		Check: checkSummary,
	})
}

// summaryID is the audit finding a run's perf check reproduces.
func summaryID(run string) string {
	switch run {
	case SummaryFlagship:
		return "F02"
	case SummaryMoCE0:
		return "F03"
	}
	return "F01"
}

// tailErrorFindings turns every parse error of every run's tail into a fail
// finding at the tail's file and line.
func tailErrorFindings(c *Context, rule, id string) []finding.Finding {
	var out []finding.Finding
	for _, r := range c.Snap.Runs {
		ms := c.Metrics[r.Name]
		if ms == nil {
			out = append(out, finding.Finding{Rule: rule, ID: id, Severity: finding.Fail, File: r.Source,
				Message: fmt.Sprintf("run %s: its tail was not parsed", r.Name)})
			continue
		}
		for _, e := range ms.Errors {
			out = append(out, finding.Finding{Rule: rule, ID: id, Severity: finding.Fail, File: r.Source, Line: e.Line,
				Quote: tailLine(r.Tail, e.Line), Source: r.Name,
				Message: fmt.Sprintf("run %s: tail line %d: %s", r.Name, e.Line, e.Msg)})
		}
	}
	return out
}

// tailLine returns line n (1-based) of a tail, or "".
func tailLine(text string, n int) string {
	if n < 1 {
		return ""
	}
	lines := strings.SplitN(text, "\n", n+1)
	if n > len(lines) {
		return ""
	}
	return strings.TrimSuffix(lines[n-1], "\r")
}

// fieldEqual compares a runner value with the parsed metric: equal values,
// or for pure_gpu within the runner's 2-dp rounding.
func fieldEqual(name string, runner archive.Field, m tail.Metric) (ok, rounded bool) {
	if runner.Null {
		return false, false
	}
	a, b := runner.Value(), m.Value()
	if a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) {
		return true, false
	}
	if name == tail.PureGPUMsPerTok && math.Abs(a-b) <= pureGPUTolerance+1e-9 {
		return true, true
	}
	return false, false
}

func checkSummary(c *Context) ([]finding.Finding, error) {
	resultsFile := c.Snap.ResultsFile
	out := tailErrorFindings(c, "summary", "F01")
	snap := c.Snap
	strata := snap.StrataRuns()
	bad := 0
	for _, r := range strata {
		id := summaryID(r.Name)
		perf := snap.Perf[r.Name]
		if perf == nil {
			bad++
			out = append(out, finding.Finding{Rule: "summary", ID: id, Severity: finding.Fail, File: resultsFile,
				Source: r.Name, Message: fmt.Sprintf("run %s has no perf dict", r.Name)})
			continue
		}
		fs, n := comparePerf(c, r, perf, "perf."+r.Name, id)
		out = append(out, fs...)
		if n > 0 {
			bad++
			continue
		}
		out = append(out, perfPass(c, r, perf, id))
	}
	// summary_comparison rows equal perf and the tails.
	rowsBad := 0
	var rows []*archive.Row
	rows = append(append(rows, snap.Summary.Speed43...), snap.Summary.Prefill...)
	for _, row := range rows {
		r := snap.Run(row.Run)
		if r == nil {
			continue // the loader checked the name
		}
		fs, n := comparePerf(c, r, &row.Dict, row.Path, summaryID(row.Run))
		out = append(out, fs...)
		rowsBad += n
		if row.Run == SummaryMoCE0 && n == 0 {
			out = append(out, finding.Finding{Rule: "summary", ID: "F03", Severity: finding.Pass, File: resultsFile, Line: row.Line,
				Source: r.Source, Message: fmt.Sprintf("summary_comparison row of %s: %d fields exact against the tail", row.Run, len(row.Fields))})
		}
	}
	if bad == 0 && len(strata) > 0 {
		out = append(out, finding.Finding{Rule: "summary", ID: "F01", Severity: finding.Pass, File: resultsFile,
			Message: fmt.Sprintf("perf dicts of all %d strata runs equal the independent parse (pure_gpu differs by 2-dp rounding only)", len(strata))})
	}
	if rowsBad == 0 && len(rows) > 0 {
		out = append(out, finding.Finding{Rule: "summary", ID: "F01", Severity: finding.Pass, File: resultsFile,
			Line: snapRowLine(rows), Message: fmt.Sprintf("summary_comparison: 0 mismatches in %d rows against the raw runs", len(rows))})
	}
	return out, nil
}

func snapRowLine(rows []*archive.Row) int {
	if len(rows) == 0 {
		return 0
	}
	return rows[0].Line
}

// comparePerf compares every field of a runner dict with the run's parsed
// tail and returns the mismatches as fail findings.
func comparePerf(c *Context, r *archive.Run, d *archive.Dict, path, id string) ([]finding.Finding, int) {
	resultsFile := c.Snap.ResultsFile
	ms := c.Metrics[r.Name]
	var out []finding.Finding
	for _, f := range d.Fields {
		m, ok := ms.Get(f.Name)
		if !ok {
			out = append(out, finding.Finding{Rule: "summary", ID: id, Severity: finding.Fail, File: resultsFile, Line: f.Line,
				Quote: f.Num.Text, Source: r.Source,
				Message: fmt.Sprintf("%s.%s = %s, but the tail of run %s prints no %s", path, f.Name, f.Num.Text, r.Name, f.Name)})
			continue
		}
		if eq, _ := fieldEqual(f.Name, f, m); !eq {
			out = append(out, finding.Finding{Rule: "summary", ID: id, Severity: finding.Fail, File: resultsFile, Line: f.Line,
				Quote: f.Num.Text, Raw: m.Num.Text, Source: fmt.Sprintf("%s line %d", r.Source, m.Line),
				Message: fmt.Sprintf("run %s field %s: runner %s = %s, tail line %d prints %s", r.Name, f.Name, path, showField(f), m.Line, m.Num.Text)})
		}
	}
	return out, len(out)
}

func showField(f archive.Field) string {
	if f.Null {
		return "null"
	}
	return f.Num.Text
}

// perfPass is the pass finding of a run whose perf equals its tail.
func perfPass(c *Context, r *archive.Run, perf *archive.Dict, id string) finding.Finding {
	resultsFile := c.Snap.ResultsFile
	ms := c.Metrics[r.Name]
	var notes []string
	if f, ok := perf.Get(tail.PureGPUMsPerTok); ok {
		m, _ := ms.Get(tail.PureGPUMsPerTok)
		if _, rounded := fieldEqual(f.Name, f, m); rounded {
			notes = append(notes, fmt.Sprintf("pure_gpu %s vs %s: 2-dp rounding", f.Num.Text, m.Num.Text))
		}
	}
	msg := fmt.Sprintf("perf.%s: %d fields equal the tail", r.Name, len(perf.Fields))
	if id == "F02" {
		var mem []string
		derivedN := 0
		for _, f := range perf.Fields {
			if strings.HasPrefix(f.Name, "mem_") {
				mem = append(mem, strings.TrimSuffix(strings.TrimPrefix(f.Name, "mem_"), "_gb")+" "+numText(ms, f))
			} else {
				derivedN++
			}
		}
		msg = fmt.Sprintf("perf.%s: all %d derived fields equal the raw", r.Name, derivedN)
		if len(mem) > 0 {
			msg += fmt.Sprintf("; %s equal the mem: line", strings.Join(mem, ", "))
		}
	}
	if id == "F03" {
		msg = fmt.Sprintf("perf.%s (43-tok MoCE=0): %d fields exact against the tail", r.Name, len(perf.Fields))
	}
	if len(notes) > 0 {
		sort.Strings(notes)
		msg += " (" + strings.Join(notes, "; ") + ")"
	}
	return finding.Finding{Rule: "summary", ID: id, Severity: finding.Pass, File: resultsFile, Line: perf.Line, Source: r.Source, Message: msg}
}

// numText returns the tail's printed text of a field's metric, or the
// runner's text when the tail has none.
func numText(ms *tail.Metrics, f archive.Field) string {
	if m, ok := ms.Get(f.Name); ok {
		return m.Num.Text
	}
	return f.Num.Text
}

// printed formats v at the precision of n, with thousands separators.
func printed(v float64, n num.Number) string {
	return num.Format(v, n.Decimals)
}
