package report

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
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
	if len(svgs) != 2 {
		t.Fatalf("html report has %d charts; want 2, one per finding with a plot", len(svgs))
	}
	count := func(s, re string) int { return len(regexp.MustCompile(re).FindAllString(s, -1)) }
	for i, f := range fs[:2] {
		svg := svgs[i]
		cold := 0
		for _, p := range f.Plot.Points {
			if strings.Contains(p.Note, "cold") {
				cold++
			}
		}
		if got := count(svg, `<circle `); got != len(f.Plot.Points) {
			t.Errorf("%s chart: %d circles; want %d, one per point", f.ID, got, len(f.Plot.Points))
		}
		if got := count(svg, `<circle class="pt cold"`); got != cold {
			t.Errorf("%s chart: %d cold circles; want %d, each cold run marked", f.ID, got, cold)
		}
	}
	// the range chart: the quoted range as a band, the raw range as a bar,
	// and the band lies inside the bar's span, right of the cold run
	rng := svgs[0]
	for _, re := range []string{`<rect class="quoted"`, `<line class="raw"`} {
		if got := count(rng, re); got != 1 {
			t.Fatalf("range chart: %d %s; want 1\n%s", got, re, rng)
		}
	}
	num := func(s, re string) float64 {
		m := regexp.MustCompile(re).FindStringSubmatch(s)
		if len(m) != 2 {
			t.Fatalf("no %s in %s", re, s)
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("%s in the chart: %v", re, err)
		}
		return v
	}
	bandX := num(rng, `<rect class="quoted" x="([0-9.]+)"`)
	rawX1, rawX2 := num(rng, `<line class="raw" x1="([0-9.]+)"`), num(rng, `<line class="raw" x1="[0-9.]+" y1="[0-9.]+" x2="([0-9.]+)"`)
	coldX := num(rng, `<circle class="pt cold" cx="([0-9.]+)"`)
	if math.Abs(coldX-rawX1) > 0.11 {
		t.Errorf("range chart: raw range starts at x=%v, the cold run at x=%v; want the raw range to start at the cold run", rawX1, coldX)
	}
	if bandX <= coldX+100 {
		t.Errorf("range chart: quoted band at x=%v, cold run at x=%v; want the band far right (> 100) of the cold run it drops", bandX, coldX)
	}
	if rawX2 <= bandX {
		t.Errorf("range chart: raw range ends at x=%v; want it past the quoted band's start %v", rawX2, bandX)
	}
	// the comparison chart: one row label per side, one quoted tick per side
	cmpChart := svgs[1]
	if got := count(cmpChart, `<line class="quoted"`); got != 2 {
		t.Errorf("comparison chart: %d quoted ticks; want 2, one per side\n%s", got, cmpChart)
	}
	for _, label := range []string{">unpatched</text>", ">patched</text>"} {
		if !strings.Contains(cmpChart, label) {
			t.Errorf("comparison chart lacks the row label %q:\n%s", label, cmpChart)
		}
	}
}

func TestHTMLSelfContained(t *testing.T) {
	fs := append(plotSample(), finding.Finding{Rule: "tf", Severity: finding.Warn, Quote: "<script>alert(1)</script>", Message: `<img src="http://x/y.png"> & hostile`})
	page := write(t, New("fixtures/x", nil, fs), "html", Options{Verbose: true})
	if !strings.HasPrefix(page, "<!DOCTYPE html>") {
		t.Errorf("html report starts %.40q; want <!DOCTYPE html>", page)
	}
	// Every tag of the page: none loads or runs anything.
	loading := regexp.MustCompile(`(?i)\s(src|href|xlink:href|on[a-z]+)=`)
	tags := regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(page, -1)
	if len(tags) < 10 {
		t.Fatalf("html report has %d tags; want a page to check", len(tags))
	}
	for _, tag := range tags {
		name := strings.ToLower(regexp.MustCompile(`^<([a-zA-Z]+)`).FindStringSubmatch(tag)[1])
		if slices.Contains([]string{"script", "img", "link", "iframe", "object", "embed", "image", "use"}, name) {
			t.Errorf("html report has the tag %s, which loads or runs something", tag)
		}
		if loading.MatchString(tag) {
			t.Errorf("html report tag %s has an attribute that loads or runs something", tag)
		}
		if u := regexp.MustCompile(`https?://[^"]+`).FindString(tag); u != "" && u != "http://www.w3.org/2000/svg" {
			t.Errorf("html report tag %s names the URL %s; want only the SVG namespace, which is not fetched", tag, u)
		}
	}
	start, end := strings.Index(page, "<style>"), strings.Index(page, "</style>")
	if start < 0 || end < start {
		t.Fatalf("html report has no <style> element")
	}
	style := page[start:end]
	for _, bad := range []string{"url(", "@import"} {
		if strings.Contains(style, bad) {
			t.Errorf("html report's style holds %q, which loads something", bad)
		}
	}
	if want := "&lt;script&gt;alert(1)&lt;/script&gt;"; !strings.Contains(page, want) {
		t.Errorf("html report lacks %q: snapshot text is not escaped", want)
	}
}
