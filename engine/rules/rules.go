// Package rules holds the legacy rule registry and the plan check the spec
// tests share. Every rule has moved to an analyzer family under
// engine/rules/… (listed by engine/rules/all); the registry is empty in the
// program and stays until engine/audit stops running it beside the
// analyzers. It is built at init and read-only afterwards.
package rules

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/tail"
)

// Rule is one check over a snapshot.
type Rule struct {
	// Name is the stable rule id that reports carry, e.g. "plan.unsourced".
	Name string
	// Doc is a one-line description for -help and the README.
	Doc string
	// Check returns the rule's findings: a pass finding for what holds (so a
	// report shows what was checked), warn or fail for what does not. An
	// error means the rule could not read its input (a missing or malformed
	// file); the audit then exits 2 naming it.
	Check func(*Context) ([]finding.Finding, error)
}

var registry = map[string]Rule{}

// Register adds a rule. It is called from init functions only; a duplicate or
// malformed name is a programming error and panics at init.
func Register(r Rule) {
	if r.Name == "" || r.Check == nil {
		panic("rules: Register with empty name or nil Check")
	}
	if _, dup := registry[r.Name]; dup {
		panic("rules: duplicate rule " + r.Name)
	}
	registry[r.Name] = r
}

// All returns every registered rule, sorted by name.
func All() []Rule {
	out := make([]Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Select returns the rules named by a comma-separated list. An entry selects
// the rule of that name and every rule below it ("plan" selects
// "plan.unsourced", "plan.stale" and "plan.range"). An empty list selects all.
// An entry that selects nothing is an error.
func Select(list string) ([]Rule, error) {
	if strings.TrimSpace(list) == "" {
		return All(), nil
	}
	seen := map[string]bool{}
	var out []Rule
	for _, want := range strings.Split(list, ",") {
		want = strings.TrimSpace(want)
		if want == "" {
			continue
		}
		n := 0
		for _, r := range All() {
			if r.Name == want || strings.HasPrefix(r.Name, want+".") {
				n++
				if !seen[r.Name] {
					seen[r.Name] = true
					out = append(out, r)
				}
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("unknown rule %q (known: %s)", want, strings.Join(Names(), ", "))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Names returns the names of all registered rules, sorted.
func Names() []string {
	var names []string
	for _, r := range All() {
		names = append(names, r.Name)
	}
	return names
}

// Context is what a rule sees: the loaded snapshot and every run's tail,
// parsed once. Rules never re-parse a tail; they read Metrics.
type Context struct {
	Snap *archive.Snapshot
	// Metrics holds the parsed tail of every run, by run name.
	Metrics map[string]*tail.Metrics
	// Facts is the snapshot's facts layer, shared with the analyzers.
	Facts *facts.Set

	mu   sync.Mutex
	memo map[string]*memoEntry
}

// FactSet returns the context's facts: Facts, or, for a context built
// without them, a set over Snap holding the context's Metrics as the run
// and record metrics (made once and kept in Facts).
func (c *Context) FactSet() *facts.Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Facts != nil {
		return c.Facts
	}
	set := facts.New(c.Snap)
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
		facts.Put(set, facts.RunMetrics, runs)
		facts.Put(set, facts.RecordMetrics, recs)
	}
	c.Facts = set
	return set
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// Memo returns the value of f for key, computing it once per Context. Rules
// that share a derived input (the parsed PLAN, the claims table) load it
// through Memo so that it is read once per audit. f may itself call Memo for
// other keys; a key whose f asks for that same key deadlocks, as a
// sync.Once calling itself does.
func (c *Context) Memo(key string, f func() (any, error)) (any, error) {
	c.mu.Lock()
	if c.memo == nil {
		c.memo = map[string]*memoEntry{}
	}
	e, ok := c.memo[key]
	if !ok {
		e = &memoEntry{}
		c.memo[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = f() })
	return e.v, e.err
}
