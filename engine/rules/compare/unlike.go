// Package compare holds the compare.* rules, about comparisons between
// runs that the plan quotes: the compared runs are alike (compare.unlike),
// the difference is significant or caveated (compare.significance), and a
// per-token rate divides by the run's own token count (compare.rate).
package compare

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/runconf"
	"github.com/strataspec/strataspec/engine/tail"
)

// Unlike checks every claim that compares runs (an arrow pair, a ratio, a
// change): the runs must be alike in every configuration field and
// setting they have — binary, mode, threads, prompt, batch sizes, token
// counts, every other flag and environment variable, and every field of
// the configuration their outputs print beside the measurements compared
// (a llama-bench row's) — and every run must
// decode at least one token, or the row names a caveat the plan states
// beside the quote. Settings a checkout varies on purpose are declared in
// its spec.
//
// A finding's Check is the row's shape: its sources with the run names
// dropped ("cli_gen_tok_s ; eval_tok_s", "change(disk0_mb, disk0_mb)"), so
// that a checkout's spec can give the comparisons of one kind their audit
// finding id.
var Unlike = &analysis.Analyzer{
	Name: "compare.unlike",
	Doc: "a claim comparing runs (arrow pair, ratio, change) holds only between runs alike in binary, mode, threads, prompt, " +
		"batch/ubatch, token counts and every other setting, with every run decoding > 0 tokens — or its row names a caveat the plan states beside it",
	Fix:      "compare runs alike in binary, mode, threads, prompt, batch and token counts, or state the difference as a caveat beside the claim",
	Requires: []*analysis.Analyzer{gate.Analyzer.Analyzer, facts.RunConfigs.Analyzer, facts.RunMetrics.Analyzer},
	Run:      runUnlike,
}

// UnlikeSettings are the rule's settings in the checkout's spec ("rules":
// {"compare.unlike": {…}}).
type UnlikeSettings struct {
	// Vary names the configuration fields or settings ("model", "--moce",
	// "env ARENA_GB", "threads") the checkout's comparisons vary on
	// purpose: a difference there is what is compared, not a confound. An
	// entry may be a pattern (path.Match syntax: "env *" for the whole
	// environment).
	Vary []string `json:"vary"`
}

// printedOf lists, for a configuration field, the fields a llama-bench row
// prints of the same thing: varying "model" varies the model's printed file
// name, type, size and parameter count too (JSON, JSONL and CSV name them
// model_*, the markdown table model, size and params).
var printedOf = map[string][]string{
	"model": {"model_filename", "model_type", "model_size", "model_n_params", "model", "size", "params"},
}

// varies reports whether the settings name a field varied on purpose.
func (s UnlikeSettings) varies(field string) bool {
	for _, v := range s.Vary {
		if ok, _ := path.Match(v, field); ok || v == field {
			return true
		}
		for _, pf := range printedOf[v] {
			if field == PrintedPrefix+pf {
				return true
			}
		}
	}
	return false
}

// validate refuses a malformed pattern, naming the spec's line.
func (s UnlikeSettings) validate(spec *checkout.Spec) error {
	for _, v := range s.Vary {
		if _, err := path.Match(v, ""); err != nil {
			return spec.RuleErrorf("compare.unlike", "vary: bad pattern %q: %v", v, err)
		}
	}
	return nil
}

// comparison is one claims row that compares runs, at one place in the plan.
type comparison struct {
	row    *claims.Row
	line   int // line of the quote in the plan
	runs   []string
	quoted []float64 // the numbers of the quote
}

