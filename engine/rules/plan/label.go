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
	"the settings (MoCE=0.85), flags (-ub 1024) and model identifiers (Q2_0, K256) on a claim's line agree with the configuration "+
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

// recordLabels is the configuration of a record as printed beside the
// metrics a row reads from it (route_parity's K and moce); ok is false when
// those metrics print none.
func recordLabels(ms *tail.Metrics, row *claims.Row) (runLabels, bool) {
	if ms == nil {
		return runLabels{}, false
	}
	read := map[string]bool{}
	for _, m := range row.Metrics() {
		read[m] = true
	}
	rl := runLabels{settings: map[string]string{}, spelled: map[string]string{}}
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

func planLabel(pc *check) []finding.Finding {
	const rule = "plan.label"
	// the bound quotes of each plan line
	byLine := map[int][]gate.Binding{}
	for _, b := range pc.Result.Bindings {
		if b.Token.Line > 0 && b.Status != gate.Stale {
			byLine[b.Token.Line] = append(byLine[b.Token.Line], b)
		}
	}
	lines := make([]int, 0, len(byLine))
	for ln := range byLine {
		lines = append(lines, ln)
	}
	sort.Ints(lines)
	cache := map[string]runLabels{}
	out := unboundFlags(pc, byLine)
	out = append(out, spanLabels(pc, byLine)...)
	for _, ln := range lines {
		l := pc.Doc.Lines[ln-1]
		labels := planmd.Labels(l.Text)
		if len(labels) == 0 {
			continue
		}
		place := pc.Doc.Place(ln)
		var agreed, allRuns []string
		for i, lb := range labels {
			// a label speaks for the quotes between the labels of its
			// group before and after it ("Q2_0 3.66–6.44 GB/s, IQ3_S
			// 6.10–7.07 GB/s"; "14.3 tok/s at -ub 1024, 21.7 at -ub 2048")
			lo, hi := 0, len(l.Text)+1
			for j, o := range labels {
				if j == i || labelGroup(o) != labelGroup(lb) {
					continue
				}
				if o.Col < lb.Col && o.Col > lo {
					lo = o.Col
				}
				if o.Col > lb.Col && o.Col < hi {
					hi = o.Col
				}
			}
			if inParens(l.Text, lb.Col-1) {
				// "23.42 GiB (IQ3_S)", "(K=256, MoCE=0.85)": it qualifies
				// the quotes before it
				hi = lb.Col
			}
			var runs []string
			var cfg []runLabels
			for _, b := range byLine[ln] {
				if b.Token.Col <= lo || b.Token.Col >= hi {
					continue
				}
				for _, name := range b.Row.MetricRuns(pc.Env) {
					r := pc.runs[name]
					if r != nil && slices.Contains(runs, name) {
						continue
					}
					if r == nil {
						// a record (a route_parity log): its configuration
						// is what the lines the row reads printed
						if rl, ok := recordLabels(pc.Env.Metrics[name], b.Row); ok {
							runs, cfg = append(runs, name), append(cfg, rl)
						}
						continue
					}
					rl, ok := cache[name]
					if !ok {
						rl = labelsOf(r, pc.Env.Metrics[name])
						cache[name] = rl
					}
					runs, cfg = append(runs, name), append(cfg, rl)
				}
			}
			runs, cfg = dedupeConfigs(runs, cfg)
			msg, v := checkLabel(lb, runs, cfg)
			switch v {
			case labelUnchecked:
				continue
			case labelAgrees:
				allRuns = appendNewNames(allRuns, runs...)
				agreed = appendNewNames(agreed, lb.Text)
				continue
			}
			f := finding.Finding{Rule: rule, Severity: finding.Fail, File: pc.Doc.File, Line: ln, Quote: lb.Text,
				Raw: msg, Source: strings.Join(clipList(runs, 4), ", "),
				Message: fmt.Sprintf("%s: %s on this line, but %s", placeOr(place, pc.Doc.File), lb.Text, msg),
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
			out = append(out, finding.Finding{Rule: rule, Severity: finding.Pass, File: pc.Doc.File, Line: ln, Quote: strings.Join(agreed, ", "),
				Source:  strings.Join(clipList(allRuns, 4), ", "),
				Message: fmt.Sprintf("%s: %s %s with the runs this line's numbers are bound to", placeOr(place, pc.Doc.File), strings.Join(agreed, ", "), verb)})
		}
	}
	return out
}

// inParens reports whether text[i] is inside parentheses.
func inParens(text string, i int) bool {
	return strings.LastIndexByte(text[:i], '(') > strings.LastIndexByte(text[:i], ')')
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
// spans) on the lines of the claim sections that no claims row binds: a
// flag's value is a label, not a number the gate binds, so without a bound
// run on its line it would be checked against nothing.
func unboundFlags(pc *check, byLine map[int][]gate.Binding) []finding.Finding {
	var out []finding.Finding
	claimSec := map[*planmd.Section]bool{}
	for _, l := range pc.Doc.Lines {
		if len(byLine[l.N]) > 0 || l.Section == nil || l.Fenced() {
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
		spans := l.CodeSpans()
		for _, lb := range planmd.Labels(l.Text) {
			if lb.Kind != planmd.Flag || inSpan(l.Text, spans, lb.Col) {
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
func spanLabels(pc *check, byLine map[int][]gate.Binding) []finding.Finding {
	var out []finding.Finding
	cache := map[string]runLabels{}
	for _, l := range pc.Doc.Lines {
		spans := l.CodeSpans()
		if len(spans) == 0 || l.Section == nil || !inSections(l.Section, pc.Table.Sections) || inSections(l.Section, pc.Table.Skips) {
			continue
		}
		var names []string
		for _, b := range byLine[l.N] {
			names = appendNewNames(names, b.Row.MetricRuns(pc.Env)...)
		}
		if len(names) == 0 {
			for _, row := range pc.Table.Rows {
				if l.Section.In(row.Place) {
					names = appendNewNames(names, row.MetricRuns(pc.Env)...)
				}
			}
		}
		for _, sp := range spans {
			if !planmd.LabelSpan(sp.Text) {
				continue
			}
			for _, lb := range planmd.Labels(sp.Text) {
				if lb.Kind == planmd.Model || lb.Value == "" || lb.Value[0] < '0' || lb.Value[0] > '9' {
					continue
				}
				if spanLabelHolds(pc, lb, names, cache) || len(byLine[l.N]) > 0 && recorded(pc, lb, names, cache) {
					// on a line with bound numbers, a value the runs
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

// inSpan reports whether the 1-based column col of text is inside one of
// its code spans.
func inSpan(text string, spans []planmd.Span, col int) bool {
	for _, sp := range spans {
		end := strings.Index(text[sp.Col-1:], sp.Text)
		if end >= 0 && col > sp.Col && col <= sp.Col+end+len(sp.Text) {
			return true
		}
	}
	return false
}
