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

// defaultFixes holds, per rule, the fix a report prints for a finding whose
// rule left Fix empty.
func defaultFixes() map[string]string {
	return map[string]string{
		"plan.unsourced": "quote the number a run printed, at its precision, or bind the quote in PLAN.claims to the run that printed it",
		"plan.stale":     "update the PLAN.claims rows whose quote, source or caveat is no longer in the plan",
		"plan.range":     "quote the range over every run of its set, the cold first run included, or state why a run is left out",
		"compare.unlike": "compare runs alike in binary, mode, threads, prompt, batch and token counts, or state the difference as a caveat beside the claim",
		"compare.rate":   "divide a per-token rate by the run's own token count, not by a constant",
		"code":           "derive quoted numbers from the run's own counts, not from literals in the source",
		"input.archive":  "archive every file a run read, exactly as it read it",
		"provenance":     "re-run the carried-over runs in this round, or mark them as carried over in the plan",
		"parity":         "keep route_parity errors within tolerance and identical across repeats and math modes",
		"arena":          "size the arena from the .experts file and page size, one size everywhere",
		"scratch":        "plan and size the scratch with one function, and enforce the cap",
		"selftest":       "make the self-test print its exact PASS line and check eviction by residency, not a return value",
		"memory":         "log swapout and min_avail in every run, and label unmeasured memory claims as hypotheses",
		"summary":        "recompute the runner's summaries from the tails it archived",
		"derive":         "recompute derived fields from the raw values they derive from",
		"cache":          "verify eviction and warm-up with mincore, on the file the arena fill reads",
		"tf":             "score teacher forcing on whole turns in the template's format, without template tokens, or state a caveat",
		"kld":            "score at least 3 documents per domain with a bootstrap interval, or state the sample size as a caveat",
	}
}

// fixOf returns the fix a report prints for a finding: its own, or its
// rule's (from the rule's metadata, else the report's table), or "" for
// none.
func (r *Report) fixOf(f finding.Finding, defaults map[string]string) string {
	if f.Fix != "" {
		return f.Fix
	}
	if fix := r.rule(f.Rule).Fix; fix != "" {
		return fix
	}
	return defaults[f.Rule]
}
