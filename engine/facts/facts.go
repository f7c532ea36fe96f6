// Package facts holds the audit's input analyzers: every input of a
// snapshot that a rule reads and that can be absent or fail (run metrics,
// the plan, the claims table (checked against each other by
// engine/gate's analyzer), the sources, the TF
// files, the recorded files, the runner's results documents) is read once,
// by one reader, into a typed result (analysis.Input), and rules require
// the inputs they read, never opening a file themselves. The snapshot and
// its spec, which every rule has, are fields of analysis.Pass.
package facts

import "github.com/strataspec/strataspec/engine/analysis"

// ErrAbsent is matched (errors.Is) by the error of an input the snapshot
// does not have: the rules that require it do not apply. It is
// analysis.ErrNotApplicable.
var ErrAbsent = analysis.ErrNotApplicable
