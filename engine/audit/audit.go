// Package audit runs the pipeline: load a snapshot, parse every run's tail
// once, run the selected rules over the parsed metrics, and build a report.
package audit

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
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
	snap, err := archive.LoadLimits(root, lim, format.For)
	suggest(err)
	if err != nil {
		return nil, err
	}
	faults, err := checkUnits(snap.Spec)
	if err != nil {
		return nil, err
	}
	misnamed, err := checkNames(snap.Spec)
	if err != nil {
		return nil, err
	}
	faults = append(faults, misnamed...)
	for _, re := range snap.RecordErrs {
		faults = append(faults, specFault{meant: recordRule(re.Kind), err: re.Err,
			fix: "make the record readable in its format; until then the rule checks the other records only"})
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
	ctx := &Context{Snap: snap, driver: d, faults: faults, Metrics: make(map[string]*tail.Metrics, len(runMs)+len(recMs))}
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

// IsLlamaCpp reports whether a run's output is one of llama.cpp's
// programs' (format.Registry.LlamaCpp, of the built-in formats).
func IsLlamaCpp(r *archive.Run) bool { return format.Builtin().LlamaCpp(r.Parser) }

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
	// faults are the spec file's bad declarations that are one rule's
	// input (checkNames, checkUnits), reported as its fail findings.
	faults []specFault
}

// specFault is a bad declaration of the spec file and the rule whose fail
// finding it is: the rule named meant, else the first of its family
// (meant "cache": cache.residency), else the first that reads one of
// reads.
type specFault struct {
	meant string
	reads []*analysis.Analyzer
	err   error // naming its file and place
	fix   string
}

// joined returns err's errors: those of an errors.Join, or err.
func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// checkNames checks the spec file's rule names (Spec.CheckNames): a name
// with a nearest known one is the bad input of that rule (a misspelt
// "rules" key leaves it without its settings; a misspelt "ids" key, its
// findings without their id); a name near none is an error.
func checkNames(spec *checkout.Spec) ([]specFault, error) {
	return faultsOf(spec.CheckNames(knownNames(), names.DidYouMean), func(ce *checkout.Error) (specFault, bool) {
		near, ok := names.Closest(ce.Unknown, ce.Known)
		return specFault{meant: near, err: ce, fix: "name the rule as strataspec knows it (-list lists the rules)"}, ok
	})
}

// checkUnits checks the units the spec file declares (Spec.CheckUnits): a
// unit the table does not hold, or one that does not convert into the
// vocabulary's, is the bad input of runs.parse (the rule that says every
// output is understood); the reader leaves such a metric out
// (format.Normalize), and the runs' other metrics are read.
func checkUnits(spec *checkout.Spec) ([]specFault, error) {
	return faultsOf(spec.CheckUnits(metric.CheckUnit), func(ce *checkout.Error) (specFault, bool) {
		return specFault{meant: runsParse, reads: []*analysis.Analyzer{facts.RunMetrics.Analyzer, facts.RecordMetrics.Analyzer}, err: ce,
			fix: "declare a unit of the unit table that converts into the vocabulary's (README: Units)"}, true
	})
}

// faultsOf returns the fault made of each *checkout.Error of err (one, or
// joined); an error of another type, or one fault refuses (false), is
// returned as the error: the audit stops.
func faultsOf(err error, fault func(*checkout.Error) (specFault, bool)) ([]specFault, error) {
	if err == nil {
		return nil, nil
	}
	var out []specFault
	for _, e := range joined(err) {
		ce, ok := errors.AsType[*checkout.Error](e)
		if !ok {
			return nil, e
		}
		f, ok := fault(ce)
		if !ok {
			return nil, ce
		}
		out = append(out, f)
	}
	return out, nil
}

// recordRule is the rule that reads each kind of record (archive's
// RecordParity, RecordSelfTest, RecordMtimes): a record of the kind that
// cannot be read is its fail finding.
func recordRule(kind string) string {
	switch kind {
	case archive.RecordParity:
		return "parity"
	case archive.RecordSelfTest:
		return "selftest"
	}
	return "provenance" // the recorded mtimes
}

// runsParse is the rule that reports what a run's output does not yield.
const runsParse = "runs.parse"

