package analysis

import (
	"github.com/strataspec/strataspec/engine/checkout"
)

// Validator is a rule's settings type: it checks the settings after they
// decode, returning an error that names the spec's line (Spec.RuleErrorf).
type Validator interface {
	Validate(*checkout.Spec) error
}

// Settings decodes the settings of the pass's rule, or of the name given
// (a rule or family name under the spec's "rules"), into cfg, a pointer,
// and validates them. A spec without settings for name is an error
// wrapping ErrNotApplicable whose reason says what is missing (what, e.g.
// "route_parity configurations").
func Settings(p *Pass, name, what string, cfg Validator) error {
	found, err := p.Spec.Rule(name, cfg)
	if err != nil {
		return err
	}
	if !found {
		return NoSettings("no %s under \"rules\": {\"%s\"} in %s", what, name, checkout.File)
	}
	return cfg.Validate(p.Spec)
}

// OptionalSettings decodes the analyzer's settings, "rules": {"<name>":
// {…}} in the checkout's spec file, strictly into v, for a rule that also
// works without them; found is false when the spec has none.
func OptionalSettings(p *Pass, v any) (found bool, err error) {
	return p.Spec.Rule(p.Analyzer.Name, v)
}
