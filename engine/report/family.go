package report

import (
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// Rule families: the ids the analyzer registry gives (analysis.Family*),
// in the order a report lists their fails.
const (
	FamilyRuns       = "runs"       // comparisons and the runner's own tables
	FamilyInputs     = "inputs"     // inputs and provenance
	FamilyInvariants = "invariants" // parity, arena, scratch, self-test, memory
	FamilyCache      = "cache"      // page cache
	FamilyTFKLD      = "tf-kld"     // teacher forcing and KLD
	FamilyCode       = "code"       // literals in the sources
	FamilyPlan       = "plan"       // the plan gate
	FamilyOther      = "other"      // a rule no family claims
)

// familyOrder is the order of the family groups in a report.
func familyOrder() []string {
	return []string{FamilyRuns, FamilyInputs, FamilyInvariants, FamilyCache, FamilyTFKLD, FamilyCode, FamilyPlan, FamilyOther}
}

// familyTitle is the heading of a family in a report; an id the report
// does not know is its own heading.
func familyTitle(id string) string {
	switch id {
	case FamilyRuns:
		return "comparisons and runs"
	case FamilyInputs:
		return "inputs and provenance"
	case FamilyCache:
		return "page cache"
	case FamilyTFKLD:
		return "TF and KLD"
	}
	return id
}

// Family returns the family of a rule from its name, for rules whose
// metadata names none: plan.* is FamilyPlan; compare.*, runs.* and the
// runner's own tables (summary, derive) FamilyRuns; input.* and provenance
// FamilyInputs; the engine's invariants (parity, arena, scratch, selftest,
// memory) FamilyInvariants; cache FamilyCache; tf and kld FamilyTFKLD;
// code FamilyCode; any other rule FamilyOther.
func Family(rule string) string {
	head, _, _ := strings.Cut(rule, ".")
	switch head {
	case "plan":
		return FamilyPlan
	case "compare", "runs", "summary", "derive":
		return FamilyRuns
	case "input", "provenance":
		return FamilyInputs
	case "parity", "arena", "scratch", "selftest", "memory":
		return FamilyInvariants
	case "cache":
		return FamilyCache
	case "tf", "kld":
		return FamilyTFKLD
	case "code":
		return FamilyCode
	}
	return FamilyOther
}

// familyRank orders families as familyOrder does; unknown ones last.
func familyRank(fam string) int {
	for i, f := range familyOrder() {
		if f == fam {
			return i
		}
	}
	return len(familyOrder())
}

// fixOf returns the fix a report prints for a finding: its own, or its
// rule's (the analyzer's Fix), or "" for none.
func (r *Report) fixOf(f finding.Finding) string {
	if f.Fix != "" {
		return f.Fix
	}
	return r.rule(f.Rule).Fix
}
