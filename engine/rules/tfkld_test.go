package rules

import (
	"path/filepath"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/tail"
)

// tfContext builds a rules.Context for a snapshot by hand: the archive and
// every strata run's parsed tail (until engine/audit offers audit.Load).
func tfContext(t *testing.T, root string) *Context {
	t.Helper()
	snap, err := archive.Load(root)
	if err != nil {
		t.Fatalf("archive.Load(%s): %v", root, err)
	}
	c := &Context{Snap: snap, Metrics: map[string]*tail.Metrics{}}
	for _, r := range snap.StrataRuns() {
		c.Metrics[r.Name] = tail.ParseStrata(r.Source, r.Tail)
	}
	return c
}

func TestTFProbe(t *testing.T) {
	for _, s := range []string{"m5-v3", "m5"} {
		c := tfContext(t, filepath.Join("..", "..", "fixtures", s))
		for _, name := range []string{"tf", "kld"} {
			r, _ := Select(name)
			fs, err := r[0].Check(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				t.Log(s, f.String(), "|", f.Raw, "|", f.Source)
			}
		}
	}
}
