package kld

import (
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/tail"
)

// ParsePerplexity reads the results of a llama-perplexity run: chunk
// estimates, the final estimate and the --kl-divergence statistics blocks
// of every generation. It is llamacpp.ParsePerplexity, whose doc comment
// lists the formats and metric names; it stays here for the callers that
// read KLD statistics through this package.
func ParsePerplexity(source, text string) *tail.Metrics {
	return llamacpp.ParsePerplexity(source, text)
}
