package facts

import (
	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/runconf"
)

// RunConfigs are the runs' configurations (binary, mode, threads, prompt
// file and its hash, batch sizes, token counts, every other setting), by
// run name, from each run's argv, environment, parsed tail and the files
// its command line names.
var RunConfigs = analysis.NewInput("run configurations", "every run's configuration", func(p *analysis.Pass) (map[string]runconf.Config, error) {
	files := Files.Of(p)
	ms := RunMetrics.Of(p)
	out := make(map[string]runconf.Config, len(p.Snap.Runs))
	for _, r := range p.Snap.Runs {
		out[r.Name] = runconf.Of(r, ms[r.Name], files.Describe)
	}
	return out, nil
}, Files.Analyzer, RunMetrics.Analyzer)
