package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// The JUnit XML elements this report writes, as GitLab, Jenkins and
// Buildkite read them.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Line      int           `xml:"line,attr,omitempty"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// writeJUnit writes one testsuite per rule and one testcase per finding:
// each claims row, plan number and check is a test. A fail is a failure
// with the message; a warn passes with the warning in system-out; a rule
// that did not apply is a skipped testcase with its reason. Files are paths
// from the repository root.
func (r *Report) writeJUnit(w io.Writer, o Options) error {
	prefix := r.prefix(o)
	doc := junitSuites{Name: "strataspec " + clean(r.Root)}
	index := map[string]int{}
	suite := func(rule string) *junitSuite {
		i, ok := index[rule]
		if !ok {
			i = len(doc.Suites)
			index[rule] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: rule})
		}
		return &doc.Suites[i]
	}
	for _, ri := range r.Rules {
		s := suite(ri.Name)
		if !ri.Applied {
			s.Cases = append(s.Cases, junitCase{Name: ri.Name, Classname: ri.Name, Skipped: &junitSkipped{Message: clean(ri.Reason)}})
			s.Skipped++
		}
	}
	for _, f := range r.Findings {
		s := suite(f.Rule)
		c := junitCase{Name: junitName(f), Classname: f.Rule}
		if loc, ok := locate(prefix, f); ok {
			c.File, c.Line = loc.URI, loc.Line
		}
		switch f.Severity {
		case finding.Fail:
			c.Failure = &junitFailure{Message: clean(f.Message), Type: "fail", Text: junitDetail(f)}
			s.Failures++
		case finding.Warn:
			c.SystemOut = "warn: " + junitDetail(f)
		}
		s.Cases = append(s.Cases, c)
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		s.Tests = len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("report: junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitName names a finding's testcase: id, place and quote.
func junitName(f finding.Finding) string {
	parts := []string{}
	if f.ID != "" {
		parts = append(parts, f.ID)
	}
	parts = append(parts, place(f))
	if f.Quote != "" {
		parts = append(parts, shorten(f.Quote, 80))
	}
	if f.Check != "" {
		parts = append(parts, "("+f.Check+")")
	}
	return clean(strings.Join(parts, " "))
}

// junitDetail is a finding's message, quote, raw values, source and fix,
// one a line.
func junitDetail(f finding.Finding) string {
	lines := []string{clean(f.Message)}
	for _, kv := range [][2]string{{"quote", f.Quote}, {"raw", f.Raw}, {"source", f.Source}, {"fix", f.Fix}} {
		if kv[1] != "" {
			lines = append(lines, kv[0]+": "+clean(kv[1]))
		}
	}
	return strings.Join(lines, "\n")
}
