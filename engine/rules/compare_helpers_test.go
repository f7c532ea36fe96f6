package rules

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/tail"
)

// fullContext builds a rules.Context by hand (engine/audit imports this
// package): the archive and every run's parsed tail, llama.cpp runs with
// engine/llamacpp, all with the runner's lines.
func fullContext(t *testing.T, root string) *Context {
	t.Helper()
	snap, err := archive.Load(root)
	if err != nil {
		t.Fatalf("archive.Load(%s): %v", root, err)
	}
	c := &Context{Snap: snap, Metrics: map[string]*tail.Metrics{}}
	for _, r := range snap.Runs {
		if len(r.Cmd) > 0 && strings.HasPrefix(filepath.Base(r.Cmd[0]), "llama") {
			c.Metrics[r.Name] = tail.Merge(llamacpp.Parse(r.Source, r.Tail), tail.ParseRunner(r.Source, r.Tail))
		} else {
			c.Metrics[r.Name] = tail.ParseStrata(r.Source, r.Tail)
		}
	}
	return c
}

func fixtureRoot(name string) string { return filepath.Join("..", "..", "fixtures", name) }

// worst returns the highest severity among findings.
func worst(fs []finding.Finding) finding.Severity {
	w := finding.Pass
	for _, f := range fs {
		if f.Severity > w {
			w = f.Severity
		}
	}
	return w
}

// withID returns the findings carrying an audit finding id.
func withID(fs []finding.Finding, id string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.ID == id {
			out = append(out, f)
		}
	}
	return out
}

func dump(t *testing.T, fs []finding.Finding) {
	t.Helper()
	for _, f := range fs {
		t.Logf("%v | quote=%q raw=%q src=%q", f, f.Quote, f.Raw, f.Source)
	}
}
