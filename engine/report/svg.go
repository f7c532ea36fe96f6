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
	chartAxisH  = 40
)

// scale maps values onto the plot area between the label column and the
// right margin; its ends are the first and last of its ticks.
type scale struct {
	lo, hi float64
	ticks  []float64
	step   float64
}

// maxTicks is the most intervals an axis is cut into.
const maxTicks = 6

func newScale(vals []float64) scale {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	ticks, step := niceTicks(lo, hi, maxTicks)
	return scale{lo: ticks[0], hi: ticks[len(ticks)-1], ticks: ticks, step: step}
}

// niceTicks returns the ticks of an axis covering lo to hi: multiples of a
// step of 1, 2 or 5 × 10^k, the first at or below lo and the last at or
// above hi, at most n intervals (n ≥ 1); a single value gets an axis
// around it.
func niceTicks(lo, hi float64, n int) ([]float64, float64) {
	n = max(n, 1)
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/float64(n))))
	var step, first, last float64
	for _, m := range []float64{1, 2, 5, 10, 20, 50} {
		step = m * mag
		first, last = math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
		if last-first <= float64(n) {
			break
		}
	}
	ticks := make([]float64, 0, int(last-first)+1)
	for k := first; k <= last; k++ {
		// k·step as a decimal, not k times a binary fraction (0.30000000000000004)
		v, _ := strconv.ParseFloat(strconv.FormatFloat(k*step, 'f', decimals(step), 64), 64)
		ticks = append(ticks, v)
	}
	return ticks, step
}

// decimals is how many decimals a tick of the step needs.
func decimals(step float64) int {
	return max(-int(math.Floor(math.Log10(step)+1e-9)), 0)
}

// tickLabel prints a tick at the step's precision ("6.2", "40000", "0").
func tickLabel(v, step float64) string {
	s := strconv.FormatFloat(v, 'f', decimals(step), 64)
	if strings.Trim(s, "-0.") == "" {
		return "0"
	}
	return s
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

// svgAxis draws the axis at y: a tick mark and label at each of the
// scale's ticks, and the unit at its right end.
func svgAxis(b *strings.Builder, s scale, y float64, unit string) {
	fmt.Fprintf(b, `<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(s.x(s.lo)), f1(y), f1(s.x(s.hi)), f1(y))
	for _, v := range s.ticks {
		x := f1(s.x(v))
		fmt.Fprintf(b, `<line class="tickmark" x1="%s" y1="%s" x2="%s" y2="%s"/>`, x, f1(y), x, f1(y+3))
		fmt.Fprintf(b, `<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`, x, f1(y+13), tickLabel(v, s.step))
	}
	fmt.Fprintf(b, `<text class="unit" x="%d" y="%s" text-anchor="end">%s</text>`, chartWidth-2, f1(y+25), esc(unitName(unit)))
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
	switch len(p.Quoted) {
	case 2:
		x0, x1 := s.x(math.Min(p.Quoted[0], p.Quoted[1])), s.x(math.Max(p.Quoted[0], p.Quoted[1]))
		fmt.Fprintf(&b, `<rect class="quoted" x="%s" y="%d" width="%s" height="%d"><title>quoted %s–%s %s</title></rect>`,
			f1(x0), chartTop-2, f1(math.Max(x1-x0, 1)), n*chartRowH+4, val(p.Quoted[0]), val(p.Quoted[1]), esc(p.Unit))
	case 1: // one number quoted for a set of runs
		x := f1(s.x(p.Quoted[0]))
		fmt.Fprintf(&b, `<line class="quoted" x1="%s" y1="%d" x2="%s" y2="%d"><title>quoted %s %s</title></line>`,
			x, chartTop-2, x, chartTop+n*chartRowH+2, val(p.Quoted[0]), esc(p.Unit))
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
	svgAxis(&b, s, float64(plotH+chartRowH+6), p.Unit)
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
	svgAxis(&b, s, float64(plotH+4), p.Unit)
	b.WriteString(`</svg>`)
	return b.String()
}
