package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/finding"
)

// htmlStyle is the page's only styling; the page loads nothing and runs no
// script.
const htmlStyle = `body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:980px;color:#222}
h1.fail{color:#fff;background:#b00020;padding:.2em .4em}h1.pass{color:#fff;background:#1b7a1b;padding:.2em .4em}
section.fix{border-left:4px solid #b00020;padding:0 .8em;margin:1em 0}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
li{margin:.3em 0}li.fail{border-left:3px solid #b00020;padding-left:.4em}li.warn{border-left:3px solid #c77d00;padding-left:.4em}
.id{font-weight:bold}.rule,.where{font-family:ui-monospace,monospace;font-size:12px}
.mark{font-size:11px;border:1px solid #888;border-radius:3px;padding:0 3px}
details>summary{cursor:pointer}p.msg{margin:.2em 0 .2em 1.2em;white-space:pre-wrap}
figure{margin:.4em 0}figcaption{font-size:13px;margin:.2em 0}
svg text{font:10px ui-monospace,monospace;fill:#333}svg text.unit{font-weight:bold}
.quoted{fill:#3b82f6;fill-opacity:.18;stroke:#3b82f6;stroke-width:2}
.raw{stroke:#555;stroke-width:4;stroke-linecap:round}.axis,.tickmark{stroke:#999}
.pt{fill:#222}.pt.cold{fill:#fff;stroke:#d00;stroke-width:2}`

// htmlLegend says how to read a chart, once, above the first one.
const htmlLegend = "<p class=\"legend\">In the charts, dots are runs (hollow red: the cold first run on its model file); " +
	"the blue band or mark is the number the plan quotes, the grey bar the range of the runs; the axis is in the unit it names.</p>\n"

// writeHTML writes one self-contained, well-formed page (it parses as
// XML): the verdict, what to fix directly under it, the fails (each with
// its chart when it has a plot), the warnings, then the passes.
func (r *Report) writeHTML(w io.Writer, o Options) error {
	ew := &errWriter{w: w}
	d := r.digest()
	cls := "pass"
	if r.Failed() {
		cls = "fail"
	}
	ew.printf("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>%s — audit of %s</title>\n<style>\n%s\n</style></head>\n<body>\n",
		esc(r.Verdict), esc(r.Root), htmlStyle)
	ew.printf("<h1 class=\"%s\">%s</h1>\n<p class=\"headline\">%s</p>\n", cls, esc(r.Verdict), esc(strings.TrimPrefix(r.headline(), "verdict: "+r.Verdict+" — ")))
	if len(d.Fixes) > 0 || len(d.Start) > 0 {
		ew.printf("<section class=\"fix\"><h2>What to fix (%d)</h2>\n", len(d.Fixes))
		for _, e := range d.Start {
			ew.printf("<p class=\"start\"><strong>Start here:</strong> %s. %s.</p>\n", esc(e.Message), esc(r.fixOf(e.Finding)))
		}
		ew.printf("<ul>\n")
		for _, fl := range d.Fixes {
			ew.printf("<li><span class=\"id\">%s</span>: %s</li>\n", esc(fl.covers()), esc(fl.Fix))
		}
		ew.printf("</ul></section>\n")
	}
	if r.Previous != nil {
		ew.printf("<p class=\"previous\">%s</p>\n", esc(r.Previous.line()))
	}
	r.writeHTMLFails(ew, d)
	r.writeHTMLWarns(ew, d)
	ew.printf("<h2>Passes (%d)</h2>\n<table><tr><th>rule</th><th>pass</th></tr>\n", r.Summary.Pass)
	for _, p := range d.Passes {
		ew.printf("<tr><td class=\"rule\">%s</td><td>%d</td></tr>\n", esc(p.Rule), p.N)
	}
	ew.printf("</table>\n")
	if passing := r.plotted(finding.Pass); len(passing) > 0 {
		ew.printf("<details class=\"charts\"><summary>Charts of passing findings (%d)</summary>\n", len(passing))
		for _, f := range passing {
			ew.printf("%s", chartFigure(f, true))
		}
		ew.printf("</details>\n")
	}
	if len(d.NotApplied) > 0 {
		ew.printf("<h2>Did not apply</h2>\n<ul>\n")
		for _, na := range d.NotApplied {
			ew.printf("<li><span class=\"rule\">%s</span>: %s</li>\n", esc(na.Rule), esc(na.Reason))
		}
		ew.printf("</ul>\n")
	}
	if len(r.Info) > 0 {
		ew.printf("<h2>Info</h2>\n<p>Inputs kept but used by no rule.</p>\n<ul>\n")
		for _, i := range r.Info {
			ew.printf("<li>%s</li>\n", esc(i))
		}
		ew.printf("</ul>\n")
	}
	if len(d.Fixed) > 0 {
		ew.printf("<h2>Fixed since %s (%d)</h2>\n<ul>\n", esc(r.Previous.File), len(d.Fixed))
		for _, m := range d.Fixed {
			ew.printf("<li><span class=\"id\">%s</span> <span class=\"rule\">%s</span> <span class=\"where\">%s</span> %s</li>\n",
				esc(m.ID), esc(m.Rule), esc(markPlace(m)), esc(m.Quote))
		}
		ew.printf("</ul>\n")
	}
	if o.Verbose {
		ew.printf("<h2>Every finding</h2>\n<table><tr><th>severity</th><th>rule</th><th>id</th><th>where</th><th>quote</th><th>raw</th><th>source</th><th>message</th></tr>\n")
		for _, sev := range []finding.Severity{finding.Fail, finding.Warn, finding.Pass} {
			for i, f := range r.Findings {
				if f.Severity == sev {
					ew.printf("<tr><td>%s%s</td><td class=\"rule\">%s</td><td>%s</td><td class=\"where\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
						htmlMark(r.Previous.mark(i)), f.Severity, esc(f.Rule), esc(f.ID), esc(place(f)), esc(f.Quote), esc(f.Raw), esc(f.Source), esc(f.Message))
				}
			}
		}
		ew.printf("</table>\n")
	}
	ew.printf("</body></html>\n")
	return ew.err
}

