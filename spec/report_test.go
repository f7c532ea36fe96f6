package spec

import (
	"bytes"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/golden"
	"github.com/stretchr/testify/require"
)

// TestGoldenReports pins the full audit report of each snapshot, in the
// text and JSON formats tools/audit prints: a rule that starts or stops
// reporting something, or reports it differently, shows up as a diff.
func TestGoldenReports(t *testing.T) {
	for _, snap := range []string{"m5-v3", "m5"} {
		rep, err := audit.Audit("../fixtures/"+snap, "")
		require.NoError(t, err)
		// The root is printed as given; pin it as tools/audit prints it from
		// the repository root.
		rep.Root = "fixtures/" + snap
		for _, format := range []struct{ name, file string }{{"text", "report.txt"}, {"json", "report.json"}} {
			var buf bytes.Buffer
			require.NoError(t, rep.Write(&buf, format.name))
			golden.Assert(t, "../golden/"+snap+"/"+format.file, buf.Bytes())
		}
	}
}
