package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// htmlStyle is the page's only styling; the page loads nothing and runs no
// script.
const htmlStyle = `body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:980px;color:#222}
h1.fail{color:#b00020}h1.pass{color:#1b7a1b}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
li{margin:.15em 0}.id{font-weight:bold}.rule,.where{font-family:ui-monospace,monospace;font-size:12px}
.mark{font-size:11px;border:1px solid #888;border-radius:3px;padding:0 3px}
figure{margin:.6em 0;border-top:1px solid #eee}details,summary{display:inline}details[open]{display:block}figcaption{font-size:13px;margin:.3em 0}
svg text{font:10px ui-monospace,monospace;fill:#333}
.quoted{fill:#3b82f6;fill-opacity:.18;stroke:#3b82f6;stroke-width:2}
.raw{stroke:#555;stroke-width:4;stroke-linecap:round}.axis{stroke:#999}
.pt{fill:#222}.pt.cold{fill:#fff;stroke:#d00;stroke-width:2}`

// writeHTML writes one self-contained page: the report in the text
// report's order, and an inline SVG chart for every finding with a Plot.
func (r *Report) writeHTML(w io.Writer, o Options) error {
	ew := &errWriter{w: w}
	d := r.digest()
	cls := "pass"
	if r.Failed() {
		cls = "fail"
	}
	ew.printf("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s — audit of %s</title>\n<style>\n%s\n</style></head>\n<body>\n",
		esc(r.Verdict), esc(r.Root), htmlStyle)
	ew.printf("<h1 class=\"%s\">%s</h1>\n<p>%s</p>\n", cls, esc(r.Verdict), esc(strings.TrimPrefix(r.headline(), "verdict: "+r.Verdict+" — ")))
	if r.Previous != nil {
		ew.printf("<p>%s</p>\n", esc(r.Previous.line()))
	}
	for _, e := range d.Start {
		ew.printf("<p class=\"start\"><strong>Start here:</strong> %s. %s.</p>\n", esc(e.Message), esc(r.fixOf(e.Finding)))
	}
	if len(d.Unsourced) > 0 {
		ew.printf("<h2>Unsourced numbers (%d)</h2>\n<p>Quoted in the plan, printed by no archived run.</p>\n<table><tr><th>where</th><th>plan says</th><th>raw says</th><th>source</th><th>id</th></tr>\n", len(d.Unsourced))
		for _, e := range d.Unsourced {
			ew.printf("<tr><td class=\"where\">%s%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"id\">%s</td></tr>\n",
				htmlMark(e.Mark), esc(place(e.Finding)), esc(e.Quote), esc(e.Raw), esc(e.Source), esc(e.ID))
		}
		ew.printf("</table>\n")
	}
	if len(d.Declared) > 0 {
		ew.printf("<h2>Declared, not measured (%d)</h2>\n<p>Claims rows that bind a quote to a literal, a constant or a literal factor.</p>\n<table><tr><th>row</th><th>plan says</th><th>source</th><th>severity</th></tr>\n", len(d.Declared))
		for _, e := range d.Declared {
			ew.printf("<tr><td class=\"where\">%s%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				htmlMark(e.Mark), esc(fmt.Sprintf("%s:%d", e.File, e.Line)), esc(e.Quote), esc(e.Source), esc(e.Severity.String()))
		}
		ew.printf("</table>\n")
	}
	r.writeCharts(ew)
	writeSections(ew, d, sections{
		failsHead: "<h2>Fails</h2>\n",
		groupHead: func(g group) string {
			return fmt.Sprintf("<h3>%s (%d)</h3>\n", esc(g.Section.title()), len(g.Entries))
		},
		warnsHead: func(n int) string { return fmt.Sprintf("<h2>Warnings (%d)</h2>\n", n) },
		fixesHead: "<h2>What to fix</h2>\n",
		listOpen:  "<ul>\n",
		listClose: "</ul>\n",
		item:      func(s string) string { return "<li>" + s + "</li>\n" },
		line:      htmlLine,
		fix: func(fl fixLine) string {
			return "<span class=\"id\">" + esc(fl.covers()) + "</span>: " + esc(fl.Fix)
		},
	})
	ew.printf("<h2>Passes (%d)</h2>\n<table><tr><th>rule</th><th>pass</th></tr>\n", r.Summary.Pass)
	for _, p := range d.Passes {
		ew.printf("<tr><td class=\"rule\">%s</td><td>%d</td></tr>\n", esc(p.Rule), p.N)
	}
	ew.printf("</table>\n")
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

// writeCharts draws every finding that carries a Plot, fails first.
func (r *Report) writeCharts(ew *errWriter) {
	var plotted []finding.Finding
	for _, sev := range []finding.Severity{finding.Fail, finding.Warn, finding.Pass} {
		for _, f := range r.Findings {
			if f.Severity == sev && f.Plot != nil && len(f.Plot.Points) > 0 {
				plotted = append(plotted, f)
			}
		}
	}
	if len(plotted) == 0 {
		return
	}
	ew.printf("<h2>Charts (%d)</h2>\n<p>Dots are runs (hollow red: the cold first run on its file); the blue band is the quoted range or value, the grey bar the range of the runs.</p>\n", len(plotted))
	for _, f := range plotted {
		ew.printf("<figure><figcaption>%s %s <span class=\"id\">%s</span> <span class=\"rule\">%s</span> <span class=\"where\">%s</span>: %s</figcaption>\n%s\n</figure>\n",
			f.Severity, esc(f.Plot.Kind), esc(f.ID), esc(f.Rule), esc(place(f)), esc(shorten(f.Message, 200)), plotSVG(f.Plot))
	}
}

func htmlMark(mark string) string {
	if mark == "" {
		return ""
	}
	return "<span class=\"mark\">" + esc(mark) + "</span> "
}

// htmlMessageWidth is how much of a long message a list shows; the rest
// folds into a <details> element, which opens without a script.
const htmlMessageWidth = 240

// htmlLine is a finding as a list item.
func htmlLine(e entry) string {
	head := htmlMark(e.Mark) + "<span class=\"id\">" + esc(e.ID) + "</span> <span class=\"rule\">" + esc(e.Rule) +
		"</span> <span class=\"where\">" + esc(place(e.Finding)) + "</span>: "
	if short := shorten(e.Message, htmlMessageWidth); short != e.Message {
		return head + "<details><summary>" + esc(short) + "</summary>" + esc(e.Message) + "</details>"
	}
	return head + esc(e.Message)
}
