package plan

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/num"
	planmd "github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

// Label is rule plan.label.
var Label = newAnalyzer("plan.label",
	"the settings (MoCE=0.85), flags (-ub 1024) and model identifiers (Q2_0, K256) in a claim's sentence agree with the configuration "+
		"(argv, environment, model file) of the runs its numbers are bound to",
	true, planLabel)

// labelAliases maps llama.cpp's short flags to the long spelling they
// share a setting with (common/arg.cpp), after normalizing (labelKey).
var labelAliases = map[string]string{
	"ub": "ubatch_size", "b": "batch_size", "t": "threads", "c": "ctx_size", "n": "n_predict", "predict": "n_predict",
	"ngl": "n_gpu_layers", "gpu_layers": "n_gpu_layers", "m": "model", "tb": "threads_batch", "p": "prompt",
	// llama-bench's record fields
	"n_ubatch": "ubatch_size", "n_batch": "batch_size", "n_threads": "threads",
}

// labelKey normalizes a setting or flag name: lower case, no leading
// dashes, "-" as "_", llama.cpp's short flags as their long names.
func labelKey(name string) string {
	k := strings.ReplaceAll(strings.ToLower(strings.TrimLeft(name, "-")), "-", "_")
	if a, ok := labelAliases[k]; ok {
		return a
	}
	return k
}

// runLabels is a run's configuration as labels name it: every flag with
// its value and every environment variable, by labelKey (for a llama-bench
// record, its metrics too: n_ubatch, n_gen, …); and the parts of its model
// file's name (K256-Q2_0-metal.gguf: K256, Q2_0, metal).
type runLabels struct {
	settings map[string]string // labelKey → value
	spelled  map[string]string // labelKey → the flag or variable as the run wrote it
	model    string            // model file base name, "" when none
	parts    []string
}

func labelsOf(r *archive.Run, ms *tail.Metrics) runLabels {
	rl := runLabels{settings: map[string]string{}, spelled: map[string]string{}}
	args := r.Cmd
	if len(args) > 0 {
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !planmd.IsFlag(a) {
			continue
		}
		name, val, eq := strings.Cut(a, "=")
		if !eq && i+1 < len(args) && !planmd.IsFlag(args[i+1]) {
			i++
			val = args[i]
		}
		k := labelKey(name)
		rl.settings[k], rl.spelled[k] = val, name
	}
	for k, v := range r.Env {
		rl.settings[labelKey(k)], rl.spelled[labelKey(k)] = v, k
	}
	if ms != nil {
		// The configuration a metric was measured under, as its output
		// printed it (a llama-bench row's n_ubatch, n_gen, …), is the run's
		// configuration where argv says nothing.
		for _, m := range ms.List {
			for _, f := range m.Config() {
				if k := labelKey(f.Key); rl.settings[k] == "" {
					rl.settings[k], rl.spelled[k] = f.Value, f.Key
				}
			}
		}
	}
	if m := rl.settings["model"]; m != "" {
		rl.model = path.Base(strings.ReplaceAll(m, "\\", "/"))
		rl.parts = strings.FieldsFunc(rl.model, func(r rune) bool { return r == '-' || r == '.' })
	}
	return rl
}

// dedupeConfigs drops a record named twice with the same configuration
// (two rows reading the same configuration of one route_parity log).
func dedupeConfigs(runs []string, cfg []runLabels) ([]string, []runLabels) {
	seen := map[string]bool{}
	var r2 []string
	var c2 []runLabels
	for i, name := range runs {
		k := name + "\x00" + fmt.Sprint(cfg[i].settings)
		if !seen[k] {
			seen[k] = true
			r2, c2 = append(r2, name), append(c2, cfg[i])
		}
	}
	return r2, c2
}

