package analysis

import (
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
)

// Validator is a rule's settings type: it checks the settings after they
// decode, returning an error that names the spec's line (Spec.RuleErrorf).
type Validator interface {
	Validate(*checkout.Spec) error
}

// Settings decodes the settings of the pass's rule, or of the name given
// (a rule or family name under the spec's "rules"), into cfg, a pointer,
// and validates them. The analyzer must declare facts.Spec. A spec without
// settings for name is an error wrapping ErrNotApplicable whose reason
// says what is missing (what, e.g. "route_parity configurations").
func Settings(p *Pass, name, what string, cfg Validator) error {
	spec, err := Fact(p, facts.Spec)
	if err != nil {
		return err
	}
	found, err := spec.Rule(name, cfg)
	if err != nil {
		return err
	}
	if !found {
		return NotApplicable("no %s under \"rules\": {\"%s\"} in %s", what, name, checkout.File)
	}
	return cfg.Validate(spec)
}

// ReportAll reports every finding of fs.
func (p *Pass) ReportAll(fs []finding.Finding) {
	for _, f := range fs {
		p.Report(f)
	}
}