// writeHTMLFails writes the fails: the unsourced numbers as a table with
// the charts of its rows below it, then the other fails by family, each
// with its chart.
func (r *Report) writeHTMLFails(ew *errWriter, d digest) {
	if r.Summary.Fail == 0 {
		return
	}
	ew.printf("<h2>Fails (%d)</h2>\n", r.Summary.Fail)
	if len(r.plotted(finding.Fail)) > 0 {
		ew.printf("%s", htmlLegend)
	}
	if len(d.Unsourced) > 0 {
		ew.printf("<h3>Unsourced numbers (%d)</h3>\n<p>Quoted in the plan, printed by no archived run.</p>\n<table><tr><th>where</th><th>plan says</th><th>raw says</th><th>source</th><th>id</th><th>why</th></tr>\n", len(d.Unsourced))
		for _, e := range d.Unsourced {
			ew.printf("<tr class=\"fail\"><td class=\"where\">%s%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"id\">%s</td><td>%s</td></tr>\n",
				htmlMark(e.Mark), esc(place(e.Finding)), esc(e.Quote), esc(e.Raw), esc(e.Source), esc(e.ID), htmlMessage(e.Message, htmlCellWidth))
		}
		ew.printf("</table>\n")
		for _, e := range d.Unsourced {
			if hasPlot(e.Finding) {
				ew.printf("%s", chartFigure(e.Finding, true))
			}
		}
	}
	writeDeclared(ew, d.Declared, finding.Fail)
	for _, g := range d.Groups {
		ew.printf("<h3>%s (%d)</h3>\n<ul>\n", esc(g.Section.title()), len(g.Entries))
		for _, e := range g.Entries {
			ew.printf("<li class=\"fail\">%s%s</li>\n", htmlLine(e), chartFigure(e.Finding, true))
		}
		ew.printf("</ul>\n")
	}
}

// writeHTMLWarns writes the warnings: the claims rows declared, not
// measured, as a table, then the others in family order, each chart folded.
func (r *Report) writeHTMLWarns(ew *errWriter, d digest) {
	if r.Summary.Warn == 0 {
		return
	}
	ew.printf("<h2>Warnings (%d)</h2>\n", r.Summary.Warn)
	writeDeclared(ew, d.Declared, finding.Warn)
	if len(d.Warns) > 0 {
		ew.printf("<ul>\n")
		for _, e := range d.Warns {
			ew.printf("<li class=\"warn\">%s%s</li>\n", htmlLine(e), chartFigure(e.Finding, false))
		}
		ew.printf("</ul>\n")
	}
}

