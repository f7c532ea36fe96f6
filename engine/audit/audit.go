// Package audit runs the pipeline: load a snapshot, parse every run's tail
// once, run the selected rules over the parsed metrics, and build a report.
package audit

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/rules"
	"github.com/strataspec/strataspec/engine/tail"
)

// Load reads the snapshot at root and parses every run's tail with the
// parser for the program that produced it, and every record beside the
// results (route_parity logs, the self-test output) keyed by its file. A snapshot that cannot be read is
// an error naming the file and place; a tail that parses with errors is not:
// its errors stay in its Metrics, and the summary rule reports them.
func Load(root string) (*rules.Context, error) {
	snap, err := archive.Load(root)
	if err != nil {
		return nil, err
	}
	ctx := &rules.Context{Snap: snap, Metrics: make(map[string]*tail.Metrics, len(snap.Runs))}
	for _, r := range snap.Runs {
		ctx.Metrics[r.Name] = ParseRun(r)
	}
	// Records beside the results are keyed by their file, which no run name
	// can collide with (run names have no slash).
	for _, rec := range snap.Parity {
		ctx.Metrics[rec.File] = tail.ParseRouteParity(rec.File, rec.Text)
	}
	if rec := snap.SelfTest; rec != nil {
		ctx.Metrics[rec.File] = tail.ParseSelfTest(rec.File, rec.Text)
	}
	return ctx, nil
}

// IsLlamaCpp reports whether a run's program is one of llama.cpp's, by the
// binary name in argv[0] (llamacpp.Program).
func IsLlamaCpp(r *archive.Run) bool {
	if len(r.Cmd) == 0 {
		return false
	}
	_, ok := llamacpp.Program(r.Cmd[0])
	return ok
}

// ParseRun parses a run's tail: llama.cpp runs with the parsers of their
// program (llamacpp.ParseProgram), strata runs with the window CLI parser;
// the runner's appended lines (memory, disk) are read from every tail.
func ParseRun(r *archive.Run) *tail.Metrics {
	if len(r.Cmd) > 0 {
		if prog, ok := llamacpp.Program(r.Cmd[0]); ok {
			return tail.Merge(llamacpp.ParseProgram(prog, r.Source, r.Tail), tail.ParseRunner(r.Source, r.Tail))
		}
	}
	return tail.ParseStrata(r.Source, r.Tail)
}

// Run runs rules over ctx and builds the report. A rule that cannot read its
// input stops the audit with an error (exit 2 in tools/audit).
func Run(ctx *rules.Context, rs []rules.Rule) (*report.Report, error) {
	var all []finding.Finding
	var names []string
	for _, r := range rs {
		fs, err := r.Check(ctx)
		if err != nil {
			return nil, &RuleError{Rule: r.Name, Err: err}
		}
		for i := range fs {
			if fs[i].Rule == "" {
				fs[i].Rule = r.Name
			}
			if !fs[i].Severity.Valid() {
				return nil, &RuleError{Rule: r.Name, Err: fmt.Errorf("internal error: finding %q has no severity", fs[i].String())}
			}
		}
		all = append(all, fs...)
		names = append(names, r.Name)
	}
	return report.New(ctx.Snap.Root, names, all), nil
}

// RuleError is a rule's failure to read its input. Its message leads with
// what the user must fix (the file and line the rule's error names) and ends
// with the rule that met it: inputs shared by several rules (PLAN.md,
// PLAN.claims) are read by whichever runs first.
type RuleError struct {
	Rule string
	Err  error
}

func (e *RuleError) Error() string {
	// A rule that named itself ("cache: results/…") is not named twice.
	return strings.TrimPrefix(e.Err.Error(), e.Rule+": ") + " (rule " + e.Rule + ")"
}

// Unwrap returns the rule's error.
func (e *RuleError) Unwrap() error { return e.Err }

// Audit loads the snapshot at root and runs the rules named by ruleList
// (comma-separated; empty for all).
func Audit(root, ruleList string) (*report.Report, error) {
	rs, err := rules.Select(ruleList)
	if err != nil {
		return nil, err
	}
	ctx, err := Load(root)
	if err != nil {
		return nil, err
	}
	return Run(ctx, rs)
}
