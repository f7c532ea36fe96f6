// Package analysis defines rules as analyzers, after golang.org/x/tools'
// go/analysis: an Analyzer has a name, a doc, the analyzers it requires
// and a run function returning a typed result; a Driver calls them in
// dependency order over one snapshot, each with a Pass that holds what
// every analyzer has (the snapshot and its spec, as go/analysis's Pass
// holds the files and their types) and the results of its requirements.
//
// Inputs that can be absent or fail (a run's metrics, the plan and its
// claims check, the sources, the TF files, the recorded files) are
// analyzers too, input analyzers that report nothing and return a typed
// result (Input), in engine/facts. A rule requires the inputs it reads.
// An input that did not apply makes its dependents not apply for the same
// reason; one that failed makes them "not applied: failed prerequisite X",
// and the rest runs. Families of rules live in small packages under
// engine/rules; engine/rules/all lists them.
package analysis

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/finding"
)

// Analyzer is one rule, or one input the rules read.
type Analyzer struct {
	// Name is the stable rule id reports carry, e.g. "plan.unsourced".
	Name string
	// Doc is one line for -list and the README.
	Doc string
	// Fix is the default "what to fix" line for the rule's fail findings.
	Fix string
	// Metrics lists the metrics (engine/metric's vocabulary names) the
	// analyzer reads from runs and records: it applies to every run that
	// has them, whoever produced them, and says which are missing when
	// none has them.
	Metrics []string
	// Requires lists the analyzers whose results Run reads
	// (Pass.ResultOf): when one does not apply or fails, this one does not
	// run.
	Requires []*Analyzer
	// Uses lists analyzers whose results Run reads when they apply: one
	// that does not apply leaves this one running without its result (an
	// optional input, such as the plan for a rule that also checks runs no
	// plan quotes); one that fails stops it, as a requirement does.
	Uses []*Analyzer
	// Owner, for an input analyzer, names the rule whose fail finding the
	// input's failure is (a bad "rules.tf" is the tf rule's); "" makes it
	// the first selected rule that reads the input. A failed input is
	// reported once, by one rule, and the rules reading it do not apply.
	Owner string
	// Run reports findings through the pass and returns a result for the
	// analyzers that require this one. An error wrapping ErrNotApplicable
	// says the analyzer's input is absent; any other error is unreadable
	// input.
	Run func(*Pass) (any, error)
}

func (a *Analyzer) String() string { return a.Name }

// Family returns the analyzer's rule family: its name up to the first dot
// ("compare" for compare.unlike), or the whole name when it has none. A
// family is one package under engine/rules, named as the family.
func (a *Analyzer) Family() string {
	fam, _, _ := strings.Cut(a.Name, ".")
	return fam
}

// ErrNotApplicable is wrapped by the error of an analyzer whose input the
// snapshot does not have: the report says it did not apply, and why.
var ErrNotApplicable = errors.New("not applicable")

// NotApplicable returns an error saying the rule does not apply, and why.
func NotApplicable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotApplicable, fmt.Sprintf(format, args...))
}

// ErrNoSettings is matched (errors.Is) by the error of a rule that did not
// apply because the spec file gives no settings it needs; it wraps
// ErrNotApplicable. The text report folds such rules into one line.
var ErrNoSettings = fmt.Errorf("%w (no settings in the spec file)", ErrNotApplicable)

// noSettings is NoSettings's error: its text is NotApplicable's.
type noSettings string

func (e noSettings) Error() string { return ErrNotApplicable.Error() + ": " + string(e) }
func (e noSettings) Unwrap() error { return ErrNoSettings }

// NoSettings returns an error saying the rule does not apply because the
// spec file gives no settings it needs, and which.
func NoSettings(format string, args ...any) error {
	return noSettings(fmt.Sprintf(format, args...))
}

// Pass is what an analyzer sees while it runs.
type Pass struct {
	Analyzer *Analyzer
	// Snap is the loaded snapshot: runs, records, notes, its files.
	Snap *archive.Snapshot
	// Spec is the checkout's spec (strataspec.json, or the defaults).
	Spec *checkout.Spec
	// ResultOf holds the results of the analyzers in Requires, and of
	// those in Uses that applied.
	ResultOf map[*Analyzer]any

	findings []finding.Finding
	why      map[*Analyzer]string // used analyzers that did not apply: why
}

// Why returns why a, an analyzer in the pass's Uses, did not apply ("" when
// it applied): a rule that needs it after all says so in its own words
// ("no PLAN.md" would be false of a plan whose claims table failed).
func (p *Pass) Why(a *Analyzer) string { return p.why[a] }