// recordLabels is the configuration of a record: its recorded argv and
// environment (rec, nil when unknown; STRATA_METAL_MATH=fast), and what was
// printed beside the metrics a row reads from it (route_parity's K and
// moce); ok is false when it has none.
func recordLabels(rec *archive.Record, ms *tail.Metrics, row *claims.Row) (runLabels, bool) {
	if ms == nil {
		return runLabels{}, false
	}
	read := map[string]bool{}
	for _, m := range row.Metrics() {
		read[m] = true
	}
	rl := runLabels{settings: map[string]string{}, spelled: map[string]string{}}
	if rec != nil {
		rl = labelsOf(&archive.Run{Cmd: rec.Cmd, Env: rec.Env}, nil)
	}
	for _, m := range ms.List {
		if !read[m.Name] {
			continue
		}
		for _, f := range m.Config() {
			if k := labelKey(f.Key); rl.settings[k] == "" {
				rl.settings[k], rl.spelled[k] = f.Value, f.Key
			}
		}
	}
	return rl, len(rl.settings) > 0
}

// sameValue reports whether a label's value and a run's agree: equal
// numbers (0.85 and 0.850), or equal text ignoring case.
func sameValue(a, b string) bool {
	x, errx := num.Parse(a)
	y, erry := num.Parse(b)
	if errx == nil && erry == nil {
		return x.Value == y.Value
	}
	return strings.EqualFold(a, b)
}

// modelClass is the kind of a model identifier: "K" for a model size
// (K256), "Q" for a quantization (Q2_0, IQ3_S).
func modelClass(id string) byte {
	if strings.HasPrefix(id, "K") {
		return 'K'
	}
	return 'Q'
}

// labelGroup is what makes two labels of a line say the same thing
// (MoCE=0 and MoCE=0.85, Q2_0 and IQ3_S): its setting, or its kind of
// model identifier.
func labelGroup(lb planmd.Label) string {
	if lb.Kind == planmd.Model {
		return "model:" + string(modelClass(lb.Name))
	}
	return "setting:" + labelKey(lb.Name)
}

// where names a sentence in a finding: "on this line" for one on one line,
// "in this sentence" for one that wraps.
func where(s planmd.Sentence) string {
	if first, last := s.Lines(); first != last {
		return "in this sentence"
	}
	return "on this line"
}

// whose is where's possessive: "this line's", "this sentence's".
func whose(s planmd.Sentence) string {
	if first, last := s.Lines(); first != last {
		return "this sentence's"
	}
	return "this line's"
}

// posLabel is a label of the plan with its line.
type posLabel struct {
	planmd.Label
	line int
}

func (lb posLabel) pos() planmd.Pos { return planmd.Pos{Line: lb.line, Col: lb.Col} }

// sentenceLabels returns the labels written in sentence s (planmd's
// sentences: a wrapped sentence's labels on every line of it), in order.
func sentenceLabels(doc *planmd.Doc, s planmd.Sentence) []posLabel {
	var out []posLabel
	first, last := s.Lines()
	for ln := first; ln <= last; ln++ {
		for _, lb := range planmd.Labels(doc.Lines[ln-1].Text) {
			if p := (posLabel{lb, ln}); s.Contains(p.pos()) {
				out = append(out, p)
			}
		}
	}
	return out
}

// labelsLead reports, per label group, whether the group's labels come
// before the numbers they qualify in the sentence ("Q2_0 3.66–6.44 GB/s,
// IQ3_S 6.10–7.07 GB/s"): the group's first label is before the first bound
// number. Otherwise they follow them ("14.3 tok/s at -ub 1024, 21.7 at -ub
// 2048").
func labelsLead(labels []posLabel, bound []gate.Binding) map[string]bool {
	var first planmd.Pos
	for _, b := range bound {
		if at := (planmd.Pos{Line: b.Token.Line, Col: b.Token.Col}); first.Line == 0 || at.Before(first) {
			first = at
		}
	}
	lead := map[string]bool{}
	for _, lb := range labels {
		g := labelGroup(lb.Label)
		if _, seen := lead[g]; !seen {
			lead[g] = lb.pos().Before(first)
		}
	}
	return lead
}

