package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// Chart geometry, in SVG user units (pixels at 100 % zoom).
const (
	chartWidth  = 640
	chartLabelW = 250 // left column: run names or series
	chartRight  = 24
	chartRowH   = 14
	chartTop    = 6
	chartAxisH  = 30
)

// scale maps values onto the plot area between the label column and the
// right margin.
type scale struct{ lo, hi float64 }

func newScale(vals []float64) scale {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo > hi {
		return scale{0, 1}
	}
	pad := (hi - lo) * 0.06
	if pad == 0 {
		pad = math.Max(math.Abs(lo)*0.05, 0.5)
	}
	return scale{lo - pad, hi + pad}
}

func (s scale) x(v float64) float64 {
	return chartLabelW + (v-s.lo)/(s.hi-s.lo)*(chartWidth-chartLabelW-chartRight)
}

// f1 prints a coordinate with one decimal.
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// val prints a value as a label: at most 4 significant decimals.
func val(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func esc(s string) string { return html.EscapeString(clean(s)) }

// plotSVG draws a finding's plot: a range against the runs of its set, or
// the two sides of a comparison. Every point is one circle (class "pt",
// "pt cold" for a point noted as the cold first run); the quoted range is a
// rect of class "quoted", the raw range a line of class "raw".
func plotSVG(p *finding.Plot) string {
	switch p.Kind {
	case "range":
		return rangeSVG(p)
	case "compare":
		return compareSVG(p)
	}
	return ""
}

func isCold(pt finding.Point) bool { return strings.Contains(strings.ToLower(pt.Note), "cold") }

func svgOpen(b *strings.Builder, h int, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		chartWidth, h, chartWidth, h, esc(title))
}

func svgAxis(b *strings.Builder, s scale, y float64) {
	fmt.Fprintf(b, `<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(s.x(s.lo)), f1(y), f1(s.x(s.hi)), f1(y))
	for _, v := range []float64{s.lo, (s.lo + s.hi) / 2, s.hi} {
		fmt.Fprintf(b, `<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`, f1(s.x(v)), f1(y+12), val(roundTo(v, s.hi-s.lo)))
	}
}

// roundTo rounds a tick value to a precision that fits the span.
func roundTo(v, span float64) float64 {
	if span <= 0 {
		return v
	}
	q := math.Pow(10, math.Floor(math.Log10(span))-2)
	return math.Round(v/q) * q
}

func rangeSVG(p *finding.Plot) string {
	vals := append([]float64{}, p.Quoted...)
	raw := make([]float64, 0, len(p.Points))
	for _, pt := range p.Points {
		vals = append(vals, pt.Value)
		raw = append(raw, pt.Value)
	}
	s := newScale(vals)
	n := len(p.Points)
	plotH := chartTop + n*chartRowH
	h := plotH + chartAxisH + chartRowH + 4
	var b strings.Builder
	svgOpen(&b, h, "range of "+p.Unit)
	if len(p.Quoted) == 2 {
		x0, x1 := s.x(math.Min(p.Quoted[0], p.Quoted[1])), s.x(math.Max(p.Quoted[0], p.Quoted[1]))
		fmt.Fprintf(&b, `<rect class="quoted" x="%s" y="%d" width="%s" height="%d"><title>quoted %s–%s %s</title></rect>`,
			f1(x0), chartTop-2, f1(math.Max(x1-x0, 1)), n*chartRowH+4, val(p.Quoted[0]), val(p.Quoted[1]), esc(p.Unit))
	}
	for i, pt := range p.Points {
		y := float64(chartTop + i*chartRowH + chartRowH/2)
		cls, label := "pt", pt.Label
		if isCold(pt) {
			cls, label = "pt cold", pt.Label+" (cold)"
		}
		fmt.Fprintf(&b, `<text class="lbl" x="%d" y="%s" text-anchor="end">%s</text>`, chartLabelW-6, f1(y+3), esc(shorten(label, 40)))
		fmt.Fprintf(&b, `<circle class="%s" cx="%s" cy="%s" r="4"><title>%s: %s %s%s</title></circle>`,
			cls, f1(s.x(pt.Value)), f1(y), esc(pt.Label), val(pt.Value), esc(p.Unit), esc(noteSuffix(pt.Note)))
	}
	if len(raw) > 0 {
		lo, hi := minMax(raw)
		y := float64(plotH + 8)
		fmt.Fprintf(&b, `<line class="raw" x1="%s" y1="%s" x2="%s" y2="%s"><title>raw %s–%s %s</title></line>`,
			f1(s.x(lo)), f1(y), f1(s.x(hi)), f1(y), val(lo), val(hi), esc(p.Unit))
		fmt.Fprintf(&b, `<text class="lbl" x="%d" y="%s" text-anchor="end">raw range %s–%s</text>`, chartLabelW-6, f1(y+3), val(lo), val(hi))
	}
	svgAxis(&b, s, float64(plotH+chartRowH+6))
	b.WriteString(`</svg>`)
	return b.String()
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return " (" + note + ")"
}

func minMax(vs []float64) (float64, float64) {
	lo, hi := vs[0], vs[0]
	for _, v := range vs[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// compareSVG draws one row per side of a comparison (series in order of
// first appearance), a circle per value or sample, and, when the plot
// quotes one number per side, that side's quoted number as a tick.
func compareSVG(p *finding.Plot) string {
	var series []string
	bySeries := map[string][]finding.Point{}
	vals := append([]float64{}, p.Quoted...)
	for _, pt := range p.Points {
		if _, ok := bySeries[pt.Series]; !ok {
			series = append(series, pt.Series)
		}
		bySeries[pt.Series] = append(bySeries[pt.Series], pt)
		vals = append(vals, pt.Value)
	}
	s := newScale(vals)
	const rowH = 2 * chartRowH
	plotH := chartTop + len(series)*rowH
	h := plotH + chartAxisH
	var b strings.Builder
	svgOpen(&b, h, "comparison in "+p.Unit)
	for i, name := range series {
		y := float64(chartTop + i*rowH + rowH/2)
		fmt.Fprintf(&b, `<text class="lbl" x="%d" y="%s" text-anchor="end">%s</text>`, chartLabelW-6, f1(y+3), esc(shorten(name, 40)))
		if len(p.Quoted) == len(series) {
			x := s.x(p.Quoted[i])
			fmt.Fprintf(&b, `<line class="quoted" x1="%s" y1="%s" x2="%s" y2="%s"><title>quoted %s %s</title></line>`,
				f1(x), f1(y-rowH/2+2), f1(x), f1(y+rowH/2-2), val(p.Quoted[i]), esc(p.Unit))
		}
		for _, pt := range bySeries[name] {
			cls := "pt"
			if isCold(pt) {
				cls = "pt cold"
			}
			fmt.Fprintf(&b, `<circle class="%s" cx="%s" cy="%s" r="4"><title>%s: %s %s%s</title></circle>`,
				cls, f1(s.x(pt.Value)), f1(y), esc(pt.Label), val(pt.Value), esc(p.Unit), esc(noteSuffix(pt.Note)))
		}
	}
	svgAxis(&b, s, float64(plotH+4))
	b.WriteString(`</svg>`)
	return b.String()
}
