package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
	gatecheck "github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// synthGate writes a synthetic snapshot: a plan of about lines lines whose
// claim section quotes two metrics of a run on every fourth line, a claims
// table binding each quote (plus ranges over every run), and an archive of
// runs runs with ten metrics each. It returns a fresh context over it.
func synthGate(tb testing.TB, dir string, lines, runs int) func() *audit.Context {
	tb.Helper()
	snap := &archive.Snapshot{Root: dir}
	metrics := make(map[string]*tail.Metrics, runs)
	for i := range runs {
		name := fmt.Sprintf("run%05d", i)
		snap.Runs = append(snap.Runs, &archive.Run{Name: name, Group: "speed", Parser: format.Strata})
		ms := &tail.Metrics{Source: name}
		for m := range 10 {
			v := float64(i)/100 + float64(m)*1000 + 1
			ms.Add(tail.Metric{Name: fmt.Sprintf("m%d", m), Num: num.MustParse(fmt.Sprintf("%.2f", v)), Unit: "ms", Line: m + 1})
		}
		metrics[name] = ms
	}
	var p, c strings.Builder
	p.WriteString("# synthetic plan\n\n## 7. Validation\n\n")
	c.WriteString("section §7\nset all = run*\n")
	item := 0
	for n := 4; n < lines; n++ {
		switch {
		case n%100 == 4:
			item++
			fmt.Fprintf(&p, "#### #%d — item\n", item)
		case n%4 == 0:
			r := (n / 4) % runs
			a := float64(r)/100 + 1
			fmt.Fprintf(&p, "- a run of the round (Q2_0, MoCE=0.85): %.2f ms and %.2f ms in §7.1\n", a, a+1000)
			fmt.Fprintf(&c, "§7 #%d | %.2f ms | run%05d:m0\n§7 #%d | %.2f ms | run%05d:m1\n", item, a, r, item, a+1000, r)
		default:
			p.WriteString("Prose about the round, with identifiers such as K256, IQ3_S and 2026-10-15 but no claims.\n")
		}
	}
	lo, hi := 1.0, float64(runs-1)/100+1
	fmt.Fprintf(&p, "- m0 over every run: %.2f–%.2f ms\n", lo, hi)
	fmt.Fprintf(&c, "§7 #%d | %.2f–%.2f ms | range(@all:m0)\n", item, lo, hi)
	if err := os.WriteFile(filepath.Join(dir, "PLAN.md"), []byte(p.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, claims.File), []byte(c.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return func() *audit.Context { return &audit.Context{Snap: snap, Metrics: metrics} }
}

// TestSynthGate checks the benchmark's input passes the gate, so the
// benchmark measures a gate that did its work.
func TestSynthGate(t *testing.T) {
	ctx := synthGate(t, t.TempDir(), 2000, 100)()
	fs := gate(t, ctx)
	if f := failures(fs); len(f) != 0 || len(fs) < 2*2000/4-60 {
		t.Fatalf("synthetic gate: %d findings, fails %v", len(fs), f)
	}
}

// BenchmarkPlanGate runs the plan gate (plan.unsourced, plan.stale,
// plan.range: read PLAN.md and PLAN.claims, parse, bind, check) on synthetic
// snapshots growing together in plan lines and archived runs, up to a
// 100,000-line plan against 10,000 runs. ns/op and B/op should grow
// linearly with size.
func BenchmarkPlanGate(b *testing.B) {
	for _, sz := range []struct{ lines, runs int }{{25000, 2500}, {50000, 5000}, {100000, 10000}} {
		b.Run(fmt.Sprintf("lines=%d/runs=%d", sz.lines, sz.runs), func(b *testing.B) {
			ctx := synthGate(b, b.TempDir(), sz.lines, sz.runs)
			b.ReportAllocs()
			var fs []finding.Finding
			for b.Loop() {
				fs = gate(b, ctx())
			}
			if f := failures(fs); len(f) != 0 {
				b.Fatalf("synthetic gate failed: %v", f[:1])
			}
			b.ReportMetric(float64(len(fs)), "findings")
		})
	}
}

// hugeLinePlan returns fixtures/m5's plan with a line of about size bytes
// of unbound numbers ("1234.56 ms, …") added to §7.1 #5.
func hugeLinePlan(tb testing.TB, size int) []byte {
	tb.Helper()
	pt := string(readFixture(tb, "m5", "PLAN.md"))
	var l strings.Builder
	l.WriteString("- ")
	for i := 0; l.Len() < size; i++ {
		fmt.Fprintf(&l, "%d.%02d ms, ", i%10000, i%100)
	}
	const anchor = "- IQ3_S, 43-tok: arena + RA"
	if !strings.Contains(pt, anchor) {
		tb.Fatalf("fixtures/m5/PLAN.md lacks %q", anchor)
	}
	return []byte(strings.Replace(pt, anchor, l.String()+"\n"+anchor, 1))
}

// BenchmarkPlanHugeLine runs the plan gate on fixtures/m5 with a 5 MB line
// of about 500,000 unbound numbers in a claim section. The plan's tokens
// are scanned line by line and the unbound ones listed up to
// gatecheck.MaxUnbound, so B/op is a few times the plan's size, not a
// multiple of the count of numbers (issue 13: 6.6 KB per number before).
func BenchmarkPlanHugeLine(b *testing.B) {
	base := loadSnap(b, "m5")
	ctx := withFiles(b, base, hugeLinePlan(b, 5<<20), readFixture(b, "m5", "PLAN.claims"))
	b.ReportAllocs()
	var fs []finding.Finding
	for b.Loop() {
		// a fresh context each time: the plan check is memoized per context
		fs = gate(b, &audit.Context{Snap: ctx.Snap, Metrics: ctx.Metrics})
	}
	if n := len(failures(fs)); n != gatecheck.MaxUnbound+1 {
		b.Fatalf("huge line: %d fails; want %d listed and one counting the rest", n, gatecheck.MaxUnbound+1)
	}
	b.ReportMetric(float64(len(fs)), "findings")
}