// labelScope returns the stretch of sentence s that labels[i] speaks for:
// when no other label of its group is in it, the numbers after it if the
// sentence has one after it (followed), else those before it; else from
// it to the next label of its group where the group's labels lead, or from
// the previous label of its group to it. A label in parentheses
// ("23.42 GiB (IQ3_S)", "(K=256, MoCE=0.85)") qualifies what comes before
// it.
func labelScope(labels []posLabel, i int, s planmd.Sentence, lead, followed bool) (lo, hi planmd.Pos) {
	lb := labels[i]
	prev, next := s.Start, s.End
	alone := true
	for j, o := range labels {
		if j == i || labelGroup(o.Label) != labelGroup(lb.Label) {
			continue
		}
		alone = false
		if o.pos().Before(lb.pos()) && prev.Before(o.pos()) {
			prev = o.pos()
		}
		if lb.pos().Before(o.pos()) && o.pos().Before(next) {
			next = o.pos()
		}
	}
	switch {
	case lb.InParens:
		return prev, lb.pos()
	case alone && followed:
		return lb.pos(), s.End // the one label of its kind, before numbers: those after it
	case alone:
		return s.Start, lb.pos() // after the sentence's numbers: those before it
	case lead:
		return lb.pos(), next
	}
	return prev, lb.pos()
}

// alone reports whether labels[i] is the one label of its group.
func alone(labels []posLabel, i int) bool {
	for j, o := range labels {
		if j != i && labelGroup(o.Label) == labelGroup(labels[i].Label) {
			return false
		}
	}
	return true
}

// numberAfter reports whether sentence s quotes a number (a claim the plan
// reader reads, bound or not) after p.
func numberAfter(doc *planmd.Doc, s planmd.Sentence, p planmd.Pos) bool {
	first, last := s.Lines()
	found := false
	for ln := max(first, p.Line); ln <= last && !found; ln++ {
		doc.Lines[ln-1].EachToken(func(t planmd.Token) bool {
			at := planmd.Pos{Line: ln, Col: t.Col}
			found = p.Before(at) && s.Contains(at)
			return !found
		})
	}
	return found
}

// bySentence groups the bound quotes of the plan by the sentence they are
// in, and returns the sentences in order.
func bySentence(pc *check) (map[planmd.Sentence][]gate.Binding, []planmd.Sentence) {
	bound := map[planmd.Sentence][]gate.Binding{}
	var order []planmd.Sentence
	for _, b := range pc.Result.Bindings {
		if b.Token.Line <= 0 || b.Status == gate.Stale {
			continue
		}
		s := pc.Doc.SentenceAt(planmd.Pos{Line: b.Token.Line, Col: b.Token.Col})
		if bound[s] == nil {
			order = append(order, s)
		}
		bound[s] = append(bound[s], b)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].Start.Before(order[j].Start) })
	return bound, order
}