// Report records a finding; its Rule defaults to the analyzer's name and its
// ID to the one the checkout's spec gives the rule and check.
func (p *Pass) Report(f finding.Finding) {
	if f.Rule == "" {
		f.Rule = p.Analyzer.Name
	}
	if f.ID == "" && p.Spec != nil {
		f.ID = p.Spec.ID(f.Rule, f.Check)
	}
	if f.Fix == "" && f.Severity > finding.Pass {
		f.Fix = p.Analyzer.Fix
	}
	p.findings = append(p.findings, f)
}

// ReportAll reports every finding of fs.
func (p *Pass) ReportAll(fs []finding.Finding) {
	for _, f := range fs {
		p.Report(f)
	}
}

// Result is one analyzer's outcome.
type Result struct {
	Analyzer *Analyzer
	Findings []finding.Finding
	// NotApplied says why the analyzer did not apply, "" when it did.
	NotApplied string
	// Unconfigured is set when it did not apply for want of settings the
	// spec file does not give (ErrNoSettings), its own or a required input's.
	Unconfigured bool
	// Err is the analyzer's own error: unreadable input, or a programming
	// error. Its dependents did not apply ("failed prerequisite").
	Err error

	value any
}

// A Driver runs analyzers over one snapshot, each at most once: a result
// computed for one Run is kept for the next, so that a caller reading an
// input (the plan check, for -suggest) and then running the rules reads
// every input once. It is safe for concurrent use; runs are serialised.
type Driver struct {
	snap *archive.Snapshot
	spec *checkout.Spec

	mu    sync.Mutex
	done  map[*Analyzer]*Result
	order []*Analyzer // analyzers run, in the order they ran
}

// NewDriver returns a driver over a loaded snapshot.
func NewDriver(snap *archive.Snapshot) *Driver {
	spec := snap.Spec
	if spec == nil {
		spec = checkout.Default()
	}
	return &Driver{snap: snap, spec: spec, done: map[*Analyzer]*Result{}}
}

// Snapshot returns the snapshot the driver runs over.
func (d *Driver) Snapshot() *archive.Snapshot { return d.snap }

// Preset sets a's result to v, as if a had run and returned it: for a
// caller that holds an input already (metrics parsed by hand in a test).
// A result already computed or preset is kept.
func (d *Driver) Preset(a *Analyzer, v any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.done[a]; !ok {
		d.done[a] = &Result{Analyzer: a, value: v}
	}
}

// Run runs the analyzers and every analyzer they require or use, each
// once, in dependency order (requirements first, otherwise in the order
// given), and returns the outcomes of the analyzers as (not their
// requirements), in the order given. An analyzer's error is its Result's
// Err, and its dependents do not apply; Run's own error is a malformed
// list (a cycle, two analyzers of one name) or a finding without a
// severity.
func (d *Driver) Run(as []*Analyzer) ([]Result, error) {
	order, err := sortDeps(as)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, a := range order {
		if _, ok := d.done[a]; ok {
			continue
		}
		res, err := d.run(a)
		if err != nil {
			return nil, err
		}
		d.done[a] = res
		d.order = append(d.order, a)
	}
	out := make([]Result, 0, len(as))
	for _, a := range as {
		out = append(out, *d.done[a])
	}
	return out, nil
}

// Failed returns the outcomes of every analyzer that failed (its Run
// returned an error other than not applicable), requirements included, in
// the order they ran.
func (d *Driver) Failed() []Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Result
	for _, a := range d.order {
		if r := d.done[a]; r.Err != nil {
			out = append(out, *r)
		}
	}
	return out
}

// run runs one analyzer whose requirements have run.
func (d *Driver) run(a *Analyzer) (*Result, error) {
	p := &Pass{Analyzer: a, Snap: d.snap, Spec: d.spec, ResultOf: map[*Analyzer]any{}, why: map[*Analyzer]string{}}
	for _, r := range deps(a) {
		rr := d.done[r]
		why, unconf := "", false
		switch {
		case rr.Err != nil:
			why = fmt.Sprintf("failed prerequisite %s: %v", r.Name, rr.Err)
		case rr.NotApplied != "" && declares(a.Requires, r):
			why, unconf = rr.NotApplied, rr.Unconfigured // as the input says: "PLAN.md: not in the snapshot"
		case rr.NotApplied != "":
			p.why[r] = rr.NotApplied
			continue // a used input that did not apply: run without it
		}
		if why != "" {
			// As go/analysis does: an analyzer whose requirement has no
			// result is not run.
			return &Result{Analyzer: a, NotApplied: why, Unconfigured: unconf}, nil
		}
		p.ResultOf[r] = rr.value
	}
	v, err := a.Run(p)
	res := &Result{Analyzer: a, Findings: p.findings, value: v}
	switch {
	case errors.Is(err, ErrNotApplicable):
		res.NotApplied = strings.TrimPrefix(err.Error(), ErrNotApplicable.Error()+": ")
		res.Unconfigured = errors.Is(err, ErrNoSettings)
	case err != nil:
		res.Err = err
	}
	for _, f := range res.Findings {
		if !f.Severity.Valid() {
			return nil, fmt.Errorf("internal error: rule %s reported %q without a severity", a.Name, f.String())
		}
	}
	return res, nil
}

