// Package audit runs the pipeline: load a snapshot, parse every run's tail
// once, run the selected rules over the parsed metrics, and build a report.
package audit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/metric"
	"github.com/strataspec/strataspec/engine/names"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/rules/all"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/tail"
)

// Load reads the snapshot at root (its spec file, runs and records) into a
// facts set, and parses every run's tail once. A snapshot that cannot be
// read is an error naming the file and place; a tail that parses with
// errors is not: its errors stay in its Metrics, and runs.parse reports them.
func Load(root string) (*Context, error) { return LoadLimits(root, snapfs.Limits{}) }

// LoadLimits is Load within lim (zero fields: snapfs.DefaultLimits); an
// input over a limit is a *snapfs.LimitError naming the file, the limit and
// the flag raising it.
func LoadLimits(root string, lim snapfs.Limits) (*Context, error) {
	snap, err := archive.LoadLimits(root, lim)
	suggest(err)
	if err != nil {
		return nil, err
	}
	if err := snap.Spec.CheckUnits(metric.CheckUnit); err != nil {
		return nil, err
	}
	if err := snap.Spec.CheckNames(knownNames(), names.DidYouMean); err != nil {
		return nil, err
	}
	d := analysis.NewDriver(snap)
	runMs, err := analysis.Compute(d, facts.RunMetrics)
	if err != nil {
		return nil, err
	}
	recMs, err := analysis.Compute(d, facts.RecordMetrics)
	if err != nil {
		return nil, err
	}
	// Runs and records in one map for callers that list metrics; the
	// inputs keep them apart, so a run named like a record's file replaces
	// nothing.
	ctx := &Context{Snap: snap, driver: d, Metrics: make(map[string]*tail.Metrics, len(runMs)+len(recMs))}
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

// Context is a loaded snapshot: the snapshot, every run's and record's
// parsed metrics (runs by name, records by file), and the driver that
// runs analyzers over it.
type Context struct {
	Snap *archive.Snapshot
	// Metrics holds the parsed output of every run, by run name, and of
	// every record beside the runs, by file.
	Metrics map[string]*tail.Metrics

	mu     sync.Mutex
	driver *analysis.Driver
}

// Driver returns the context's analysis driver, which keeps every input
// it reads for the next run; for a context built by hand, a driver over
// Snap holding the context's Metrics as the run and record metrics (made
// once and kept).
func (c *Context) Driver() *analysis.Driver {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.driver != nil {
		return c.driver
	}
	d := analysis.NewDriver(c.Snap)
	if c.Metrics != nil && c.Snap != nil {
		runs := make(map[string]*tail.Metrics, len(c.Snap.Runs))
		for _, r := range c.Snap.Runs {
			runs[r.Name] = c.Metrics[r.Name]
		}
		recs := map[string]*tail.Metrics{}
		for name, ms := range c.Metrics {
			if _, ok := runs[name]; !ok {
				recs[name] = ms
			}
		}
		d.Preset(facts.RunMetrics.Analyzer, runs)
		d.Preset(facts.RecordMetrics.Analyzer, recs)
	}
	c.driver = d
	return d
}

// PlanCheck returns the plan checked against its claims table (gate.Analyzer),
// computed once per context. A plan not in the snapshot is an error
// matching facts.ErrAbsent.
func (c *Context) PlanCheck() (*gate.PlanCheck, error) {
	return analysis.Compute(c.Driver(), gate.Analyzer)
}

// Selection is a set of analyzers to run.
type Selection struct {
	Analyzers []*analysis.Analyzer
}

// Names returns the selected rule names, sorted.
func (s Selection) Names() []string {
	var out []string
	for _, a := range s.Analyzers {
		out = append(out, a.Name)
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
			if near, ok := names.Closest(w, knownNames()); ok {
				return sel, fmt.Errorf("unknown rule %q; did you mean %q? (-list lists the rules)", w, near)
			}
			return sel, fmt.Errorf("unknown rule %q (known: %s)", w, strings.Join(Names(), ", "))
		}
	}
	return sel, nil
}

