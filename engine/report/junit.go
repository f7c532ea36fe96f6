package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// The JUnit XML elements this report writes, as GitLab, Jenkins and
// Buildkite read them: the subset Jenkins' junit-10.xsd allows (no file or
// line on a testcase, errors required on a testsuite, skipped counted on
// a testsuite, not on testsuites). spec/junit_schema_test.go validates
// the output against that schema.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
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
// that did not apply is a skipped testcase with its reason. A testcase is
// named by its finding's id, place (the path from the repository root and
// the line) and quote; names are unique within a rule (a second finding of
// the same name gets " #2"), as test reports key results by classname and
// name.
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
	names := map[string]int{}
	for _, f := range r.Findings {
		s := suite(f.Rule)
		name := junitName(prefix, f)
		key := f.Rule + "\x00" + name
		if names[key]++; names[key] > 1 {
			name = fmt.Sprintf("%s #%d", name, names[key])
		}
		c := junitCase{Name: name, Classname: f.Rule}
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

// junitName names a finding's testcase: id, place (from the repository
// root, under prefix) and quote.
func junitName(prefix string, f finding.Finding) string {
	parts := []string{}
	if f.ID != "" {
		parts = append(parts, f.ID)
	}
	if loc, ok := locate(prefix, f); ok {
		where := loc.URI
		if loc.Line > 0 {
			where = fmt.Sprintf("%s:%d", loc.URI, loc.Line)
		}
		if loc.Inner != "" {
			where += " (" + loc.Inner + ")"
		}
		parts = append(parts, where)
	} else {
		parts = append(parts, place(f))
	}
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