func runUnlike(p *analysis.Pass) (any, error) {
	spec := p.Spec
	var cfg UnlikeSettings
	if _, err := spec.Rule(p.Analyzer.Name, &cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(spec); err != nil {
		return nil, err
	}
	pc := gate.Analyzer.Of(p)
	snap := p.Snap
	cfgs := facts.RunConfigs.Of(p)
	ms := facts.RunMetrics.Of(p)
	var comps []comparison
	seen := map[[2]int]bool{}
	for _, b := range pc.Result.Bindings {
		if b.Status == gate.Stale {
			continue
		}
		runs := b.Row.Runs()
		key := [2]int{b.Row.Line, b.Token.Line}
		if len(runs) < 2 || seen[key] {
			continue
		}
		seen[key] = true
		comps = append(comps, comparison{row: b.Row, line: b.Token.Line, runs: runs, quoted: partValues(b.Token)})
	}
	sort.SliceStable(comps, func(i, j int) bool { return comps[i].line < comps[j].line })
	for _, cmp := range comps {
		fd := finding.Finding{Severity: finding.Pass, Check: Shape(cmp.row), File: pc.Doc.File, Line: cmp.line, Quote: cmp.row.Quote,
			Source: fmt.Sprintf("%s:%d", pc.Table.File, cmp.row.Line), ID: cmp.row.ID}
		var cs []runconf.Config
		for _, name := range cmp.runs {
			if snap.Run(name) == nil {
				fd.Severity = finding.Fail
				fd.Message = fmt.Sprintf("%s compares run %s, which is not in the archive", cmp.row.Quote, name)
				break
			}
			cs = append(cs, cfgs[name].With(printedConfig(cmp.row, name, ms[name])))
		}
		if fd.Severity == finding.Pass {
			compare(&fd, pc, cmp, cs, cfg)
			fd.Plot = comparePlot(cmp, ms)
		}
		p.Report(fd)
	}
	if len(comps) == 0 {
		p.Report(finding.Finding{Severity: finding.Pass, Check: "none", File: pc.Doc.File, Source: pc.Table.File,
			Message: "no claims row compares two runs"})
	}
	return nil, nil
}

// compare fills fd for one comparison row: the runs' configurations and
// decoded tokens, and the caveats the row names.
func compare(fd *finding.Finding, pc *gate.PlanCheck, cmp comparison, cs []runconf.Config, cfg UnlikeSettings) {
	row := cmp.row
	var nothing, diffs, varied []string
	for _, c := range cs {
		if c.DecodedKnown && c.DecodedN == 0 {
			nothing = append(nothing, fmt.Sprintf("%s decoded nothing %s", c.Run, strings.TrimPrefix(c.Decoded, "0 ")))
		}
	}
	for _, c := range cs[1:] {
		for _, d := range runconf.Diff(cs[0], c) {
			line := fmt.Sprintf("%s: %s (%s) vs %s (%s)", d.Field, d.A, cs[0].Run, d.B, c.Run)
			switch {
			case d.Field == "decoded_tokens" && len(nothing) > 0:
				// reported as "decoded nothing"
			case cfg.varies(d.Field):
				varied = append(varied, line)
			default:
				diffs = append(diffs, line)
			}
		}
	}
	fd.Raw = strings.Join(cmp.runs, " vs ")
	purpose := ""
	if len(varied) > 0 {
		purpose = fmt.Sprintf("; they differ on purpose (the spec's vary) in %s", strings.Join(varied, "; "))
	}
	if len(diffs) == 0 && len(nothing) == 0 {
		var same []string
		for _, f := range append(runconf.Fields(), runconf.SettingNames(cs...)...) {
			if !cfg.varies(f) && (!strings.HasPrefix(f, runconf.EnvPrefix) || allEnv(cs)) {
				same = append(same, f)
			}
		}
		fd.Message = fmt.Sprintf("%s compares like with like: %s match on %s%s%s", row.Quote, fd.Raw, strings.Join(same, ", "), purpose, binaryIdentity(cs))
		return
	}
	problems := strings.Join(append(nothing, diffs...), "; ")

	// Caveats: every one the row names must be stated beside the quote.
	var stated, missing []string
	for _, id := range row.Caveats {
		if _, ok := pc.Doc.Caveat(id, row.Place); ok {
			stated = append(stated, id)
		} else {
			missing = append(missing, id)
		}
	}
	switch {
	case len(row.Caveats) > 0 && len(missing) == 0:
		fd.Message = fmt.Sprintf("%s is not like for like (%s); the plan states caveat %s beside it%s",
			row.Quote, problems, strings.Join(stated, ", "), purpose)
	case len(missing) > 0:
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s is not like for like: %s; the row names caveat %s, which %s does not state in %s%s",
			row.Quote, problems, strings.Join(missing, ", "), pc.Doc.File, row.Place, purpose)
	default:
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s is not like for like: %s; no caveat is stated%s", row.Quote, problems, purpose)
	}
}

