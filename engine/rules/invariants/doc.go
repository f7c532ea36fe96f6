// Package invariants holds the rules about the engine's invariants, each
// an analyzer over the snapshot's facts: route parity (parity), the expert
// arena (arena) and memory (memory). What is specific to one checkout —
// parity configurations and tolerances, the arena's environment variable
// and slice count, the plan's hypotheses and their caveats — is read from
// the checkout's spec ("rules": {"parity": …, "arena": …, "memory": …});
// a rule with no settings there says it does not apply.
package invariants

import (
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
)

// validator is a rule's settings, which check themselves after decoding.
type validator interface {
	validate(*checkout.Spec) error
}

// loadSettings decodes the rule's settings from the spec into cfg (a
// pointer) and validates them. A spec without settings for the rule is
// not-applicable, the reason naming what is missing.
func loadSettings(p *analysis.Pass, rule, what string, cfg validator) error {
	spec, err := analysis.Fact(p, facts.Spec)
	if err != nil {
		return err
	}
	found, err := spec.Rule(rule, cfg)
	if err != nil {
		return err
	}
	if !found {
		return analysis.NotApplicable("no %s under \"rules\": {\"%s\"} in %s", what, rule, checkout.File)
	}
	return cfg.validate(spec)
}

// report reports every finding of fs.
func report(p *analysis.Pass, fs []finding.Finding) {
	for _, f := range fs {
		p.Report(f)
	}
}

// line returns line n (1-based) of text, or "".
func line(text string, n int) string {
	if n < 1 {
		return ""
	}
	lines := strings.SplitN(text, "\n", n+1)
	if n > len(lines) {
		return ""
	}
	return strings.TrimSuffix(lines[n-1], "\r")
}
