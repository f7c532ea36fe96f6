package spec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// TestREADMELimits keeps the README's table of limits (### Limits) and the
// limits engine/snapfs and engine/jsontree enforce together: each row's
// default ("100,000", "2 GiB", "64 levels") is the value in the code.
func TestREADMELimits(t *testing.T) {
	d := snapfs.DefaultLimits
	want := map[string]int64{
		"bytes read from the snapshot":           d.Bytes,
		"log files the spec's log globs match":   int64(d.Logs),
		"runs, from records and logs":            int64(d.Runs),
		"metrics parsed from one run's output":   int64(d.Metrics),
		"rows of `PLAN.claims`":                  int64(d.ClaimsRows),
		"size of a spec file":                    snapfs.LimitText,
		"size of a results file or log":          snapfs.LimitResults,
		"size of a file a run or the spec names": snapfs.LimitData,
		"nesting of a JSON file":                 jsontree.MaxDepth,
	}
	units := map[string]int64{"": 1, "levels": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
	seen := map[string]bool{}
	for _, line := range strings.Split(readmeSection(t, "### Limits"), "\n") {
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "¦"), "|") // an escaped | is in a cell
		if len(cells) != 5 || !strings.HasPrefix(line, "| ") {
			continue
		}
		label, def := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
		for prefix, w := range want {
			if !strings.HasPrefix(label, prefix) {
				continue
			}
			seen[prefix] = true
			num, unit, _ := strings.Cut(def, " ")
			n, err := strconv.ParseInt(strings.ReplaceAll(num, ",", ""), 10, 64)
			mul, ok := units[unit]
			if err != nil || !ok {
				t.Errorf("README.md limits row %q: default %q is not a number and a unit", label, def)
			} else if n*mul != w {
				t.Errorf("README.md limits row %q: default %s = %d; the code's is %d", label, def, n*mul, w)
			}
		}
	}
	for prefix := range want {
		if !seen[prefix] {
			t.Errorf("README.md's ### Limits table has no row starting %q", prefix)
		}
	}
}
