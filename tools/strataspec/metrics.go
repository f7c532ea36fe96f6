package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/tail"
)

// The -metrics listing: every metric of every run, as the parsers read it
// from the tails: the input a user needs to write claims rows
// (RUN:METRIC). Text is a table with the columns run, metric, value,
// printed text, unit and tail line; -format json prints
//
//	{"root": "...", "runs": [{"run", "source", "metrics": [{"name",
//	"value", "text", "unit", "line", "samples"}], "errors": ["..."]}]}
//
// with value null where the printed value is not finite (inf, nan).

// metricsRun is one run's listing.
type metricsRun struct {
	Run     string         `json:"run"`
	Source  string         `json:"source"`
	Metrics []metricsEntry `json:"metrics"`
	Errors  []string       `json:"errors,omitempty"`
}

type metricsEntry struct {
	Name    string    `json:"name"`
	Value   *float64  `json:"value"`
	Text    string    `json:"text"`
	Unit    string    `json:"unit"`
	Line    int       `json:"line"`
	Samples []float64 `json:"samples,omitempty"`
}

// listMetrics prints the metrics of the named runs (every run, then every
// record beside the results, when names is empty) of the snapshot at root,
// and returns how many parse errors it listed with them: an output with a
// malformed metric line is not read in full, so the caller exits non-zero.
//
// It also returns the claims rows the audit fails for their own mistake
// (badRows): -metrics is where their runs and metrics are looked up.
func listMetrics(stdout io.Writer, root, format string, names []string) (nerr int, bad []string, err error) {
	if format != "text" && format != "json" {
		return 0, nil, fmt.Errorf("-metrics prints -format text or json, not %q", format)
	}
	ctx, err := audit.Load(root)
	if err != nil {
		return 0, nil, err
	}
	if bad, _, err = badRows(ctx); err != nil {
		return 0, nil, err
	}
	if len(names) == 0 {
		for _, r := range ctx.Snap.Runs {
			names = append(names, r.Name)
		}
		var records []string
		for k := range ctx.Metrics {
			if ctx.Snap.Run(k) == nil {
				records = append(records, k)
			}
		}
		slices.Sort(records)
		names = append(names, records...)
	}
	var out []metricsRun
	for _, name := range names {
		ms, ok := ctx.Metrics[name]
		if !ok {
			return 0, nil, fmt.Errorf("no run %q in %s (-metrics without names lists every run)", name, root)
		}
		out = append(out, listing(name, ms))
	}
	for _, r := range out {
		nerr += len(r.Errors)
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return nerr, bad, enc.Encode(struct {
			Root string       `json:"root"`
			Runs []metricsRun `json:"runs"`
		}{root, out})
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tmetric\tvalue\ttext\tunit\tline")
	for _, r := range out {
		for _, m := range r.Metrics {
			v := "-"
			if m.Value != nil {
				v = strconv.FormatFloat(*m.Value, 'g', -1, 64)
			}
			text := m.Text
			if len(m.Samples) > 0 {
				text += fmt.Sprintf(" (%d samples)", len(m.Samples))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", report.Clean(r.Run), report.Clean(m.Name), v, report.Clean(text), report.Clean(m.Unit), m.Line)
		}
		if len(r.Metrics) == 0 {
			fmt.Fprintf(tw, "%s\t(no metric)\t\t\t\t\n", report.Clean(r.Run))
		}
	}
	if err := tw.Flush(); err != nil {
		return 0, nil, err
	}
	for _, r := range out {
		for _, e := range r.Errors {
			fmt.Fprintf(stdout, "error: %s: %s\n", report.Clean(r.Run), report.Clean(fmt.Sprint(e)))
		}
	}
	return nerr, bad, nil
}

func listing(name string, ms *tail.Metrics) metricsRun {
	r := metricsRun{Run: name, Source: ms.Source, Metrics: []metricsEntry{}}
	for _, m := range ms.List {
		e := metricsEntry{Name: m.Name, Text: m.Num.Text, Unit: m.Unit, Line: m.Line, Samples: m.Samples()}
		if v := m.Num.Value; !math.IsNaN(v) && !math.IsInf(v, 0) {
			e.Value = &v
		}
		r.Metrics = append(r.Metrics, e)
	}
	for _, e := range ms.Errors {
		// the error's place within the run's output: its tail line
		// (the run's source is the listing's), from its fields
		msg := e.Error()
		if e.File == ms.Source {
			msg = e.Msg
			if e.Line > 0 {
				msg = strconv.Itoa(e.Line) + ": " + e.Msg
			}
		}
		r.Errors = append(r.Errors, strings.TrimSpace(msg))
	}
	return r
}
