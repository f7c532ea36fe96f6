package spec

import (
	"bytes"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/golden"
)

// TestGoldenReports pins the full audit report of each snapshot in every
// format tools/strataspec prints: a rule that starts or stops reporting
// something, or reports it differently, shows up as a diff; so does a change
// of a format.
func TestGoldenReports(t *testing.T) {
	for _, snap := range []string{"m5-v3", "m5"} {
		rep, err := audit.Audit("../fixtures/"+snap, "")
		if err != nil {
			t.Fatalf("audit.Audit(fixtures/%s) = %v", snap, err)
		}
		// The root is printed as given; pin it as tools/strataspec prints it from
		// the repository root, which is also the path prefix of files in
		// the github, sarif and junit formats.
		rep.Root = "fixtures/" + snap
		for _, format := range []struct{ name, file string }{
			{"text", "report.txt"}, {"markdown", "report.md"}, {"json", "report.json"},
			{"sarif", "report.sarif"}, {"junit", "report.xml"}, {"html", "report.html"},
		} {
			var buf bytes.Buffer
			if err := rep.Write(&buf, format.name); err != nil {
				t.Fatalf("fixtures/%s: Write(%q) = %v", snap, format.name, err)
			}
			golden.Assert(t, "../golden/"+snap+"/"+format.file, buf.Bytes())
		}
	}
}
