package report

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
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
	if err := xml.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("junit output does not parse: %v\n%s", err, out)
	}

	perRule := map[string][]finding.Finding{}
	for _, f := range fs {
		perRule[f.Rule] = append(perRule[f.Rule], f)
	}
	if len(got.Suites) != len(r.Rules) {
		t.Fatalf("junit report has %d testsuites; want %d, one per rule", len(got.Suites), len(r.Rules))
	}
	fails := 0
	for _, s := range got.Suites {
		want := perRule[s.Name]
		if s.Name == "kld" { // did not apply: one skipped testcase with the reason
			const reason = "no KLD runs in the snapshot"
			if len(s.Cases) != 1 || s.Cases[0].Skipped == nil || s.Cases[0].Skipped.Message != reason {
				t.Errorf("suite kld = %+v; want one testcase skipped with %q", s.Cases, reason)
			}
			continue
		}
		if len(s.Cases) != len(want) || s.Tests != len(want) {
			t.Fatalf("suite %s: %d testcases, tests=%d; want %d, one testcase per finding", s.Name, len(s.Cases), s.Tests, len(want))
		}
		for i, c := range s.Cases {
			f := want[i]
			if c.Classname != s.Name {
				t.Errorf("testcase %q classname = %q; want its suite %q", c.Name, c.Classname, s.Name)
			}
			if (c.Failure != nil) != (f.Severity == finding.Fail) {
				t.Errorf("testcase %q failure = %v for a %v finding; want a failure iff the finding fails", c.Name, c.Failure != nil, f.Severity)
			}
			if c.Failure != nil {
				fails++
				if c.Failure.Message != clean(f.Message) {
					t.Errorf("testcase %q failure message = %q; want %q", c.Name, c.Failure.Message, clean(f.Message))
				}
			}
			if want := "warn: " + f.Message; f.Severity == finding.Warn && !strings.Contains(c.SystemOut, want) {
				t.Errorf("testcase %q system-out = %q; want it to contain %q", c.Name, c.SystemOut, want)
			}
			// the place is in the name: Jenkins' schema allows no file attribute
			if want := "repo/snap/" + f.File; f.File != "" && !strings.Contains(c.Name, want) {
				t.Errorf("testcase name %q; want it to contain %q", c.Name, want)
			}
		}
	}
	if got.Failures != fails || got.Failures != r.Summary.Fail {
		t.Errorf("junit failures = %d; want %d (failed testcases) and %d (the summary's fails)", got.Failures, fails, r.Summary.Fail)
	}
	if got.Tests != len(fs)+1 {
		t.Errorf("junit tests = %d; want %d, one per finding and the skipped rule", got.Tests, len(fs)+1)
	}
}

// TestJUnitUniqueNames: two findings of one rule with the same id, place
// and quote are two testcases with distinct names, as CI readers key
// results by classname and name.
func TestJUnitUniqueNames(t *testing.T) {
	f := finding.Finding{Rule: "tf", Severity: finding.Warn, File: "d.txt", Line: 2, Quote: "<think>", Message: "m"}
	out := write(t, New("snap", []string{"tf"}, []finding.Finding{f, f, f}), "junit", Options{PathPrefix: "."})
	var got junitRead
	if err := xml.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("junit output does not parse: %v\n%s", err, out)
	}
	if len(got.Suites) != 1 {
		t.Fatalf("junit report has %d testsuites; want 1", len(got.Suites))
	}
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
