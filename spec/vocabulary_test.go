package spec

import (
	"os"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/metric"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/stretchr/testify/require"
)

// TestReadersSpeakTheVocabulary: every metric the built-in readers yield
// on the audited snapshot (the engine's logs, llama.cpp's, the runner's
// lines, route_parity and the self-test) is a vocabulary name, in the
// vocabulary's unit: a reader that renames a metric, or yields one no rule
// can ask for by name, fails here.
func TestReadersSpeakTheVocabulary(t *testing.T) {
	ctx, err := audit.Load("../fixtures/m5-v3")
	require.NoError(t, err)
	n := 0
	for src, ms := range ctx.Metrics {
		for _, m := range ms.List {
			n++
			d, ok := metric.Lookup(m.Name)
			switch {
			case !ok:
				t.Errorf("%s:%d: metric %q is not in the vocabulary (engine/metric)", src, m.Line, m.Name)
			case plan.CanonUnit(d.Unit) != plan.CanonUnit(m.Unit):
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
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	const begin, end = "<!-- vocabulary: begin (metric.Markdown) -->\n", "<!-- vocabulary: end -->"
	readme := string(b)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the vocabulary table between %q and %q", strings.TrimSpace(begin), end)
	}
	if got, want := readme[i+len(begin):j], metric.Markdown(); got != want {
		t.Errorf("README.md's vocabulary table differs from metric.Markdown(); replace it with:\n%s", want)
	}
}
