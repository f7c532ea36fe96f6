package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// unsourcedRules are the rules whose fails are numbers the plan quotes that
// no archived run printed: a report shows them first, as one table.
func unsourcedRules() map[string]bool {
	return map[string]bool{"plan.unsourced": true, "plan.range": true}
}

// entry is a finding as a report lists it, with its mark against a previous
// report ("still", "new"; "" without one).
type entry struct {
	finding.Finding
	Mark string
}

// group is the fails of one section.
type group struct {
	Section Section
	Entries []entry
}

// fixLine is one distinct fix and the findings it would fix.
type fixLine struct {
	Fix   string
	IDs   []string // audit finding ids, in order of first appearance
	Rules []string // rules of the findings without an id
}

// ruleCount is the number of pass findings of a rule.
type ruleCount struct {
	Rule string
	N    int
}

// digest is a report in the reader's order: what fails first, the unsourced
// numbers as one table, then the other fails by section, the warnings, what
// to fix, and the passes as counts.
type digest struct {
	Start      []entry // fails that say where to begin (a plan without claims), first of all
	Unsourced  []entry
	Declared   []entry // claims rows declared, not measured (plan.unsourced, check "declared")
	Groups     []group
	Warns      []entry
	Fixes      []fixLine
	Passes     []ruleCount
	NotApplied []NotApplied
	Fixed      []Mark // fixed since the previous report
}

func (r *Report) digest() digest {
	var d digest
	unsourced := unsourcedRules()
	bySection := map[Section][]entry{}
	for i, f := range r.Findings {
		e := entry{Finding: f, Mark: r.Previous.mark(i)}
		switch {
		case f.Severity == finding.Fail && f.Rule == "plan.uncovered" && f.Check == "adopt":
			// a plan without claims: nothing else matters before it
			d.Start = append(d.Start, e)
		case f.Severity != finding.Pass && f.Rule == "plan.unsourced" && f.Check == "declared":
			d.Declared = append(d.Declared, e)
		case f.Severity == finding.Fail && unsourced[f.Rule] && f.Quote != "":
			// a quoted number: a row of the table; a fail about the gate
			// itself (a claims table that declares no section) has no
			// quote and is listed with its message among the other fails
			d.Unsourced = append(d.Unsourced, e)
		case f.Severity == finding.Fail:
			sec := r.rule(f.Rule).Section
			bySection[sec] = append(bySection[sec], e)
		case f.Severity == finding.Warn:
			d.Warns = append(d.Warns, e)
		}
	}
	for sec, es := range bySection {
		d.Groups = append(d.Groups, group{Section: sec, Entries: es})
	}
	sort.Slice(d.Groups, func(i, j int) bool {
		a, b := d.Groups[i].Section, d.Groups[j].Section
		if a.rank() != b.rank() {
			return a.rank() < b.rank()
		}
		return a.tag() < b.tag()
	})
	// Warnings in section order, so that related lines sit together.
	sort.SliceStable(d.Warns, func(i, j int) bool {
		return r.rule(d.Warns[i].Rule).Section.rank() < r.rule(d.Warns[j].Rule).Section.rank()
	})
	var all []entry
	all = append(all, d.Start...)
	all = append(all, d.Unsourced...)
	for _, g := range d.Groups {
		all = append(all, g.Entries...)
	}
	all = append(all, d.Warns...)
	d.Fixes = r.fixLines(all)
	counts := map[string]int{}
	for _, f := range r.Findings {
		if f.Severity == finding.Pass {
			counts[f.Rule]++
		}
	}
	for _, ri := range r.Rules {
		if counts[ri.Name] > 0 {
			d.Passes = append(d.Passes, ruleCount{ri.Name, counts[ri.Name]})
			delete(counts, ri.Name)
		}
	}
	for _, rule := range sortedKeys(boolKeys(counts)) {
		d.Passes = append(d.Passes, ruleCount{rule, counts[rule]})
	}
	d.NotApplied = r.Summary.NotApplied
	if r.Previous != nil {
		for _, m := range r.Previous.Findings {
			if m.Status == StatusFixed {
				d.Fixed = append(d.Fixed, m)
			}
		}
	}
	return d
}

