package spec

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/report"
)

// schemaCases are the snapshots whose reports are validated: the audited
// fixture, and the same snapshot read from a path with spaces (a link to
// it), whose file URIs must come out percent-encoded.
func schemaCases(t *testing.T) []struct{ name, root, prefix string } {
	t.Helper()
	fixture, err := filepath.Abs("../fixtures/m5-v3")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "snap shots")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	spaced := filepath.Join(dir, "m5 v3")
	if err := os.Symlink(fixture, spaced); err != nil {
		t.Fatal(err)
	}
	return []struct{ name, root, prefix string }{
		{"m5-v3", "../fixtures/m5-v3", "fixtures/m5-v3"},
		{"path with a space", spaced, "snap shots/m5 v3"},
	}
}

// writeReport audits root and writes the report in format with file paths
// under prefix.
func writeReport(t *testing.T, root, prefix, format string) []byte {
	t.Helper()
	rep, err := audit.Audit(root, "")
	if err != nil {
		t.Fatalf("audit(%s): %v", root, err)
	}
	var b bytes.Buffer
	if err := rep.WriteOptions(&b, format, report.Options{PathPrefix: prefix}); err != nil {
		t.Fatalf("write %s: %v", format, err)
	}
	return b.Bytes()
}

// TestSARIFSchema validates -format sarif against the SARIF 2.1.0 schema
// (testdata/schemas), formats asserted, and checks what the schema cannot:
// every result has a region, and every artifact URI parses as a URI
// reference that decodes to the finding's path.
func TestSARIFSchema(t *testing.T) {
	f, err := os.Open("testdata/schemas/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const loc = "sarif-schema-2.1.0.json"
	if err := c.AddResource(loc, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(loc)
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	for _, tc := range schemaCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			out := writeReport(t, tc.root, tc.prefix, "sarif")
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("-format sarif of %s is not valid SARIF 2.1.0:\n%v", tc.root, err)
			}
			var log struct {
				Runs []struct {
					Results []struct {
						RuleID    string `json:"ruleId"`
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct{ URI string }     `json:"artifactLocation"`
								Region           *struct{ StartLine int } `json:"region"`
							} `json:"physicalLocation"`
						} `json:"locations"`
					} `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(out, &log); err != nil {
				t.Fatal(err)
			}
			if len(log.Runs) != 1 || len(log.Runs[0].Results) == 0 {
				t.Fatalf("-format sarif of %s: %d runs; want 1 with results", tc.root, len(log.Runs))
			}
			for i, res := range log.Runs[0].Results {
				if len(res.Locations) != 1 {
					t.Errorf("result %d (%s) has %d locations; want 1", i, res.RuleID, len(res.Locations))
					continue
				}
				pl := res.Locations[0].PhysicalLocation
				if pl.Region == nil || pl.Region.StartLine < 1 {
					t.Errorf("result %d (%s, %s) has no region", i, res.RuleID, pl.ArtifactLocation.URI)
				}
				u, err := url.Parse(pl.ArtifactLocation.URI)
				if err != nil || u.Scheme != "" || u.EscapedPath() != pl.ArtifactLocation.URI {
					t.Errorf("result %d uri %q is not a percent-encoded relative reference (%v)", i, pl.ArtifactLocation.URI, err)
					continue
				}
				if rel, err := filepath.Rel(tc.prefix, u.Path); err != nil || strings.HasPrefix(rel, "..") {
					t.Errorf("result %d uri %q decodes to %q, not a path under %q", i, pl.ArtifactLocation.URI, u.Path, tc.prefix)
				}
			}
		})
	}
}

// TestJUnitSchema validates -format junit against Jenkins' junit-10.xsd
// with xmllint, and checks that no two testcases share classname and name.
func TestJUnitSchema(t *testing.T) {
	xmllint, lookErr := exec.LookPath("xmllint")
	for _, tc := range schemaCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			out := writeReport(t, tc.root, tc.prefix, "junit")
			var doc struct {
				Suites []struct {
					Cases []struct {
						Name      string `xml:"name,attr"`
						Classname string `xml:"classname,attr"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(out, &doc); err != nil {
				t.Fatalf("-format junit of %s does not parse: %v", tc.root, err)
			}
			seen, n := map[string]bool{}, 0
			for _, s := range doc.Suites {
				for _, c := range s.Cases {
					n++
					key := c.Classname + " / " + c.Name
					if seen[key] {
						t.Errorf("-format junit of %s: testcase %q appears twice", tc.root, key)
					}
					seen[key] = true
				}
			}
			if n == 0 {
				t.Fatalf("-format junit of %s has no testcase", tc.root)
			}
			if lookErr != nil {
				t.Skipf("xmllint not found (Debian package libxml2-utils; .ci/run installs it): %v", lookErr)
			}
			file := filepath.Join(t.TempDir(), "report.xml")
			if err := os.WriteFile(file, out, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(xmllint, "--noout", "--schema", "testdata/schemas/junit-10.xsd", file)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("-format junit of %s is not valid against junit-10.xsd: %v\n%s", tc.root, err, msg)
			}
		})
	}
}
