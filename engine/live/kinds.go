package live

import "github.com/strataspec/strataspec/engine/metric"

// Classify says whether a metric must reproduce exactly in a re-run of the
// same command on the same binary and inputs: the kind the metric
// vocabulary (engine/metric) gives it. Sizes and counts the engine computes
// from its configuration and files, token counts, and the quality figures of
// teacher forcing and route parity (the audit saw route_parity identical
// across 3 repeats per math mode) are deterministic; timings, rates, cache
// behaviour and the memory the OS reports are measured. A name the
// vocabulary does not know is measured; Known tells whether it knows it.
func Classify(name string) Kind {
	if d, ok := metric.Lookup(name); ok && d.Kind == metric.Deterministic {
		return Deterministic
	}
	return Measured
}

// Known reports whether the metric vocabulary classifies name (a
// route_parity per-configuration metric by its family), so a test can insist
// that every metric the parsers produce was classified deliberately.
func Known(name string) bool {
	_, ok := metric.Lookup(name)
	return ok
}
