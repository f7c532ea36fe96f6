package spec

import (
	"os"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/metric"
	"github.com/strataspec/strataspec/engine/unit"
)

// TestReadersSpeakTheVocabulary: every metric the built-in readers yield
// on the audited snapshot (the engine's logs, llama.cpp's, the runner's
// lines, route_parity and the self-test) is a vocabulary name, in the
// vocabulary's unit: a reader that renames a metric, or yields one no rule
// can ask for by name, fails here.
func TestReadersSpeakTheVocabulary(t *testing.T) {
	ctx, err := audit.Load("../fixtures/m5-v3")
	if err != nil {
		t.Fatalf("audit.Load(fixtures/m5-v3) = %v", err)
	}
	n := 0
	for src, ms := range ctx.Metrics {
		for _, m := range ms.List {
			n++
			d, ok := metric.Lookup(m.Name)
			switch {
			case !ok:
				t.Errorf("%s:%d: metric %q is not in the vocabulary (engine/metric)", src, m.Line, m.Name)
			case unit.Canon(d.Unit) != unit.Canon(m.Unit):
				t.Errorf("%s:%d: metric %q in unit %q; the vocabulary says %q", src, m.Line, m.Name, m.Unit, d.Unit)
			}
		}
	}
	if n == 0 {
		t.Fatal("no metric read from fixtures/m5-v3")
	}
}

// TestREADMEVocabulary keeps README.md's metric table equal to the
// vocabulary the code holds (metric.Markdown), row for row.
func TestREADMEVocabulary(t *testing.T) {
	readmeTable(t, "vocabulary", "metric.Markdown", metric.Markdown())
}

// TestREADMEUnits keeps README.md's unit table equal to the table the code
// holds (unit.Markdown), row for row.
func TestREADMEUnits(t *testing.T) {
	readmeTable(t, "units", "unit.Markdown", unit.Markdown())
}

// readmeTable checks that README.md holds want between the markers
// "<!-- NAME: begin (FUNC) -->" and "<!-- NAME: end -->".
func readmeTable(t *testing.T, name, fn, want string) {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatalf("reading README.md: %v", err)
	}
	begin, end := "<!-- "+name+": begin ("+fn+") -->\n", "<!-- "+name+": end -->"
	readme := string(b)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %s table between %q and %q", name, strings.TrimSpace(begin), end)
	}
	if got := readme[i+len(begin) : j]; got != want {
		t.Errorf("README.md's %s table differs from %s(); replace it with:\n%s", name, fn, want)
	}
}