// RunSelection runs the selected analyzers over ctx and builds the report:
// findings in rule order, the rules that did not apply with their reason,
// and the loader's notes as info lines.
func RunSelection(ctx *Context, sel Selection) (*report.Report, error) {
	var fs []finding.Finding
	var infos []report.RuleInfo
	if len(sel.Analyzers) > 0 {
		res, err := ctx.Run(sel.Analyzers...)
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			fs = append(fs, r.Findings...)
			a := r.Analyzer
			infos = append(infos, report.RuleInfo{Name: a.Name, Doc: a.Doc, Section: all.Section(a), Fix: a.Fix,
				Applied: r.NotApplied == "", Reason: r.NotApplied, Unconfigured: r.Unconfigured})
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Rule < fs[j].Rule })
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	out := report.NewWithRules(ctx.Snap.Root, infos, fs)
	for _, n := range ctx.Snap.Notes {
		out.Info = append(out.Info, n.String())
	}
	return out, nil
}

// Run runs the analyzers over the context (each at most once per context)
// and returns their outcomes. An analyzer that failed, or an input one
// of them read that failed, is an error: unreadable input, named by its
// file and place.
func (c *Context) Run(as ...*analysis.Analyzer) ([]analysis.Result, error) {
	d := c.Driver()
	res, err := d.Run(as)
	if err != nil {
		return nil, err
	}
	if failed := d.Failed(); len(failed) > 0 {
		return res, failure(failed[0], as)
	}
	return res, nil
}

// failure is the error of an analyzer that failed: a rule's (one of as)
// names the rule after the file and place; an input's names its file and
// place alone (a file every plan rule reads is not the error of the rule
// that happened to read it first).
func failure(r analysis.Result, as []*analysis.Analyzer) error {
	suggest(r.Err) // a rule's misspelt setting
	if !slices.Contains(as, r.Analyzer) {
		return r.Err
	}
	return fmt.Errorf("%w (rule %s)", r.Err, r.Analyzer.Name)
}

// ErrNothing is matched (errors.Is) by the error of a snapshot that holds
// nothing to audit: no plan, no runs and no records. Such a folder is a
// mistake (a wrong -root), never a pass.
var ErrNothing = errors.New("nothing to audit")

// CheckSomething returns an error matching ErrNothing, naming the root,
// when the loaded snapshot has no plan, no run and no record.
func CheckSomething(ctx *Context) error {
	snap := ctx.Snap
	if len(snap.Runs) > 0 || len(snap.Parity) > 0 || snap.SelfTest != nil {
		return nil
	}
	if _, err := analysis.Compute(ctx.Driver(), facts.Plan); !errors.Is(err, facts.ErrAbsent) {
		return nil
	}
	return fmt.Errorf("%s: %w: no %s, no run and no record (-root names a strata checkout or a folder of llama.cpp logs)",
		snap.Root, ErrNothing, snap.Spec.Plan)
}

// Audit loads the snapshot at root and runs the rules named by ruleList
// (comma-separated; empty for all). A snapshot with nothing to audit is an
// error matching ErrNothing.
func Audit(root, ruleList string) (*report.Report, error) {
	return AuditLimits(root, ruleList, snapfs.Limits{})
}

// AuditLimits is Audit within lim (see LoadLimits).
func AuditLimits(root, ruleList string, lim snapfs.Limits) (*report.Report, error) {
	sel, err := Select(ruleList)
	if err != nil {
		return nil, err
	}
	ctx, err := LoadLimits(root, lim)
	if err != nil {
		return nil, err
	}
	if err := CheckSomething(ctx); err != nil {
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

// knownNames returns every rule and rule family ("cache" for
// cache.residency and cache.target; "compare" for compare.unlike…), sorted.
func knownNames() []string {
	seen := map[string]bool{}
	for _, a := range all.Analyzers() {
		seen[a.Name] = true
		for i := range len(a.Name) {
			if a.Name[i] == '.' {
				seen[a.Name[:i]] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// suggest adds a "did you mean" to a spec file error about a name the
// format does not know (a key of the spec or of a rule's settings).
func suggest(err error) {
	if ce, ok := errors.AsType[*checkout.Error](err); ok && ce.Unknown != "" && ce.Suggest == "" {
		ce.Suggest = names.DidYouMean(ce.Unknown, ce.Known)
	}
}
