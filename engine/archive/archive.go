// Package archive loads a strata checkout (or a fixture snapshot laid out like
// one): the validation runner's results JSON with its runs, and the files
// beside it that the audit reads.
//
// PLACEHOLDER: the types below are the contract other packages code against;
// the loader is being written.
package archive

// Snapshot is one strata checkout as the audit reads it.
type Snapshot struct {
	Root string // directory the snapshot was loaded from
	Runs []*Run // every run, strata and carried-over llama.cpp, in results order
}

// Run is one archived run.
type Run struct {
	Name        string            // unique across the snapshot
	Group       string            // e.g. "speed", "tf_kld", "llama_unpatched", "llama_patched"
	Cmd         []string          // argv
	Env         map[string]string // nil when the run was carried over (env: null)
	CarriedOver bool              // env was null: the run was not re-run
	ExitCode    int
	DurationS   float64
	Tail        string // output tail as archived
	Source      string // file and JSON path of the tail, e.g. "results/x.json: runs[3].output_tail"
}

// Run returns the run with the given name, or nil.
func (s *Snapshot) Run(name string) *Run {
	for _, r := range s.Runs {
		if r.Name == name {
			return r
		}
	}
	return nil
}