func sortDeps(as []*Analyzer) ([]*Analyzer, error) {
	var order []*Analyzer
	state := map[*Analyzer]int{} // 1 visiting, 2 done
	var visit func(a *Analyzer, path []string) error
	visit = func(a *Analyzer, path []string) error {
		switch state[a] {
		case 1:
			return fmt.Errorf("analysis: cycle in Requires: %s", strings.Join(append(path, a.Name), " → "))
		case 2:
			return nil
		}
		state[a] = 1
		for _, r := range deps(a) {
			if err := visit(r, append(path, a.Name)); err != nil {
				return err
			}
		}
		state[a] = 2
		order = append(order, a)
		return nil
	}
	names := map[string]*Analyzer{}
	var check func(a *Analyzer, from string) error
	check = func(a *Analyzer, from string) error {
		if a == nil || a.Name == "" || a.Run == nil {
			return fmt.Errorf("analysis: an analyzer with no name or no Run (%s)", from)
		}
		if b, ok := names[a.Name]; ok && b != a {
			return fmt.Errorf("analysis: two analyzers named %s", a.Name)
		}
		if _, ok := names[a.Name]; ok {
			return nil
		}
		names[a.Name] = a
		for _, r := range deps(a) {
			if err := check(r, "required by "+a.Name); err != nil {
				return err
			}
		}
		return nil
	}
	for _, a := range as {
		if err := check(a, "in the list"); err != nil {
			return nil, err
		}
	}
	for _, a := range as {
		if err := visit(a, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// deps returns a's requirements and the analyzers it uses.
func deps(a *Analyzer) []*Analyzer {
	return append(append([]*Analyzer(nil), a.Requires...), a.Uses...)
}

// Input is an input analyzer whose result has type T: a rule lists
// in.Analyzer in its Requires (or Uses) and reads the result with Of.
type Input[T any] struct {
	*Analyzer
}

// NewInput returns the input analyzer name, read by read. An input
// reports no findings; an error wrapping ErrNotApplicable says the
// snapshot does not have it.
func NewInput[T any](name, doc string, read func(*Pass) (T, error), requires ...*Analyzer) *Input[T] {
	if name == "" || read == nil {
		panic("analysis: NewInput with an empty name or a nil reader")
	}
	return &Input[T]{&Analyzer{Name: name, Doc: doc, Requires: requires,
		Run: func(p *Pass) (any, error) { return read(p) }}}
}

// Using adds as to the input's Uses (inputs it reads when they apply) and
// returns the input.
func (in *Input[T]) Using(as ...*Analyzer) *Input[T] {
	in.Uses = append(in.Uses, as...)
	return in
}

// OwnedBy sets the input's Owner, the rule whose fail finding the input's
// failure is, and returns the input.
func (in *Input[T]) OwnedBy(rule string) *Input[T] {
	in.Owner = rule
	return in
}

// Of returns the input's result in p. The pass's analyzer must require
// the input: reading one it did not declare is a programming error, and
// panics, as a type assertion on a missing go/analysis result does.
func (in *Input[T]) Of(p *Pass) T {
	v, ok := in.Lookup(p)
	if !ok && !declares(p.Analyzer.Requires, in.Analyzer) {
		panic(fmt.Sprintf("analysis: %s reads input %s without requiring it", p.Analyzer.Name, in.Name))
	}
	return v
}

// Lookup returns the input's result in p and whether there is one: false
// for an input in the pass's Uses that did not apply (or one not declared).
func (in *Input[T]) Lookup(p *Pass) (T, bool) {
	v, ok := p.ResultOf[in.Analyzer]
	if !ok {
		var zero T
		return zero, false
	}
	t, _ := v.(T) // a nil value of an interface type asserts to the zero T
	return t, true
}

func declares(as []*Analyzer, a *Analyzer) bool {
	for _, b := range as {
		if a == b {
			return true
		}
	}
	return false
}

// Compute runs the input in (and what it requires) on d and returns its
// result: for a caller outside a rule (a tool, a test). An input that did
// not apply is an error wrapping ErrNotApplicable.
func Compute[T any](d *Driver, in *Input[T]) (T, error) {
	var zero T
	res, err := d.Run([]*Analyzer{in.Analyzer})
	if err != nil {
		return zero, err
	}
	switch r := res[0]; {
	case r.Err != nil:
		return zero, r.Err
	case r.NotApplied != "":
		return zero, fmt.Errorf("%w: %s", ErrNotApplicable, r.NotApplied)
	}
	t, _ := res[0].value.(T)
	return t, nil
}
