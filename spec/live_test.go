package spec

import (
	"sort"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/live"
)

// TestLiveClassification insists that every metric the strata and
// route_parity parsers read from the snapshot is classified on purpose as
// deterministic (a live re-run must print it exactly) or measured (it may
// drift), so a new metric cannot slip into the live comparison unclassified.
func TestLiveClassification(t *testing.T) {
	ctx, err := audit.Load("../fixtures/m5-v3")
	if err != nil {
		t.Fatal(err)
	}
	unknown := map[string]bool{}
	checked := 0
	classify := func(key string) {
		for _, m := range ctx.Metrics[key].List {
			checked++
			if !live.Known(m.Name) {
				unknown[m.Name] = true
			}
		}
	}
	for _, r := range ctx.Snap.Runs {
		if !audit.IsLlamaCpp(r) { // llama.cpp runs are carried over: never re-run
			classify(r.Name)
		}
	}
	for _, rec := range ctx.Snap.Parity {
		classify(rec.File)
	}
	if checked == 0 {
		t.Fatal("fixtures/m5-v3: no strata or route_parity metric parsed; nothing classified")
	}
	var names []string
	for n := range unknown {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > 0 {
		t.Errorf("metrics not classified in engine/live (deterministic or measured): %v", names)
	}
}
