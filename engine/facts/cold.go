package facts

import (
	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
)

// Cold names what a run reads cold the first time: a model file, read by
// one binary (by content where its sha256 is known, else by its path).
type Cold struct {
	Binary, Model string
}

// ColdOf returns what r reads cold on its first run, and false when r names
// no model file (archive.Run.ModelFile).
func ColdOf(r *archive.Run) (Cold, bool) {
	m, _ := r.ModelFile()
	if m == "" || len(r.Cmd) == 0 {
		return Cold{}, false
	}
	bin := r.Cmd[0]
	if r.BinarySHA256 != "" {
		bin = "sha256:" + r.BinarySHA256
	}
	return Cold{Binary: bin, Model: m}, true
}

// ColdRuns are, per model file and binary (Cold), the first run in archive
// order that reads it: the run that finds the file cold. Runs of every
// program count.
var ColdRuns = analysis.NewInput("cold runs", "the first run on each model file and binary", func(p *analysis.Pass) (map[Cold]string, error) {
	return FirstRuns(p.Snap), nil
})

// FirstRuns computes ColdRuns for a snapshot.
func FirstRuns(snap *archive.Snapshot) map[Cold]string {
	first := map[Cold]string{}
	for _, r := range snap.Runs {
		if c, ok := ColdOf(r); ok {
			if _, seen := first[c]; !seen {
				first[c] = r.Name
			}
		}
	}
	return first
}
