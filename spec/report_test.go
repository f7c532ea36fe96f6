package spec

import (
	"bytes"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/golden"
)

// TestGoldenReports pins the full audit report of each snapshot, in the
// text and JSON formats tools/audit prints: a rule that starts or stops
// reporting something, or reports it differently, shows up as a diff.
func TestGoldenReports(t *testing.T) {
	for _, snap := range []string{"m5-v3", "m5"} {
		rep, err := audit.Audit("../fixtures/"+snap, "")
		if err != nil {
			t.Fatal(err)
		}
		// The root is printed as given; pin it as tools/audit prints it from
		// the repository root.
		rep.Root = "fixtures/" + snap
		for _, format := range []struct{ name, file string }{{"text", "report.txt"}, {"json", "report.json"}} {
			var buf bytes.Buffer
			if err := rep.Write(&buf, format.name); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, "../golden/"+snap+"/"+format.file, buf.Bytes())
		}
	}
}