// faultFindings returns the fail findings of the spec faults whose rule
// res holds.
func faultFindings(res []analysis.Result, faults []specFault) []finding.Finding {
	var out []finding.Finding
	for _, m := range faults {
		i := slices.IndexFunc(res, func(r analysis.Result) bool { return r.Analyzer.Name == m.meant })
		if i < 0 {
			i = slices.IndexFunc(res, func(r analysis.Result) bool { return strings.HasPrefix(r.Analyzer.Name, m.meant+".") })
		}
		for _, in := range m.reads {
			if i < 0 {
				i = slices.IndexFunc(res, func(r analysis.Result) bool { return reads(r.Analyzer, in) })
			}
		}
		if i < 0 {
			continue
		}
		pos, msg := placeOf(m.err)
		out = append(out, finding.Finding{Rule: res[i].Analyzer.Name, Severity: finding.Fail, Check: BadInput, File: pos.File, Line: pos.Line,
			Message: msg, Fix: m.fix})
	}
	return out
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
// and returns their outcomes. An analyzer that failed, or an input one of
// them read that failed (a bad setting, an unreadable or malformed file), is
// one rule's fail finding naming the file and place (see failures), and the
// rest runs; the rules reading a failed input did not apply ("failed
// prerequisite X"). Run's error is a malformed list of analyzers, or an
// input over a limit (*snapfs.LimitError: the audit stops, naming the flag
// that raises it).
func (c *Context) Run(as ...*analysis.Analyzer) ([]analysis.Result, error) {
	d := c.Driver()
	res, err := d.Run(as)
	if err != nil {
		return nil, err
	}
	failed := d.Failed()
	for _, f := range failed {
		if le, ok := errors.AsType[*snapfs.LimitError](f.Err); ok {
			return nil, le
		}
	}
	failures(res, failed)
	for _, f := range faultFindings(res, c.faults) {
		i := slices.IndexFunc(res, func(r analysis.Result) bool { return r.Analyzer.Name == f.Rule })
		res[i].Findings = append(slices.Clip(res[i].Findings), f)
	}
	return res, nil
}

// BadInput is the check of a bad input's fail finding (see Context.Run):
// a setting that does not decode or make sense, a file that cannot be read
// or parsed. No spec maps it to an audit finding id.
const BadInput = "bad-input"

// failures adds to res, the outcomes of the selected rules, one fail
// finding per failed analyzer's error (an errors.Join of several, the
// claims table's syntax errors, is one finding each). A rule's own
// failure is its finding; an input's is the finding of its Owner when that
// rule is selected, else of the first selected rule that reads it
// (through its Requires or Uses, at any depth). An input no selected rule
// reads is not the selection's: it is left out.
func failures(res []analysis.Result, failed []analysis.Result) {
	for _, f := range failed {
		i := slices.IndexFunc(res, func(r analysis.Result) bool { return r.Analyzer == f.Analyzer })
		if i < 0 && f.Analyzer.Owner != "" {
			i = slices.IndexFunc(res, func(r analysis.Result) bool {
				return r.Analyzer.Name == f.Analyzer.Owner && reads(r.Analyzer, f.Analyzer)
			})
		}
		if i < 0 {
			i = slices.IndexFunc(res, func(r analysis.Result) bool { return reads(r.Analyzer, f.Analyzer) })
		}
		if i < 0 {
			continue
		}
		res[i].Findings = append(slices.Clip(res[i].Findings), failFindings(res[i].Analyzer, f)...)
		// The rules that did not apply for it say where its error is,
		// rather than repeating it (a claims table's errors, once per rule).
		prefix := "failed prerequisite " + f.Analyzer.Name + ": "
		for j := range res {
			if strings.HasPrefix(res[j].NotApplied, prefix) {
				res[j].NotApplied = fmt.Sprintf("failed prerequisite %s: reported as %s", f.Analyzer.Name, whereReported(f, res[i].Analyzer))
			}
		}
	}
}

// whereReported says where the failure f is reported: as rule's fail
// finding, with f's first place.
func whereReported(f analysis.Result, rule *analysis.Analyzer) string {
	pos, _ := placeOf(joined(f.Err)[0])
	at := finding.Pos{File: pos.File, Line: pos.Line}.String()
	if at == "" {
		return rule.Name + "'s fail"
	}
	return fmt.Sprintf("%s's fail at %s", rule.Name, at)
}

// reads reports whether a requires or uses in, at any depth.
func reads(a, in *analysis.Analyzer) bool {
	seen := map[*analysis.Analyzer]bool{}
	var walk func(*analysis.Analyzer) bool
	walk = func(x *analysis.Analyzer) bool {
		for _, d := range append(append([]*analysis.Analyzer(nil), x.Requires...), x.Uses...) {
			if d == in {
				return true
			}
			if !seen[d] {
				seen[d] = true
				if walk(d) {
					return true
				}
			}
		}
		return false
	}
	return walk(a)
}

// failFindings returns the fail findings of rule for the failure f (the
// rule's own, or an input's it reads): one per error, at the place the
// error names (finding.PosOf, else a leading "file:line: "), with the
// message after that place. An error that names no place is in the file
// of the first error before it that names one, at no line (nowhere when
// none before it does).
func failFindings(rule *analysis.Analyzer, f analysis.Result) []finding.Finding {
	errs := joined(f.Err)
	var out []finding.Finding
	var first finding.Pos
	for _, err := range errs {
		suggest(err) // a misspelt setting: "did you mean"
		pos, msg := placeOf(err)
		if pos.File == "" {
			pos = finding.Pos{File: first.File}
		} else if first.File == "" {
			first = pos
		}
		fd := finding.Finding{Rule: rule.Name, Severity: finding.Fail, Check: BadInput, File: pos.File, Line: pos.Line,
			Message: msg, Fix: "correct the input at the place the finding names: until it reads, the rule checks nothing"}
		if f.Analyzer != rule {
			fd.Source = "input " + f.Analyzer.Name
			fd.Message = fmt.Sprintf("%s (input %q failed: the rules reading it did not apply)", msg, f.Analyzer.Name)
		}
		out = append(out, fd)
	}
	return out
}

// leadingPlace is an error text's leading "file:line: ".
var leadingPlace = regexp.MustCompile(`^([^\s:]+):([0-9]+): `)

// placeOf returns the place an error names and its message after that
// place (file, line and column; a JSON path stays in the message, and a
// message about a whole file keeps its name): its Pos (finding.PosOf),
// else a leading "file:line: " of its text.
func placeOf(err error) (finding.Pos, string) {
	msg := err.Error()
	if pos, ok := finding.PosOf(err); ok && pos.File != "" {
		if pos.Line == 0 {
			return pos, msg // about the whole file: the message names it
		}
		// a JSON path stays in the message: a finding has no field for it
		at := finding.Pos{File: pos.File, Line: pos.Line, Col: pos.Col}
		return pos, strings.TrimPrefix(msg, at.String()+": ")
	}
	if m := leadingPlace.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[2])
		return finding.Pos{File: m[1], Line: line}, msg[len(m[0]):]
	}
	return finding.Pos{}, msg
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
