package report

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strataspec/strataspec/engine/finding"
)

// node is an element of a page parsed as XML.
type node struct {
	name  string
	attr  map[string]string
	kids  []*node
	text  strings.Builder // the text directly inside the element
	child []any           // kids and text, in order: *node or string
}

// parsePage parses a page that must be well-formed XML (the HTML report
// writes it so), returning its root element.
func parsePage(t *testing.T, page string) *node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	root := &node{name: "#document"}
	stack := []*node{root}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attr: map[string]string{}}
			for _, a := range tok.Attr {
				n.attr[a.Name.Local] = a.Value
			}
			top.kids = append(top.kids, n)
			top.child = append(top.child, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.text.Write(tok)
			top.child = append(top.child, string(tok))
		}
	}
	if len(stack) != 1 {
		t.Fatalf("the page leaves %d elements open", len(stack)-1)
	}
	return root
}

// all returns the elements below n, n included, in document order, that
// have the name and, when class is not "", the class.
func (n *node) all(name, class string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if m.name == name && (class == "" || strings.Contains(" "+m.attr["class"]+" ", " "+class+" ")) {
			out = append(out, m)
		}
		for _, k := range m.kids {
			walk(k)
		}
	}
	walk(n)
	return out
}

// content is all the text inside n.
func (n *node) content() string {
	var b strings.Builder
	for _, c := range n.child {
		switch c := c.(type) {
		case string:
			b.WriteString(c)
		case *node:
			b.WriteString(c.content())
		}
	}
	return b.String()
}

// order returns every element in document order.
func (n *node) order() []*node {
	out := []*node{n}
	for _, k := range n.kids {
		out = append(out, k.order()...)
	}
	return out
}

const longMessage = "§7.1 #5: 6.82–7.07 GB/s is unsourced: 6.82 GB/s is in no archived run; its row's source gives 6.10–7.07 GB/s, " +
	"and the runs of the set are strata_iq3_s_short_43tok, strata_tf_iq3_s_ops_tools, strata_tf_iq3_s_chat_json and strata_tf_iq3_s_ja, " +
	"of which the first is the cold first run on its model file; the quote leaves it out without a caveat"

// pageSample is a report whose findings exercise the page: fails with and
// without a plot (a range with one quoted number among them), a warning
// with a plot, a pass with a plot, and long messages, one a single token.
func pageSample() []finding.Finding {
	fs := plotSample()
	fs[0].Fix = "quote the range over every run of its set"
	fs = append(fs,
		finding.Finding{Rule: "plan.unsourced", ID: "F15", Severity: finding.Fail, File: "PLAN.md", Line: 577, Quote: "0.5 s", Raw: "0.4–0.9 s",
			Message: longMessage, Plot: &finding.Plot{Kind: "range", Quoted: []float64{0.5}, Unit: "s", Points: []finding.Point{
				{Label: "r1", Value: 0.9, Note: "cold first run"}, {Label: "r2", Value: 0.4}}}},
		finding.Finding{Rule: "input.archive", ID: "F38", Severity: finding.Fail, File: "results.json", Message: strings.Repeat("x", 300) + " and a tail"},
		finding.Finding{Rule: "compare.significance", Severity: finding.Warn, File: "PLAN.md", Line: 585, Quote: "1.40 → 3.22 tok/s", Message: longMessage + " (warn)",
			Plot: &finding.Plot{Kind: "compare", Quoted: []float64{1.4, 3.22}, Unit: "tok/s", Points: []finding.Point{
				{Series: "a", Label: "a", Value: 1.4}, {Series: "b", Label: "b", Value: 3.22}}}},
		finding.Finding{Rule: "plan.range", Severity: finding.Pass, File: "PLAN.md", Line: 590, Quote: "2.85–3.36 GiB", Message: "covers",
			Plot: &finding.Plot{Kind: "range", Quoted: []float64{2.85, 3.36}, Unit: "GiB", Points: []finding.Point{{Label: "p", Value: 2.9}, {Label: "q", Value: 3.36}}}},
	)
	return fs
}

func samplePage(t *testing.T) (*node, []finding.Finding) {
	t.Helper()
	fs := pageSample()
	var rules []string
	for _, f := range fs {
		rules = append(rules, f.Rule)
	}
	page := write(t, New("fixtures/x", rules, fs), "html", Options{})
	return parsePage(t, page), fs
}