func boolKeys(m map[string]int) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// fixLines returns each distinct fix once, with the ids (or, for findings
// without one, the rules) of the findings it fixes.
func (r *Report) fixLines(es []entry) []fixLine {
	var out []fixLine
	index := map[string]int{}
	for _, e := range es {
		fix := r.fixOf(e.Finding)
		if fix == "" {
			continue
		}
		i, ok := index[fix]
		if !ok {
			i = len(out)
			index[fix] = i
			out = append(out, fixLine{Fix: fix})
		}
		fl := &out[i]
		if e.ID != "" {
			fl.IDs = appendNew(fl.IDs, e.ID)
		} else {
			fl.Rules = appendNew(fl.Rules, e.Rule)
		}
	}
	return out
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// covers prints what a fix line fixes: "F13, F14 (plan.stale)".
func (fl fixLine) covers() string {
	s := strings.Join(fl.IDs, ", ")
	if len(fl.Rules) > 0 {
		if s != "" {
			s += " "
		}
		s += "(" + strings.Join(fl.Rules, ", ") + ")"
	}
	return s
}

// headline is the verdict line every format starts with.
func (r *Report) headline() string {
	return fmt.Sprintf("verdict: %s — %d fail, %d warn, %d pass in %d rules; root %s",
		r.Verdict, r.Summary.Fail, r.Summary.Warn, r.Summary.Pass, len(r.Summary.Rules), clean(r.Root))
}

// previousLine is the summary line of the comparison with a previous report.
func (c *Comparison) line() string {
	return fmt.Sprintf("against %s: %d fixed, %d still, %d new", clean(c.File), c.Fixed, c.Still, c.New) + c.weakened()
}

// weakened is the part of the comparison line that names checks gone or
// reworded since the previous report ("" for none): what a spec-file edit
// that weakens the gate leaves when the verdict stays the same.
func (c *Comparison) weakened() string {
	var s string
	if c.Gone > 0 {
		s += fmt.Sprintf("; %d checks gone that passed there (%s)", c.Gone, joinCounts(c.GoneRules))
	}
	if c.Reworded > 0 {
		s += fmt.Sprintf("; %d passes worded otherwise (%s)", c.Reworded, joinCounts(c.RewordedRules))
	}
	return s
}

// joinCounts lists rule counts, "kld 2, summary 1".
func joinCounts(cs []RuleCount) string {
	var parts []string
	for _, g := range cs {
		parts = append(parts, fmt.Sprintf("%s %d", g.Rule, g.N))
	}
	return strings.Join(parts, ", ")
}

// sections says how a format writes the lists that text, Markdown and HTML
// share: the fails by section, the warnings and what to fix.
type sections struct {
	failsHead           string // before the first section ("" for none)
	groupHead           func(g group) string
	warnsHead           func(n int) string
	fixesHead           string
	listOpen, listClose string
	item                func(s string) string // one list item, its line end included
	line                func(e entry) string  // a finding, escaped for the format
	fix                 func(fl fixLine) string
}

// writeSections writes the fails by section, the warnings and the fixes.
func writeSections(ew *errWriter, d digest, s sections) {
	list := func(items []string) {
		ew.printf("%s", s.listOpen)
		for _, it := range items {
			ew.printf("%s", s.item(it))
		}
		ew.printf("%s", s.listClose)
	}
	lines := func(es []entry) []string {
		out := make([]string, 0, len(es))
		for _, e := range es {
			out = append(out, s.line(e))
		}
		return out
	}
	if len(d.Groups) > 0 {
		ew.printf("%s", s.failsHead)
		for _, g := range d.Groups {
			ew.printf("%s", s.groupHead(g))
			list(lines(g.Entries))
		}
	}
	if len(d.Warns) > 0 {
		ew.printf("%s", s.warnsHead(len(d.Warns)))
		list(lines(d.Warns))
	}
	if len(d.Fixes) > 0 {
		ew.printf("%s", s.fixesHead)
		var fixes []string
		for _, fl := range d.Fixes {
			fixes = append(fixes, s.fix(fl))
		}
		list(fixes)
	}
}
