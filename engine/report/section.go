package report

import (
	"math"

	"github.com/strataspec/strataspec/engine/finding"
)

// A Section is a heading under which a report lists the fails of its
// rules, in the order of Rank; engine/rules/all gives each rule family
// one. The zero Section is "other", for a rule no section claims, listed
// last.
type Section struct {
	Rank  int    // place among the headings, from 1; 0 for "other"
	Tag   string // short name, SARIF's tag of the rule: "runs"
	Title string // the heading: "comparisons and runs"
}

// other is the section of a rule no section claims.
const other = "other"

// tag returns the section's short name, "other" for the zero Section.
func (s Section) tag() string {
	if s.Tag == "" {
		return other
	}
	return s.Tag
}

// title returns the section's heading, "other" for the zero Section.
func (s Section) title() string {
	if s.Title == "" {
		return other
	}
	return s.Title
}

// rank orders sections by Rank, the zero Section last.
func (s Section) rank() int {
	if s.Rank <= 0 {
		return math.MaxInt32
	}
	return s.Rank
}

// fixOf returns the fix a report prints for a finding: its own, or its
// rule's (the analyzer's Fix), or "" for none.
func (r *Report) fixOf(f finding.Finding) string {
	if f.Fix != "" {
		return f.Fix
	}
	return r.rule(f.Rule).Fix
}
