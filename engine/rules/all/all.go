// Package all lists every analyzer of every rule family, in report order.
// It is the one place that knows the families; the driver and tools take
// their rules from here.
package all

import (
	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/rules/cache"
	"github.com/strataspec/strataspec/engine/rules/code"
	"github.com/strataspec/strataspec/engine/rules/inputs"
	"github.com/strataspec/strataspec/engine/rules/invariants"
	"github.com/strataspec/strataspec/engine/rules/plan"
	"github.com/strataspec/strataspec/engine/rules/runs"
	"github.com/strataspec/strataspec/engine/rules/selftest"
	"github.com/strataspec/strataspec/engine/rules/sizing"
	"github.com/strataspec/strataspec/engine/rules/tfkld"
)

// Analyzers returns every analyzer, families in report order.
func Analyzers() []*analysis.Analyzer {
	return append(plan.Analyzers(),
		runs.Parse,
		runs.Exit,
		runs.Summary,
		runs.Derive,
		runs.Unlike,
		runs.Significance,
		runs.Rate,
		inputs.Archive,
		inputs.Provenance,
		invariants.Parity,
		invariants.Arena,
		invariants.Memory,
		sizing.Scratch,
		selftest.SelfTest,
		cache.Residency,
		cache.Target,
		tfkld.TF,
		tfkld.KLD,
		code.Code,
	)
}
