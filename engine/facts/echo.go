package facts

import (
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/llamacpp"
)

// Echo is the prompt a run's output echoes back, and its tail line.
type Echo struct {
	Text string
	Line int // line of the echo's end in the tail
}

// PromptEchoes are the prompt echoes of the llama.cpp runs whose tails
// hold one (llama-cli's "> …", llama-completion's text before its
// summary), by run name.
var PromptEchoes = NewKey("prompt echoes", func(s *Set) (map[string]Echo, error) {
	out := map[string]Echo{}
	for _, r := range s.Snap.Runs {
		if r.Parser != checkout.ParserLlamaCpp {
			continue
		}
		output, err := r.Text()
		if err != nil {
			continue // an unreadable output is reported by runs.parse
		}
		if text, line := llamacpp.PromptEcho(output); text != "" {
			out[r.Name] = Echo{Text: text, Line: line}
		}
	}
	return out, nil
})
