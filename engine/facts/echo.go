package facts

import (
	"github.com/strataspec/strataspec/engine/analysis"
	"strings"

	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/runconf"
)

// Echo is the prompt a run's output echoes back, and its tail line.
type Echo struct {
	Text string
	Line int // line of the echo's end in the tail
}

// PromptEchoes are the prompt echoes of the runs that read a prompt file
// and whose format echoes the prompt (format.Format.EchoesPrompt: llama.cpp's
// CLI, or a declared format wrapping it), where the output holds one (llama-cli's "> …",
// llama-completion's text before its summary), by run name. Only those
// outputs are read again, and an echo is copied out of its output, so a
// large snapshot's logs are not kept.
var PromptEchoes = analysis.NewInput("prompt echoes", "the prompts the llama.cpp runs echo", func(p *analysis.Pass) (map[string]Echo, error) {
	out := map[string]Echo{}
	reg := Formats.Of(p)
	for _, r := range p.Snap.Runs {
		if f, ok := reg.Get(r.Parser); !ok || !f.EchoesPrompt() || len(runconf.Of(r, nil, nil).Files) == 0 {
			continue
		}
		output, err := r.Text()
		if err != nil {
			continue // an unreadable output is reported by runs.parse
		}
		if text, line := llamacpp.PromptEcho(output); text != "" {
			out[r.Name] = Echo{Text: strings.Clone(text), Line: line}
		}
	}
	return out, nil
}, Formats.Analyzer)