// writeDeclared writes the claims rows declared, not measured, of one
// severity (warnings; fails with -strict) as a table.
func writeDeclared(ew *errWriter, all []entry, sev finding.Severity) {
	var es []entry
	for _, e := range all {
		if e.Severity == sev {
			es = append(es, e)
		}
	}
	if len(es) == 0 {
		return
	}
	ew.printf("<h3>Declared, not measured (%d)</h3>\n<p>Claims rows that bind a quote to a literal, a constant or a literal factor.</p>\n<table><tr><th>row</th><th>plan says</th><th>source</th></tr>\n", len(es))
	for _, e := range es {
		ew.printf("<tr class=\"%s\"><td class=\"where\">%s%s</td><td>%s</td><td>%s</td></tr>\n",
			e.Severity, htmlMark(e.Mark), esc(fmt.Sprintf("%s:%d", e.File, e.Line)), esc(e.Quote), esc(e.Source))
	}
	ew.printf("</table>\n")
}

// plotted returns the findings of one severity that carry a plot, in order.
func (r *Report) plotted(sev finding.Severity) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.Severity == sev && hasPlot(f) {
			out = append(out, f)
		}
	}
	return out
}

func hasPlot(f finding.Finding) bool { return f.Plot != nil && len(f.Plot.Points) > 0 }

// chartFigure returns a finding's chart as a figure ("" without a plot),
// shown, or folded into a <details> element that opens without a script.
func chartFigure(f finding.Finding, open bool) string {
	if !hasPlot(f) {
		return ""
	}
	svg := plotSVG(f.Plot)
	if svg == "" {
		return ""
	}
	fig := fmt.Sprintf("<figure class=\"%s\"><figcaption>%s</figcaption>\n%s\n</figure>\n", f.Severity, esc(chartCaption(f)), svg)
	if open {
		return fig
	}
	return "<details class=\"chart\"><summary>chart</summary>\n" + fig + "</details>\n"
}

// chartCaption says what a chart shows, in full.
func chartCaption(f finding.Finding) string {
	p := f.Plot
	who := strings.TrimSpace(f.ID + " " + f.Rule + " " + place(f))
	quote := ""
	if f.Quote != "" {
		quote = "the quote " + f.Quote + " against "
	}
	switch p.Kind {
	case "range":
		return fmt.Sprintf("%s: %sthe %d runs of its source, in %s", who, quote, len(p.Points), unitName(p.Unit))
	default:
		return fmt.Sprintf("%s: %seach side's values, in %s", who, quote, unitName(p.Unit))
	}
}

// unitName is a unit as an axis names it.
func unitName(unit string) string {
	if unit == "" {
		return "no unit"
	}
	return unit
}

func htmlMark(mark string) string {
	if mark == "" {
		return ""
	}
	return "<span class=\"mark\">" + esc(mark) + "</span> "
}

// htmlMessageWidth is how much of a long message a list shows; the whole
// message is in a <details> element, which opens without a script.
const htmlMessageWidth = 240

// htmlLine is a finding as a list item: a message longer than
// htmlMessageWidth shows its leading words, and all of it when opened.
func htmlLine(e entry) string {
	head := htmlMark(e.Mark) + "<span class=\"id\">" + esc(e.ID) + "</span> <span class=\"rule\">" + esc(e.Rule) +
		"</span> <span class=\"where\">" + esc(place(e.Finding)) + "</span>: "
	return head + htmlMessage(e.Message, htmlMessageWidth)
}

// htmlCellWidth is how much of a message a table cell shows folded.
const htmlCellWidth = 60

// htmlMessage is a message, escaped: whole when it fits in width runes,
// else its leading words in a <details> summary and all of it inside.
func htmlMessage(msg string, width int) string {
	if lead := leadWords(msg, width); lead != msg {
		return "<details><summary>" + esc(lead) + " …</summary><p class=\"msg\">" + esc(msg) + "</p></details>"
	}
	return esc(msg)
}

// leadWords returns the words of s that fit in n runes, never part of a
// word: s itself when it fits, else the words up to the last space within
// n runes (the first word whole, however long, when no space is).
func leadWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	for i := n; i > 0; i-- {
		if rs[i] == ' ' {
			return strings.TrimRight(string(rs[:i]), " ")
		}
	}
	if i := strings.IndexByte(s, ' '); i > 0 {
		return s[:i]
	}
	return s
}