func planLabel(pc *check) []finding.Finding {
	const rule = "plan.label"
	// the bound quotes of each sentence: a label speaks for the numbers of
	// its sentence, on whichever lines a wrapped sentence runs over
	bound, sentences := bySentence(pc)
	cache := map[string]runLabels{}
	out := unboundFlags(pc, bound)
	out = append(out, spanLabels(pc, bound)...)
	for _, sen := range sentences {
		labels := sentenceLabels(pc.Doc, sen)
		if len(labels) == 0 {
			continue
		}
		var agreed, allRuns []string
		agreedLine := 0
		forward := labelsLead(labels, bound[sen])
		for i, lb := range labels {
			lead, followed := forward[labelGroup(lb.Label)], numberAfter(pc.Doc, sen, lb.pos())
			lo, hi := labelScope(labels, i, sen, lead, followed)
			var runs []string
			var cfg []runLabels
			// each bound quote in the scope with its own runs: one of the
			// runs agreeing with the label does not speak for a quote
			// bound to runs that all differ (two quotes swapped)
			type quoted struct {
				b    gate.Binding
				runs []string
				cfg  []runLabels
			}
			var each []quoted
			for _, b := range bound[sen] {
				if at := (planmd.Pos{Line: b.Token.Line, Col: b.Token.Col}); !lo.Before(at) || !at.Before(hi) {
					continue
				}
				q := quoted{b: b}
				for _, name := range b.Row.MetricRuns(pc.Env) {
					r := pc.runs[name]
					if r != nil && slices.Contains(q.runs, name) {
						continue
					}
					if r == nil {
						// a record (a route_parity log): its configuration
						// is what the lines the row reads printed
						if rl, ok := recordLabels(pc.records[name], pc.Env.Metrics[name], b.Row); ok {
							q.runs, q.cfg = append(q.runs, name), append(q.cfg, rl)
						}
						continue
					}
					rl, ok := cache[name]
					if !ok {
						rl = labelsOf(r, pc.Env.Metrics[name])
						cache[name] = rl
					}
					q.runs, q.cfg = append(q.runs, name), append(q.cfg, rl)
				}
				for i, name := range q.runs {
					if !slices.Contains(runs, name) || pc.runs[name] == nil {
						runs, cfg = append(runs, name), append(cfg, q.cfg[i])
					}
				}
				each = append(each, q)
			}
			runs, cfg = dedupeConfigs(runs, cfg)
			msg, v := checkLabel(lb.Label, runs, cfg)
			// only where the label opens its scope: labels that follow
			// their numbers are scoped loosely ("at -ub 1024 (2.67×) and
			// … at -ub 2048")
			if v == labelAgrees && !lb.InParens && (lead || followed && alone(labels, i)) {
				for _, q := range each {
					qr, qc := dedupeConfigs(q.runs, q.cfg)
					if qm, qv := checkLabel(lb.Label, qr, qc); qv == labelDiffers {
						runs, msg, v = qr, fmt.Sprintf("%s, quoted under it, is bound to runs of another configuration: %s", q.b.Token.Text, strings.TrimPrefix(qm, "the runs its numbers are bound to ")), labelDiffers
						break
					}
				}
			}
			switch v {
			case labelUnchecked:
				continue
			case labelAgrees:
				allRuns = appendNewNames(allRuns, runs...)
				agreed = appendNewNames(agreed, lb.Text)
				if agreedLine == 0 {
					agreedLine = lb.line
				}
				continue
			}
			place := pc.Doc.Place(lb.line)
			f := finding.Finding{Rule: rule, Severity: finding.Fail, File: pc.Doc.File, Line: lb.line, Quote: lb.Text,
				Raw: msg, Source: strings.Join(clipList(runs, 4), ", "),
				Message: fmt.Sprintf("%s: %s %s, but %s", placeOr(place, pc.Doc.File), lb.Text, where(sen), msg),
				Fix:     "label the claim with the configuration its runs used, or bind it to the runs that used this one"}
			if v == labelUnrecorded {
				f.Severity, f.Check = finding.Warn, "unrecorded"
				f.Fix = "bind the claim to runs that record " + lb.Name + ", or drop the label if the runs did not set it"
			}
			out = append(out, f)
		}
		if len(agreed) > 0 {
			verb := "agrees"
			if len(agreed) > 1 {
				verb = "agree"
			}
			out = append(out, finding.Finding{Rule: rule, Severity: finding.Pass, File: pc.Doc.File, Line: agreedLine, Quote: strings.Join(agreed, ", "),
				Source:  strings.Join(clipList(allRuns, 4), ", "),
				Message: fmt.Sprintf("%s: %s %s with the runs %s numbers are bound to", placeOr(pc.Doc.Place(agreedLine), pc.Doc.File), strings.Join(agreed, ", "), verb, whose(sen))})
		}
	}
	return out
}

// labelVerdict is the outcome of checking a label against a line's runs.
type labelVerdict int

const (
	labelUnchecked  labelVerdict = iota // no run to check it against, or no model file of its kind
	labelAgrees                         // one of the runs has its value
	labelDiffers                        // the runs that have the setting have other values
	labelUnrecorded                     // a setting or flag none of the runs records
)