// comparePlot is the chart data of a comparison: one series per run, the
// values of the metrics the row reads of it (each sample of a metric that
// repeats its measurement), and the quoted numbers when
// the quote has one per run read as printed (an arrow pair of RUN:METRIC;
// a ratio's, a change's or a derivation's number is not on the runs' axis). It is nil when the row reads no metric
// or its metrics differ in unit, which one axis cannot show.
func comparePlot(cmp comparison, ms map[string]*tail.Metrics) *finding.Plot {
	p := &finding.Plot{Kind: "compare"}
	units := map[string]bool{}
	for _, run := range cmp.runs {
		for _, src := range cmp.row.Sources {
			src.Walk(func(e *claims.Expr) {
				if e.Op != claims.OpMetric || e.Run != run {
					return
				}
				m, ok := eval.Lookup(ms[run], e.Metric)
				if !ok {
					return
				}
				units[m.Unit] = true
				p.Unit = m.Unit
				label := run + ":" + e.Metric
				samples := m.Samples()
				if len(samples) < 2 {
					p.Add(finding.Point{Series: run, Label: label, Value: m.Value()})
					return
				}
				for i, v := range samples { // repeated measurements: one point each
					p.Add(finding.Point{Series: run, Label: fmt.Sprintf("%s sample %d", label, i+1), Value: v})
				}
			})
		}
	}
	if len(p.Points) == 0 || len(units) != 1 {
		return nil
	}
	if len(cmp.quoted) == len(cmp.runs) && bareMetrics(cmp.row) {
		p.Quoted = cmp.quoted
	}
	return p
}

// partValues returns the numbers of a quote.
func partValues(t plan.Token) []float64 {
	out := make([]float64, 0, len(t.Parts))
	for _, q := range t.Parts {
		out = append(out, q.Value)
	}
	return out
}

// bareMetrics reports whether every source of a row reads a metric as it
// was printed (RUN:METRIC), so that the quote is on the metrics' axis; a
// derivation (a per-token figure, a ratio) is not.
func bareMetrics(row *claims.Row) bool {
	for _, src := range row.Sources {
		if src.Op != claims.OpMetric {
			return false
		}
	}
	return true
}

// binaryIdentity says how the runs' binaries were found the same: by
// content when every run recorded its binary's sha256, else by name, and
// then their identity is unknown.
func binaryIdentity(cs []runconf.Config) string {
	for _, c := range cs {
		if c.BinarySHA256 == "" {
			return "; the binary by name only: its identity is unknown (no sha256 recorded)"
		}
	}
	return "; the binary by sha256 " + runconf.ShortHash(cs[0].BinarySHA256)
}

// PrintedPrefix starts the name of a setting a run's output prints beside
// the measurement a claim reads (every configuration field of a
// llama-bench row): "printed n_threads".
const PrintedPrefix = "printed "

// printedConfig returns the configuration the run's output prints beside
// the metrics the row reads of it (a llama-bench row's every field), as
// settings; nil for a measurement printed without one.
func printedConfig(row *claims.Row, run string, ms *tail.Metrics) []runconf.Setting {
	var out []runconf.Setting
	for _, src := range row.Sources {
		src.Walk(func(e *claims.Expr) {
			if e.Op == claims.OpMetric && e.Run == run {
				if m, ok := eval.Lookup(ms, e.Metric); ok {
					for _, f := range m.Config() {
						out = append(out, runconf.Setting{Name: PrintedPrefix + f.Key, Value: f.Value})
					}
				}
			}
		})
	}
	return out
}

// allEnv reports whether every run recorded its environment, so that its
// variables were compared.
func allEnv(cs []runconf.Config) bool {
	for _, c := range cs {
		if !c.EnvRecorded {
			return false
		}
	}
	return true
}

// Shape returns a claims row's sources with the run names dropped: what
// kind of comparison the row makes, whichever runs it names.
func Shape(row *claims.Row) string {
	var parts []string
	for _, e := range row.Sources {
		parts = append(parts, shape(e))
	}
	return strings.Join(parts, " ; ")
}

func shape(e *claims.Expr) string {
	switch e.Op {
	case claims.OpMetric:
		return e.Metric
	case claims.OpCall:
		var args []string
		for _, a := range e.Args {
			args = append(args, shape(a))
		}
		return e.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return e.String()
}
