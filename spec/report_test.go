package spec

import (
	"bytes"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/golden"
	"github.com/stretchr/testify/require"
)

// TestGoldenReports pins the full audit report of each snapshot in every
// format tools/strataspec prints: a rule that starts or stops reporting
// something, or reports it differently, shows up as a diff; so does a change
// of a format.
func TestGoldenReports(t *testing.T) {
	for _, snap := range []string{"m5-v3", "m5"} {
		rep, err := audit.Audit("../fixtures/"+snap, "")
		require.NoError(t, err)
		// The root is printed as given; pin it as tools/strataspec prints it from
		// the repository root, which is also the path prefix of files in
		// the github, sarif and junit formats.
		rep.Root = "fixtures/" + snap
		for _, format := range []struct{ name, file string }{
			{"text", "report.txt"}, {"markdown", "report.md"}, {"json", "report.json"},
			{"sarif", "report.sarif"}, {"junit", "report.xml"}, {"html", "report.html"},
		} {
			var buf bytes.Buffer
			require.NoError(t, rep.Write(&buf, format.name))
			golden.Assert(t, "../golden/"+snap+"/"+format.file, buf.Bytes())
		}
	}
}