// TestHTMLFixUnderVerdict checks the page's top: the verdict, its counts,
// then what to fix, before any list of findings.
func TestHTMLFixUnderVerdict(t *testing.T) {
	root, _ := samplePage(t)
	body := root.all("body", "")[0]
	var got []string
	for _, k := range body.kids[:3] {
		got = append(got, k.name+"."+k.attr["class"])
	}
	want := []string{"h1.fail", "p.headline", "section.fix"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the first elements of the body (-want +got):\n%s", diff)
	}
	if h := body.kids[2].all("h2", ""); len(h) == 0 || !strings.HasPrefix(h[0].content(), "What to fix") {
		t.Errorf("the section under the verdict is not what to fix: %q", body.kids[2].content())
	}
	if n := len(body.kids[2].all("li", "")); n == 0 {
		t.Errorf("what to fix lists %d fixes; want some", n)
	}
}

// TestHTMLFailsFirst checks that every fail is on the page before every
// warning, and the headings come as Fails, Warnings, Passes.
func TestHTMLFailsFirst(t *testing.T) {
	root, _ := samplePage(t)
	lastFail, firstWarn := -1, -1
	var heads []string
	for i, n := range root.order() {
		cls := " " + n.attr["class"] + " "
		switch {
		case (n.name == "li" || n.name == "tr") && strings.Contains(cls, " fail "):
			lastFail = i
		case (n.name == "li" || n.name == "tr") && strings.Contains(cls, " warn ") && firstWarn < 0:
			firstWarn = i
		case n.name == "h2":
			heads = append(heads, strings.Fields(n.content())[0])
		}
	}
	if lastFail < 0 || firstWarn < 0 || lastFail > firstWarn {
		t.Errorf("last fail at element %d, first warning at %d; want every fail first", lastFail, firstWarn)
	}
	want := []string{"What", "Fails", "Warnings", "Passes"}
	if diff := cmp.Diff(want, heads); diff != "" {
		t.Errorf("h2 headings (-want +got):\n%s", diff)
	}
}

// TestHTMLChartForEveryFail checks that each fail with a plot has its
// chart shown (a figure of class fail holding an svg), warnings' charts
// are folded, and passes' charts are behind one <details>.
func TestHTMLChartForEveryFail(t *testing.T) {
	root, fs := samplePage(t)
	count := map[finding.Severity]int{}
	for _, f := range fs {
		if f.Plot != nil {
			count[f.Severity]++
		}
	}
	for _, sev := range []finding.Severity{finding.Fail, finding.Warn, finding.Pass} {
		figs := root.all("figure", sev.String())
		if len(figs) != count[sev] {
			t.Errorf("%d figures of class %s; want %d, one per %s finding with a plot", len(figs), sev, count[sev], sev)
		}
		for _, fig := range figs {
			if len(fig.all("svg", "")) != 1 {
				t.Errorf("figure %q holds no chart", fig.content())
			}
		}
	}
	for _, d := range root.all("details", "") {
		for _, fig := range d.all("figure", "fail") {
			t.Errorf("a fail's chart is folded: %q", fig.content())
		}
	}
}

// TestHTMLAxes checks every chart's axis: the unit named at its end, and
// ticks at multiples of a 1, 2 or 5 × 10^k step that span every value
// drawn.
func TestHTMLAxes(t *testing.T) {
	root, fs := samplePage(t)
	var plots []*finding.Plot
	for _, sev := range []finding.Severity{finding.Fail, finding.Warn, finding.Pass} {
		for _, f := range fs {
			if f.Severity == sev && f.Plot != nil {
				plots = append(plots, f.Plot)
			}
		}
	}
	// the unsourced rows' charts stand below their table, before the
	// other fails' charts: order the plots as the page draws them
	plots[1], plots[2] = plots[2], plots[1]
	svgs := root.all("svg", "")
	if len(svgs) != len(plots) {
		t.Fatalf("%d charts; want %d", len(svgs), len(plots))
	}
	for i, svg := range svgs {
		p := plots[i]
		units := svg.all("text", "unit")
		if len(units) != 1 || units[0].content() != p.Unit {
			t.Errorf("chart %d: unit label %v; want %q", i, units, p.Unit)
		}
		var ticks []float64
		for _, tx := range svg.all("text", "tick") {
			v, err := strconv.ParseFloat(tx.content(), 64)
			if err != nil {
				t.Fatalf("chart %d: tick %q is not a number", i, tx.content())
			}
			ticks = append(ticks, v)
		}
		if len(ticks) < 2 {
			t.Fatalf("chart %d: ticks %v; want two or more", i, ticks)
		}
		step := ticks[1] - ticks[0]
		if !oneTwoFive(step) {
			t.Errorf("chart %d: tick step %v (ticks %v) is not 1, 2 or 5 × 10^k", i, step, ticks)
		}
		for j := 1; j < len(ticks); j++ {
			if d := ticks[j] - ticks[j-1]; math.Abs(d-step) > step*1e-9 {
				t.Errorf("chart %d: ticks %v are not evenly spaced", i, ticks)
			}
		}
		vals := append([]float64{}, p.Quoted...)
		for _, pt := range p.Points {
			vals = append(vals, pt.Value)
		}
		for _, v := range vals {
			if v < ticks[0] || v > ticks[len(ticks)-1] {
				t.Errorf("chart %d: value %v outside the ticks %v", i, v, ticks)
			}
		}
	}
}

