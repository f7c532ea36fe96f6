package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func plotSample() []finding.Finding {
	rangePlot := &finding.Plot{Kind: "range", Quoted: []float64{6.39, 6.44}, Unit: "GB/s", Points: []finding.Point{
		{Label: "run_a", Value: 3.66, Note: "cold first run"}, {Label: "run_b", Value: 6.41}, {Label: "run_c", Value: 6.44}, {Label: "run_d", Value: 6.39},
	}}
	comparePlot := &finding.Plot{Kind: "compare", Quoted: []float64{14.3, 38.11}, Unit: "tok/s", Points: []finding.Point{
		{Series: "unpatched", Label: "u1", Value: 14.3}, {Series: "patched", Label: "p1", Value: 38.11, Note: "cold first run"}, {Series: "patched", Label: "p2", Value: 37.9},
	}}
	return []finding.Finding{
		{Rule: "plan.range", ID: "F13", Severity: finding.Fail, File: "PLAN.md", Line: 577, Quote: "6.39–6.44 GB/s", Message: "drops runs", Plot: rangePlot},
		{Rule: "compare.unlike", ID: "F17", Severity: finding.Fail, File: "PLAN.md", Line: 284, Quote: "14.3 → 38.11 tok/s", Message: "unlike", Plot: comparePlot},
		{Rule: "parity", Severity: finding.Pass, Message: "no plot"},
	}
}

// figures returns the SVG of each chart in the page, in order.
func figures(page string) []string {
	return regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(page, -1)
}

func TestHTMLCharts(t *testing.T) {
	fs := plotSample()
	page := write(t, New("fixtures/x", []string{"plan.range", "compare.unlike", "parity"}, fs), "html", Options{})
	svgs := figures(page)
	require.Len(t, svgs, 2, "one chart per finding with a plot")
	count := func(s, re string) int { return len(regexp.MustCompile(re).FindAllString(s, -1)) }
	for i, f := range fs[:2] {
		svg := svgs[i]
		cold := 0
		for _, p := range f.Plot.Points {
			if strings.Contains(p.Note, "cold") {
				cold++
			}
		}
		assert.Equal(t, len(f.Plot.Points), count(svg, `<circle `), "%s: circles = points", f.ID)
		assert.Equal(t, cold, count(svg, `<circle class="pt cold"`), "%s: cold runs marked", f.ID)
	}
	// the range chart: the quoted range as a band, the raw range as a bar,
	// and the band lies inside the bar's span, right of the cold run
	rng := svgs[0]
	require.Equal(t, 1, count(rng, `<rect class="quoted"`))
	require.Equal(t, 1, count(rng, `<line class="raw"`))
	num := func(s, re string) float64 {
		m := regexp.MustCompile(re).FindStringSubmatch(s)
		require.Len(t, m, 2, "no %s in %s", re, s)
		v, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		return v
	}
	bandX := num(rng, `<rect class="quoted" x="([0-9.]+)"`)
	rawX1, rawX2 := num(rng, `<line class="raw" x1="([0-9.]+)"`), num(rng, `<line class="raw" x1="[0-9.]+" y1="[0-9.]+" x2="([0-9.]+)"`)
	coldX := num(rng, `<circle class="pt cold" cx="([0-9.]+)"`)
	assert.InDelta(t, coldX, rawX1, 0.11, "the raw range starts at the cold run")
	assert.Greater(t, bandX, coldX+100, "the quoted range starts far right of the cold run it drops")
	assert.Greater(t, rawX2, bandX)
	// the comparison chart: one row label per side, one quoted tick per side
	cmp := svgs[1]
	assert.Equal(t, 2, count(cmp, `<line class="quoted"`))
	assert.Contains(t, cmp, ">unpatched</text>")
	assert.Contains(t, cmp, ">patched</text>")
}

func TestHTMLSelfContained(t *testing.T) {
	fs := append(plotSample(), finding.Finding{Rule: "tf", Severity: finding.Warn, Quote: "<script>alert(1)</script>", Message: `<img src="http://x/y.png"> & hostile`})
	page := write(t, New("fixtures/x", nil, fs), "html", Options{Verbose: true})
	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
	// Every tag of the page: none loads or runs anything.
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(page, -1) {
		name := strings.ToLower(regexp.MustCompile(`^<([a-zA-Z]+)`).FindStringSubmatch(tag)[1])
		assert.NotContains(t, []string{"script", "img", "link", "iframe", "object", "embed", "image", "use"}, name, "tag %s", tag)
		assert.NotRegexp(t, `(?i)\s(src|href|xlink:href|on[a-z]+)=`, tag, "tag %s", tag)
		if u := regexp.MustCompile(`https?://[^"]+`).FindString(tag); u != "" {
			assert.Equal(t, "http://www.w3.org/2000/svg", u, "the only URL is the SVG namespace, which is not fetched")
		}
	}
	style := page[strings.Index(page, "<style>"):strings.Index(page, "</style>")]
	assert.NotContains(t, style, "url(")
	assert.NotContains(t, style, "@import")
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;", "snapshot text is escaped")
}
