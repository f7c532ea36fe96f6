package report

import (
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// Rule families, in the order a report lists their fails.
const (
	FamilyComparisons = "comparisons"
	FamilyInputs      = "inputs and provenance"
	FamilyInvariants  = "invariants"
	FamilyCache       = "page cache"
	FamilyTFKLD       = "TF and KLD"
	FamilyCode        = "code"
	FamilyPlan        = "plan"
	FamilyOther       = "other"
)

// familyOrder is the order of the family groups in a report.
func familyOrder() []string {
	return []string{FamilyComparisons, FamilyInputs, FamilyInvariants, FamilyCache, FamilyTFKLD, FamilyCode, FamilyPlan, FamilyOther}
}

// Family returns the family of a rule from its name: plan.* is "plan",
// compare.* "comparisons", input.* and provenance "inputs and provenance",
// the engine's invariants and the runner's own numbers (parity, arena,
// scratch, selftest, memory, summary, derive) "invariants", cache "page
// cache", tf and kld "TF and KLD", code "code"; any other rule "other".
func Family(rule string) string {
	head, _, _ := strings.Cut(rule, ".")
	switch head {
	case "plan":
		return FamilyPlan
	case "compare":
		return FamilyComparisons
	case "input", "provenance":
		return FamilyInputs
	case "parity", "arena", "scratch", "selftest", "memory", "summary", "derive":
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
// rule's default, or "" for none.
func fixOf(f finding.Finding, defaults map[string]string) string {
	if f.Fix != "" {
		return f.Fix
	}
	return defaults[f.Rule]
}