// checkLabel checks one label against the runs a line is bound to. A
// setting or flag holds when one of the runs has its value; it differs
// when the runs that have it have other values, and is unrecorded when
// none of them has it. A model identifier is checked when a run's model
// file has an identifier of its kind.
func checkLabel(lb planmd.Label, runs []string, cfg []runLabels) (msg string, v labelVerdict) {
	if len(runs) == 0 {
		return "", labelUnchecked
	}
	var vals []string              // what the runs have, in order of first run
	byVal := map[string][]string{} // what a run has → the runs that have it
	add := func(v, run string) {
		if byVal[v] == nil {
			vals = append(vals, v)
		}
		byVal[v] = append(byVal[v], run)
	}
	what := "ran with"
	if lb.Kind == planmd.Model {
		what = "ran model"
		class := modelClass(lb.Name)
		for i, rl := range cfg {
			for _, p := range rl.parts {
				if p == lb.Name {
					return "", labelAgrees
				}
			}
			for _, p := range rl.parts {
				if modelRE(p) && modelClass(p) == class {
					add(rl.model, runs[i])
					break
				}
			}
		}
		if len(vals) == 0 {
			return "", labelUnchecked
		}
	} else {
		k := labelKey(lb.Name)
		for i, rl := range cfg {
			v, has := rl.settings[k]
			if !has {
				continue
			}
			if sameValue(lb.Value, v) {
				return "", labelAgrees
			}
			add(rl.spelled[k]+" "+v, runs[i])
		}
		if len(vals) == 0 {
			return fmt.Sprintf("no bound run records setting %s (%s)", lb.Name, strings.Join(clipList(runs, 3), ", ")), labelUnrecorded
		}
	}
	var parts []string
	for _, v := range vals {
		parts = append(parts, fmt.Sprintf("%s (%s)", v, strings.Join(clipList(byVal[v], 3), ", ")))
	}
	return fmt.Sprintf("the runs its numbers are bound to %s %s", what, strings.Join(parts, "; ")), labelDiffers
}

// modelRE reports whether a model file name part is a model identifier.
func modelRE(p string) bool {
	ls := planmd.Labels(p)
	return len(ls) == 1 && ls[0].Kind == planmd.Model && ls[0].Name == p
}

func appendNewNames(l []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(l, a) {
			l = append(l, a)
		}
	}
	return l
}

// unboundFlags reports the flags written in prose ("-n 128", outside code
// spans) in the sentences of the claim sections that no claims row binds
// a number of: a flag's value is a label, not a number the gate binds, so
// without a bound run in its sentence it would be checked against nothing.
func unboundFlags(pc *check, bound map[planmd.Sentence][]gate.Binding) []finding.Finding {
	var out []finding.Finding
	claimSec := map[*planmd.Section]bool{}
	for _, l := range pc.Doc.Lines {
		if l.Section == nil || l.Fenced() {
			continue
		}
		claim, ok := claimSec[l.Section]
		if !ok {
			claim = inSections(l.Section, pc.Table.Sections) && !inSections(l.Section, pc.Table.Skips)
			claimSec[l.Section] = claim
		}
		if !claim {
			continue
		}
		for _, lb := range planmd.Labels(l.Text) {
			if lb.Kind != planmd.Flag || l.InCodeSpan(lb.Col) {
				continue
			}
			if len(bound[pc.Doc.SentenceAt(planmd.Pos{Line: l.N, Col: lb.Col})]) > 0 {
				continue
			}
			out = append(out, finding.Finding{Rule: "plan.label", Severity: finding.Warn, File: pc.Doc.File, Line: l.N, Quote: lb.Text, Check: "unbound",
				Message: fmt.Sprintf("%s: %s on this line, but no number on the line is bound to a run, so no run is checked for it", placeOr(l.Section.Place(), pc.Doc.File), lb.Text),
				Fix:     "bind a number of the line to the runs that ran with " + lb.Text + " (a row in " + pc.Table.File + "), or quote the flag in a code span if it is not a claim"})
		}
	}
	return out
}

