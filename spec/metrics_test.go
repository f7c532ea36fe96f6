package spec

import (
	"bytes"
	"fmt"
	"sort"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/golden"
	"github.com/strataspec/strataspec/engine/tail"
)

// metricsText prints every parsed metric of a snapshot, one per line:
// the run (or record file), the tail line, the metric name, the text as
// printed and the unit. Parse errors follow their run. The order is the
// archive's, so a diff points at the run that changed.
func metricsText(ctx *audit.Context) []byte {
	var b bytes.Buffer
	write := func(name string, ms *tail.Metrics) {
		fmt.Fprintf(&b, "# %s\n", name)
		for _, m := range ms.List {
			fmt.Fprintf(&b, "%s\t%d\t%s\t%s\t%s\n", name, m.Line, m.Name, m.Num.Text, m.Unit)
		}
		for _, e := range ms.Errors {
			fmt.Fprintf(&b, "%s\terror\t%s\n", name, e)
		}
	}
	for _, r := range ctx.Snap.Runs {
		write(r.Name, ctx.Metrics[r.Name])
	}
	var records []string
	for k := range ctx.Metrics {
		if ctx.Snap.Run(k) == nil {
			records = append(records, k)
		}
	}
	sort.Strings(records)
	for _, k := range records {
		write(k, ctx.Metrics[k])
	}
	return b.Bytes()
}

// TestGoldenMetrics pins the parsed metrics of every run of the audited
// snapshot: a parser change that reads a different value, precision, unit
// or line shows up as a diff of golden/m5-v3/metrics.tsv.
func TestGoldenMetrics(t *testing.T) {
	ctx, err := audit.Load("../fixtures/m5-v3")
	if err != nil {
		t.Fatalf("audit.Load(fixtures/m5-v3) = %v", err)
	}
	golden.Assert(t, "../golden/m5-v3/metrics.tsv", metricsText(ctx))
}

// TestSameRuns checks that the fixed snapshot archives the same runs as the
// audited one: the fix changed the plan and the archive's inputs, not the
// measurements.
func TestSameRuns(t *testing.T) {
	v3, err := audit.Load("../fixtures/m5-v3")
	if err != nil {
		t.Fatalf("audit.Load(fixtures/m5-v3) = %v", err)
	}
	fixed, err := audit.Load("../fixtures/m5")
	if err != nil {
		t.Fatalf("audit.Load(fixtures/m5) = %v", err)
	}
	if len(v3.Snap.Runs) != 22 || len(fixed.Snap.Runs) != 22 {
		t.Fatalf("runs: m5-v3 %d, m5 %d; want 22 each (5 speed + 9 TF + 4 + 4 llama.cpp)", len(v3.Snap.Runs), len(fixed.Snap.Runs))
	}
	for i, r := range v3.Snap.Runs {
		f := fixed.Snap.Runs[i]
		if r.Name != f.Name || r.Tail != f.Tail {
			t.Errorf("run %d: m5-v3 %q and m5 %q differ in name or tail", i, r.Name, f.Name)
		}
	}
}
