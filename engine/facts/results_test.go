package facts

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/engine/tables"
)

func TestResultsTables(t *testing.T) {
	snap, err := archive.Load(snaptest.Fixture(t, "m5-v3"), format.For)
	if err != nil {
		t.Fatalf("archive.Load(fixtures/m5-v3, format.For): %v", err)
	}
	docs, err := analysis.Compute(analysis.NewDriver(snap), Results)
	if err != nil {
		t.Fatalf("Compute(Results): %v", err)
	}
	if diff := cmp.Diff([]string{snaptest.ResultsFile}, docs.Files); diff != "" {
		t.Fatalf("results documents mismatch (-want +got):\n%s", diff)
	}

	perf, err := docs.Table(tables.Loc{Path: "perf"})
	if err != nil {
		t.Fatalf("Table(perf): %v", err)
	}
	if perf.File != snaptest.ResultsFile || len(perf.Rows) != 14 || perf.Line <= 1 {
		t.Errorf("Table(perf) = %s line %d, %d rows; want %s, 14 rows at their line", perf.File, perf.Line, len(perf.Rows), snaptest.ResultsFile)
	}
	same, err := docs.Table(tables.Loc{File: snaptest.ResultsFile, Path: "perf"})
	if err != nil {
		t.Fatalf("Table(%s: perf): %v", snaptest.ResultsFile, err)
	}
	if same.Line != perf.Line || len(same.Rows) != len(perf.Rows) {
		t.Errorf("Table(%s: perf) = line %d, %d rows; want line %d, %d rows as Table(perf)", snaptest.ResultsFile, same.Line, len(same.Rows), perf.Line, len(perf.Rows))
	}

	for _, loc := range []tables.Loc{{Path: "no_such_block"}, {File: "machine/mtimes.json", Path: "perf"}} {
		if _, err := docs.Table(loc); !errors.Is(err, ErrAbsent) || !errors.Is(err, tables.ErrMissing) {
			t.Errorf("Table(%v) = %v; want ErrAbsent and tables.ErrMissing", loc, err)
		}
	}
}

// TestTablesInAnyJSONFile reads tables out of a JSON file of the checkout
// that is not a results file (m5-shapes keeps the runner's tables beside
// its JSON Lines runs), and fails naming the file for one that is missing
// or not JSON.
func TestTablesInAnyJSONFile(t *testing.T) {
	snap, err := archive.Load(snaptest.Fixture(t, "m5-shapes"), format.For)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := analysis.Compute(analysis.NewDriver(snap), Results)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs.Files) != 0 {
		t.Errorf("results documents = %q; want none (the runs are JSON Lines)", docs.Files)
	}
	perf, err := docs.Table(tables.Loc{File: "runs/derived.json", Path: "tables.perf"})
	if err != nil {
		t.Fatalf("Table(runs/derived.json: tables.perf) = %v", err)
	}
	if perf.File != "runs/derived.json" || len(perf.Rows) != 14 || perf.Line <= 1 {
		t.Errorf("Table(runs/derived.json: tables.perf) = %s line %d, %d rows; want runs/derived.json, 14 rows at their line", perf.File, perf.Line, len(perf.Rows))
	}
	for _, c := range []struct {
		loc  tables.Loc
		want string
	}{
		{tables.Loc{File: "runs/nothing.json", Path: "perf"}, "runs/nothing.json"},
		{tables.Loc{File: "PLAN.md", Path: "perf"}, "PLAN.md:1"},
		{tables.Loc{File: "runs/runs.jsonl", Path: "perf"}, "JSON Lines"},
		{tables.Loc{Path: "perf"}, "no results file"},
	} {
		_, err := docs.Table(c.loc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Table(%v) = %v; want an error naming %q", c.loc, err, c.want)
		}
	}
}
