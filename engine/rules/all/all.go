// Package all lists every analyzer and the report section of every rule
// family. A rule family is the rules whose ids share a prefix (plan.*,
// compare.*, runs.*; a rule with no dot is a family of its own), and each
// family is one package under engine/rules named as that prefix. This is
// the one place that knows the families; the driver and tools take their
// rules from here.
package all

import (
	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/rules/arena"
	"github.com/strataspec/strataspec/engine/rules/cache"
	"github.com/strataspec/strataspec/engine/rules/code"
	"github.com/strataspec/strataspec/engine/rules/compare"
	"github.com/strataspec/strataspec/engine/rules/derive"
	"github.com/strataspec/strataspec/engine/rules/input"
	"github.com/strataspec/strataspec/engine/rules/kld"
	"github.com/strataspec/strataspec/engine/rules/memory"
	"github.com/strataspec/strataspec/engine/rules/parity"
	"github.com/strataspec/strataspec/engine/rules/plan"
	"github.com/strataspec/strataspec/engine/rules/provenance"
	"github.com/strataspec/strataspec/engine/rules/runs"
	"github.com/strataspec/strataspec/engine/rules/scratch"
	"github.com/strataspec/strataspec/engine/rules/selftest"
	"github.com/strataspec/strataspec/engine/rules/summary"
	"github.com/strataspec/strataspec/engine/rules/tf"
)

// Analyzers returns every analyzer, families in report order.
func Analyzers() []*analysis.Analyzer {
	return append(plan.Analyzers(),
		runs.Parse,
		runs.Exit,
		summary.Summary,
		derive.Derive,
		compare.Unlike,
		compare.Significance,
		compare.Rate,
		input.Archive,
		provenance.Provenance,
		parity.Parity,
		arena.Arena,
		memory.Memory,
		scratch.Scratch,
		selftest.SelfTest,
		cache.Residency,
		cache.Target,
		tf.TF,
		kld.KLD,
		code.Code,
	)
}

// heading is a report section and the rule families it groups.
type heading struct {
	tag, title string
	families   []string
}

// headings are the sections a report lists fails under, in report order.
func headings() []heading {
	return []heading{
		{"runs", "comparisons and runs", []string{"compare", "runs", "summary", "derive"}},
		{"inputs", "inputs and provenance", []string{"input", "provenance"}},
		{"invariants", "invariants", []string{"parity", "arena", "scratch", "selftest", "memory"}},
		{"cache", "page cache", []string{"cache"}},
		{"tf-kld", "TF and KLD", []string{"tf", "kld"}},
		{"code", "code", []string{"code"}},
		{"plan", "plan", []string{"plan"}},
	}
}

// Section returns the report section of the analyzer's family; the zero
// Section (the report's "other") for a family no heading groups.
func Section(a *analysis.Analyzer) report.Section {
	fam := a.Family()
	for i, h := range headings() {
		for _, f := range h.families {
			if f == fam {
				return report.Section{Rank: i + 1, Tag: h.tag, Title: h.title}
			}
		}
	}
	return report.Section{}
}