// oneTwoFive reports whether step is 1, 2 or 5 × 10^k.
func oneTwoFive(step float64) bool {
	if step <= 0 {
		return false
	}
	m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	for _, want := range []float64{1, 2, 5} {
		if math.Abs(m-want) < 1e-6 {
			return true
		}
	}
	return false
}

// TestHTMLFullMessages checks that every fail's and warning's whole
// message is on the page, and that a folded message's summary ends at a
// word boundary of it.
func TestHTMLFullMessages(t *testing.T) {
	root, fs := samplePage(t)
	text := root.content()
	for _, f := range fs {
		if f.Severity != finding.Pass && !strings.Contains(text, f.Message) {
			t.Errorf("the page does not hold the message %q", f.Message)
		}
	}
	sums := root.all("summary", "")
	folded := 0
	for _, s := range sums {
		lead, ok := strings.CutSuffix(s.content(), " …")
		if !ok {
			continue // a chart's or the passes' fold
		}
		folded++
		var full string
		for _, f := range fs {
			if strings.HasPrefix(f.Message, lead) {
				full = f.Message
			}
		}
		if full == "" {
			t.Errorf("summary %q starts no message", lead)
			continue
		}
		if next := full[len(lead):]; next != "" && next[0] != ' ' {
			t.Errorf("summary %q cuts a word of %q", lead, full)
		}
	}
	if folded != 3 {
		t.Errorf("%d folded messages; want 3 (the messages over %d characters)", folded, htmlMessageWidth)
	}
}

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []float64
	}{
		{2.819, 3.391, []float64{2.8, 2.9, 3.0, 3.1, 3.2, 3.3, 3.4}},
		{3.66, 6.44, []float64{3.5, 4, 4.5, 5, 5.5, 6, 6.5}},
		{0.4, 0.9, []float64{0.4, 0.5, 0.6, 0.7, 0.8, 0.9}},
		{14.3, 38.11, []float64{10, 15, 20, 25, 30, 35, 40}},
		{28272.94, 85725.73, []float64{20000, 40000, 60000, 80000, 100000}},
		{0, 100, []float64{0, 20, 40, 60, 80, 100}},
		{5, 5, []float64{4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6}},
		{0, 0, []float64{-1, -0.5, 0, 0.5, 1}},
		{-3, 2, []float64{-3, -2, -1, 0, 1, 2}},
		{0.1, 0.3, []float64{0.1, 0.15, 0.2, 0.25, 0.3}},
		{1e-7, 3e-7, []float64{1e-7, 1.5e-7, 2e-7, 2.5e-7, 3e-7}},
		{9, 1, []float64{0, 2, 4, 6, 8, 10}},
	}
	for _, tt := range tests {
		got, step := niceTicks(tt.lo, tt.hi, maxTicks)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("niceTicks(%v, %v) (-want +got):\n%s", tt.lo, tt.hi, diff)
		}
		if !oneTwoFive(step) {
			t.Errorf("niceTicks(%v, %v) step = %v; want 1, 2 or 5 × 10^k", tt.lo, tt.hi, step)
		}
		if len(got) > maxTicks+1 {
			t.Errorf("niceTicks(%v, %v) = %d ticks; want at most %d", tt.lo, tt.hi, len(got), maxTicks+1)
		}
	}
}

func TestTickLabel(t *testing.T) {
	tests := []struct {
		v, step float64
		want    string
	}{
		{3.5, 0.5, "3.5"},
		{4, 0.5, "4.0"},
		{40000, 20000, "40000"},
		{-0.0000001, 0.5, "0"},
		{0.15, 0.05, "0.15"},
		{2.0000000001, 2, "2"},
	}
	for _, tt := range tests {
		if got := tickLabel(tt.v, tt.step); got != tt.want {
			t.Errorf("tickLabel(%v, %v) = %q; want %q", tt.v, tt.step, got, tt.want)
		}
	}
}

func TestLeadWords(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"one two three", 9, "one two"},
		{"one two three", 7, "one two"},
		{"one two three", 6, "one"},
		{"averyverylongword and more", 5, "averyverylongword"},
		{"nospaceatall", 4, "nospaceatall"},
		{"é é é é", 4, "é é"},
	}
	for _, tt := range tests {
		if got := leadWords(tt.s, tt.n); got != tt.want {
			t.Errorf("leadWords(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
