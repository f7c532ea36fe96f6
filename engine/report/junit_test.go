package report

import (
	"encoding/xml"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// junitRead is the JUnit shape as a CI reader unmarshals it, declared apart
// from the writer's types so the test does not check what it defines.
type junitRead struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitRoundTrip(t *testing.T) {
	fs := append(readerSample(), finding.Finding{Rule: "tf", Severity: finding.Fail, File: "d.txt", Line: 2, Message: hostile, Quote: hostile})
	r := NewWithRules("fixtures/x", readerRules(), fs)
	out := write(t, r, "junit", Options{PathPrefix: "repo/snap"})
	var got junitRead
	require.NoError(t, xml.Unmarshal([]byte(out), &got), "junit output does not parse:\n%s", out)

	perRule := map[string][]finding.Finding{}
	for _, f := range fs {
		perRule[f.Rule] = append(perRule[f.Rule], f)
	}
	require.Len(t, got.Suites, len(r.Rules), "one testsuite per rule")
	fails := 0
	for _, s := range got.Suites {
		want := perRule[s.Name]
		if s.Name == "kld" { // did not apply: one skipped testcase with the reason
			require.Len(t, s.Cases, 1)
			require.NotNil(t, s.Cases[0].Skipped)
			assert.Equal(t, "no KLD runs in the snapshot", s.Cases[0].Skipped.Message)
			continue
		}
		require.Len(t, s.Cases, len(want), "suite %s: one testcase per finding", s.Name)
		assert.Equal(t, len(want), s.Tests)
		for i, c := range s.Cases {
			f := want[i]
			assert.Equal(t, s.Name, c.Classname)
			assert.Equal(t, f.Severity == finding.Fail, c.Failure != nil, "testcase %q fails iff its finding does", c.Name)
			if c.Failure != nil {
				fails++
				assert.Equal(t, clean(f.Message), c.Failure.Message)
			}
			if f.Severity == finding.Warn {
				assert.Contains(t, c.SystemOut, "warn: "+f.Message)
			}
			if f.File != "" { // the place is in the name: Jenkins' schema allows no file attribute
				assert.Contains(t, c.Name, "repo/snap/"+f.File)
			}
		}
	}
	assert.Equal(t, fails, got.Failures)
	assert.Equal(t, r.Summary.Fail, got.Failures)
	assert.Equal(t, len(fs)+1, got.Tests)
}

// TestJUnitUniqueNames: two findings of one rule with the same id, place
// and quote are two testcases with distinct names, as CI readers key
// results by classname and name.
func TestJUnitUniqueNames(t *testing.T) {
	f := finding.Finding{Rule: "tf", Severity: finding.Warn, File: "d.txt", Line: 2, Quote: "<think>", Message: "m"}
	out := write(t, New("snap", []string{"tf"}, []finding.Finding{f, f, f}), "junit", Options{PathPrefix: "."})
	var got junitRead
	require.NoError(t, xml.Unmarshal([]byte(out), &got))
	require.Len(t, got.Suites, 1)
	seen := map[string]bool{}
	for _, c := range got.Suites[0].Cases {
		if seen[c.Classname+"/"+c.Name] {
			t.Errorf("testcase %s/%s appears twice", c.Classname, c.Name)
		}
		seen[c.Classname+"/"+c.Name] = true
	}
	if len(seen) != 3 || !seen["tf/d.txt:2 <think> #3"] {
		t.Errorf("testcase names = %v; want 3, the third %q", seen, "d.txt:2 <think> #3")
	}
}
