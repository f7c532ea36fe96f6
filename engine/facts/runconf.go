package facts

import "github.com/strataspec/strataspec/engine/runconf"

// RunConfigs are the runs' configurations (binary, mode, threads, prompt
// file and its hash, batch sizes, token counts, every other setting), by
// run name, from each run's argv, environment, parsed tail and the files
// its command line names.
var RunConfigs = NewKey("run configurations", func(s *Set) (map[string]runconf.Config, error) {
	files, err := Get(s, Files)
	if err != nil {
		return nil, err
	}
	ms, err := Get(s, RunMetrics)
	if err != nil {
		return nil, err
	}
	out := make(map[string]runconf.Config, len(s.Snap.Runs))
	for _, r := range s.Snap.Runs {
		out[r.Name] = runconf.Of(r, ms[r.Name], files.Describe)
	}
	return out, nil
})
