// Package audit runs the pipeline: load a snapshot, parse every run's tail
// once, run the selected rules over the parsed metrics, and build a report.
package audit

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/rules"
	"github.com/strataspec/strataspec/engine/rules/all"
	"github.com/strataspec/strataspec/engine/tail"
)

// Load reads the snapshot at root (its spec file, runs and records) into a
// facts set, and parses every run's tail once. A snapshot that cannot be
// read is an error naming the file and place; a tail that parses with
// errors is not: its errors stay in its Metrics, and runs.parse reports them.
func Load(root string) (*rules.Context, error) {
	snap, err := archive.Load(root)
	if err != nil {
		return nil, err
	}
	set := facts.New(snap)
	runMs, err := facts.Get(set, facts.RunMetrics)
	if err != nil {
		return nil, err
	}
	recMs, err := facts.Get(set, facts.RecordMetrics)
	if err != nil {
		return nil, err
	}
	// The legacy rules read runs and records from one map; a run named like
	// a record's file does not replace the record there.
	ctx := &rules.Context{Snap: snap, Facts: set, Metrics: make(map[string]*tail.Metrics, len(runMs)+len(recMs))}
	for k, v := range runMs {
		ctx.Metrics[k] = v
	}
	for k, v := range recMs {
		ctx.Metrics[k] = v
	}
	return ctx, nil
}

// ParseRun parses a run's tail with the parser for its program.
func ParseRun(r *archive.Run) *tail.Metrics { return facts.ParseRun(nil, r) }

// IsLlamaCpp reports whether a run's program is one of llama.cpp's.
func IsLlamaCpp(r *archive.Run) bool {
	switch r.Parser {
	case checkout.ParserLlamaCpp, checkout.ParserBench, checkout.ParserPerplexity, checkout.ParserServer:
		return true
	}
	return false
}

// Selection is a set of rules to run: analyzers and the rules not yet moved
// into analyzer families.
type Selection struct {
	Analyzers []*analysis.Analyzer
	Legacy    []rules.Rule
}

// Names returns the selected rule names, sorted.
func (s Selection) Names() []string {
	var out []string
	for _, a := range s.Analyzers {
		out = append(out, a.Name)
	}
	for _, r := range s.Legacy {
		out = append(out, r.Name)
	}
	sort.Strings(out)
	return out
}

// RuleInfo is one rule for -list: its name and one line.
type RuleInfo struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

// Rules returns every rule, sorted by name.
func Rules() []RuleInfo {
	var out []RuleInfo
	for _, a := range all.Analyzers() {
		out = append(out, RuleInfo{a.Name, a.Doc})
	}
	for _, r := range rules.All() {
		out = append(out, RuleInfo{r.Name, r.Doc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Select returns the rules named by a comma-separated list; an entry
// selects the rule of that name and every rule below it ("plan" selects
// "plan.unsourced"…). An empty list selects all; an entry that selects
// nothing is an error.
func Select(list string) (Selection, error) {
	var sel Selection
	want := strings.Split(list, ",")
	if strings.TrimSpace(list) == "" {
		want = nil
	}
	match := func(name string) bool {
		if want == nil {
			return true
		}
		for _, w := range want {
			w = strings.TrimSpace(w)
			if w != "" && (name == w || strings.HasPrefix(name, w+".")) {
				return true
			}
		}
		return false
	}
	for _, a := range all.Analyzers() {
		if match(a.Name) {
			sel.Analyzers = append(sel.Analyzers, a)
		}
	}
	for _, r := range rules.All() {
		if match(r.Name) {
			sel.Legacy = append(sel.Legacy, r)
		}
	}
	for _, w := range want {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		n := 0
		for _, ri := range Rules() {
			if ri.Name == w || strings.HasPrefix(ri.Name, w+".") {
				n++
			}
		}
		if n == 0 {
			var names []string
			for _, ri := range Rules() {
				names = append(names, ri.Name)
			}
			return sel, fmt.Errorf("unknown rule %q (known: %s)", w, strings.Join(names, ", "))
		}
	}
	return sel, nil
}

// RunSelection runs the selected analyzers and legacy rules over ctx and
// builds the report: findings in rule order, the rules that did not apply
// with their reason, and the loader's notes as info lines.
func RunSelection(ctx *rules.Context, sel Selection) (*report.Report, error) {
	var fs []finding.Finding
	var infos []report.RuleInfo
	if len(sel.Analyzers) > 0 {
		res, err := analysis.Run(ctx.FactSet(), sel.Analyzers)
		if err != nil {
			if ie, ok := inputError(ctx, err); ok {
				return nil, ie
			}
			return nil, err
		}
		for _, r := range res {
			fs = append(fs, r.Findings...)
			a := r.Analyzer
			infos = append(infos, report.RuleInfo{Name: a.Name, Doc: a.Doc, Family: a.Family, Fix: a.Fix,
				Applied: r.NotApplied == "", Reason: r.NotApplied})
		}
	}
	rep, err := Run(ctx, sel.Legacy)
	if err != nil {
		return nil, err
	}
	fs = append(fs, rep.Findings...)
	infos = append(infos, rep.Rules...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Rule < fs[j].Rule })
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	out := report.NewWithRules(ctx.Snap.Root, infos, fs)
	for _, n := range ctx.Snap.Notes {
		out.Info = append(out.Info, n.String())
	}
	return out, nil
}

// Run runs rules over ctx and builds the report. A rule that cannot read its
// input stops the audit with an error (exit 2 in tools/audit).
func Run(ctx *rules.Context, rs []rules.Rule) (*report.Report, error) {
	var all []finding.Finding
	var infos []report.RuleInfo
	for _, r := range rs {
		fs, err := r.Check(ctx)
		if err != nil {
			if ie, ok := inputError(ctx, err); ok {
				return nil, ie
			}
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
		// A rule reports a pass finding for what it checked: one with no
		// finding had nothing to check.
		infos = append(infos, report.RuleInfo{Name: r.Name, Doc: r.Doc, Applied: len(fs) > 0})
	}
	return report.NewWithRules(ctx.Snap.Root, infos, all), nil
}

// inputError returns the claims table's syntax errors when err is one of
// them: a file every plan rule reads is named by its file and line alone,
// not by the rule that happened to read it first.
func inputError(ctx *rules.Context, err error) (error, bool) {
	if _, ok := errors.AsType[*claims.Error](err); !ok {
		return nil, false
	}
	if _, cerr := facts.Get(ctx.FactSet(), facts.Claims); cerr != nil {
		return cerr, true
	}
	return nil, false
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
	sel, err := Select(ruleList)
	if err != nil {
		return nil, err
	}
	ctx, err := Load(root)
	if err != nil {
		return nil, err
	}
	return RunSelection(ctx, sel)
}

// Names returns every rule's name, sorted.
func Names() []string {
	var out []string
	for _, r := range Rules() {
		out = append(out, r.Name)
	}
	return out
}