// spanLabels checks the code spans of the claim sections that hold only
// flags and settings (planmd.LabelSpan), whose numbers the gate does not
// bind: each flag or setting must be one a run bound on the line (or, on a
// line with none, at its section) ran with, or a metric such a run
// printed, with the span's value. Anything else (`--fill-rate 9.99`,
// `fill_gb_s=9.99` against a fill of 6.44) is a number no check reads: a
// fail.
func spanLabels(pc *check, bound map[planmd.Sentence][]gate.Binding) []finding.Finding {
	var out []finding.Finding
	cache := map[string]runLabels{}
	for _, l := range pc.Doc.Lines {
		spans := l.CodeSpans()
		if len(spans) == 0 || l.Section == nil || !inSections(l.Section, pc.Table.Sections) || inSections(l.Section, pc.Table.Skips) {
			continue
		}
		for _, sp := range spans {
			if !planmd.LabelSpan(sp.Text) {
				continue
			}
			// the runs bound in the span's sentence, or at its section
			here := bound[pc.Doc.SentenceAt(planmd.Pos{Line: l.N, Col: sp.Col})]
			var names []string
			for _, b := range here {
				names = appendNewNames(names, b.Row.MetricRuns(pc.Env)...)
			}
			if len(names) == 0 {
				for _, row := range pc.Table.Rows {
					if l.Section.In(row.Place) {
						names = appendNewNames(names, row.MetricRuns(pc.Env)...)
					}
				}
			}
			for _, lb := range planmd.Labels(sp.Text) {
				if lb.Kind == planmd.Model || lb.Value == "" || lb.Value[0] < '0' || lb.Value[0] > '9' {
					continue
				}
				if spanLabelHolds(pc, lb, names, cache) || len(here) > 0 && recorded(pc, lb, names, cache) {
					// in a sentence with bound numbers, a value the runs
					// record otherwise is plan.label's main check
					continue
				}
				out = append(out, finding.Finding{Rule: "plan.label", Severity: finding.Fail, File: pc.Doc.File, Line: l.N, Quote: "`" + sp.Text + "`", Check: "span",
					Message: fmt.Sprintf("%s: the code span `%s` sets %s, which no run bound here ran with or printed (%s): its number is checked by nothing",
						placeOr(l.Section.Place(), pc.Doc.File), sp.Text, lb.Text, strings.Join(clipList(names, 4), ", ")),
					Fix: "quote the flag or setting the runs used, or write the number in prose and bind it with a row in " + pc.Table.File})
			}
		}
	}
	return out
}

// spanLabelHolds reports whether one of the named runs ran with the label
// (argv, environment) or printed a metric of its name with its value.
func spanLabelHolds(pc *check, lb planmd.Label, names []string, cache map[string]runLabels) bool {
	k := labelKey(lb.Name)
	for _, name := range names {
		if r := pc.runs[name]; r != nil {
			rl, ok := cache[name]
			if !ok {
				rl = labelsOf(r, pc.Env.Metrics[name])
				cache[name] = rl
			}
			if v, has := rl.settings[k]; has && sameValue(lb.Value, v) {
				return true
			}
		}
		if ms := pc.Env.Metrics[name]; ms != nil {
			for _, m := range ms.List {
				if (m.Name == lb.Name || labelKey(m.Name) == k) && sameValue(lb.Value, m.Num.Text) {
					return true
				}
			}
		}
	}
	return false
}

// recorded reports whether one of the named runs records the label's flag
// or setting, whatever its value.
func recorded(pc *check, lb planmd.Label, names []string, cache map[string]runLabels) bool {
	for _, name := range names {
		if rl, ok := cache[name]; ok {
			if _, has := rl.settings[labelKey(lb.Name)]; has {
				return true
			}
		}
	}
	return false
}

// inSections reports whether a section is at or inside one of secs.
func inSections(s *planmd.Section, secs []claims.Section) bool {
	for _, d := range secs {
		if s.In(d.Place) {
			return true
		}
	}
	return false
}
