package compare

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/source"
	"github.com/strataspec/strataspec/engine/tables"
	"github.com/strataspec/strataspec/engine/tail"
	"github.com/strataspec/strataspec/engine/unit"
)

// Rate checks every per-token rate the runner's tables hold (the tables
// the spec names) and every claims row that divides: a rate divides an
// amount by the run's own token count, read from its tail — never by a
// literal or a declared constant — and an amount that covers model load
// and prefill is not presented per decoded token.
var Rate = &analysis.Analyzer{
	Name:     "compare.rate",
	Doc:      "a per-token rate divides by the run's own token count from its tail: no literal divisor, no load and prefill presented per decoded token",
	Fix:      "divide a per-token rate by the run's own token count, not by a constant",
	Requires: []*analysis.Analyzer{facts.Results.Analyzer, facts.Sources.Analyzer, facts.RunMetrics.Analyzer},
	Uses:     []*analysis.Analyzer{facts.Plan.Analyzer, facts.Claims.Analyzer, gate.Analyzer.Analyzer},
	Metrics:  []string{"total_tokens", "load_ms", "prompt_eval_tokens", "prompt_eval_ms", "cli_prompt_tok_s", "eval_ms", "eval_tokens", "cli_gen_tok_s"},
	Run:      runRate,
}

// RateSettings are the rule's settings in the checkout's spec ("rules":
// {"compare.rate": {…}}).
type RateSettings struct {
	// RunnerSource is the source file of the runner that derives its
	// tables' per-token fields; without it their derivation is not read.
	RunnerSource string `json:"runner_source"`
	// Tables are the runner's tables whose per-token fields are checked.
	Tables []RateTable `json:"tables"`
}

// RateTable is one runner table of derived values (its fields named
// "…_per_tok", "…_per_65tok", "…_per_processed_tok" are rates) and the
// table of steps its amounts were copied from: each step row names its
// run under RunKey.
type RateTable struct {
	Table  tables.Loc `json:"table"`
	Steps  tables.Loc `json:"steps"`
	RunKey string     `json:"run_key"`
}

// perTokRE matches the names of per-token fields: "…_per_65tok",
// "…_per_tok", "…_per_processed_tok".
var perTokRE = regexp.MustCompile(`_per_([0-9]*)([a-z_]*?)tok$`)

// rateRun is what one run of compare.rate reads.
type rateRun struct {
	p       *analysis.Pass
	snap    *archive.Snapshot
	metrics map[string]*tail.Metrics
	src     *source.File // the runner's source, nil when absent
	plan    *plan.Doc    // nil when absent
}

func runRate(p *analysis.Pass) (any, error) {
	spec := p.Spec
	var cfg RateSettings
	if _, err := spec.Rule(p.Analyzer.Name, &cfg); err != nil {
		return nil, err
	}
	for _, t := range cfg.Tables {
		if t.Table.Path == "" || t.Steps.Path == "" || t.RunKey == "" {
			return nil, spec.RuleErrorf(p.Analyzer.Name, "a table needs \"table\", \"steps\" and \"run_key\"")
		}
	}
	rr := &rateRun{p: p, snap: p.Snap, metrics: facts.RunMetrics.Of(p)}
	if cfg.RunnerSource != "" {
		var err error
		rr.src, err = facts.Sources.Of(p).File(cfg.RunnerSource)
		if err != nil && !errors.Is(err, facts.ErrAbsent) {
			return nil, err
		}
	}
	rr.plan, _ = facts.Plan.Lookup(p)

	n := 0
	if len(cfg.Tables) > 0 {
		docs := facts.Results.Of(p)
		for _, t := range cfg.Tables {
			block, err := docs.Table(t.Table)
			if errors.Is(err, tables.ErrMissing) {
				continue // a runner that did not write the table this time
			}
			if err != nil {
				return nil, err
			}
			steps, err := docs.Table(t.Steps)
			if err != nil && !errors.Is(err, tables.ErrMissing) {
				return nil, err
			}
			if block.Dict == nil {
				return nil, spec.RuleErrorf(p.Analyzer.Name, "table %s is not one object of numbers", t.Table)
			}
			for _, f := range block.Dict.Fields {
				if m := perTokRE.FindStringSubmatch(f.Name); m != nil {
					rr.field(block, steps, t.RunKey, f, m[1], m[2])
					n++
				}
			}
		}
	}
	if t, ok := facts.Claims.Lookup(p); ok {
		pc, _ := gate.Analyzer.Lookup(p)
		n += claimsDivisors(p, t, pc)
	}
	if n == 0 {
		p.Report(finding.Finding{Severity: finding.Pass, Check: "none", File: rr.snap.ResultsFile,
			Message: "no per-token rate among the runner's tables: whole-run amounts are not divided by a token count"})
	}
	return nil, nil
}

// claimsDivisors reports the claims table's rows that divide by a declared
// constant or a number: a rate the plan quotes must divide by a run's
// count. A number that converts the amount's unit into the unit the plan
// quotes (1000 from µs/tok to ms/tok) is a unit conversion, not a rate: it
// passes. It returns how many it reported.
func claimsDivisors(p *analysis.Pass, t *claims.Table, pc *gate.PlanCheck) int {
	n := 0
	for _, row := range t.Rows {
		for i, e := range row.Sources {
			e.Walk(func(x *claims.Expr) {
				if x.Op != claims.OpCall || x.Name != "div" || len(x.Args) != 2 {
					return
				}
				d := x.Args[1]
				var what string
				switch d.Op {
				case claims.OpNumber:
					if from, to, ok := conversion(pc, row, i, x.Args[0], d.Num.Value); ok {
						n++
						p.Report(finding.Finding{Severity: finding.Pass, Check: "claims",
							File: t.File, Line: row.Line, Quote: row.Quote, Raw: x.String(), Source: row.Text,
							Message: fmt.Sprintf("%s at %s divides by %s, the conversion of %s into the %s it is quoted in: a unit conversion, not a rate", row.Quote, row.Place, d.Num.Text, from, to)})
						return
					}
					what = "the number " + d.Num.Text
				case claims.OpConst:
					what = "$" + d.Name
					if k := t.Consts[d.Name]; k != nil {
						what = fmt.Sprintf("$%s = %s (a constant declared at %s:%d)", d.Name, k.Num.Text, t.File, k.Line)
					}
				default:
					return
				}
				n++
				p.Report(finding.Finding{Severity: finding.Fail, Check: "claims",
					File: t.File, Line: row.Line, Quote: row.Quote, Raw: x.String(), Source: row.Text,
					Message: fmt.Sprintf("%s at %s is bound to %s, which divides by %s, not by the run's own token count", row.Quote, row.Place, x.String(), what)})
			})
		}
	}
	return n
}

// conversion reports whether dividing amount (the first argument of a
// div in source i of row) by f converts its unit into the unit the plan
// quotes that part in, at every place the row binds (engine/unit: µs/tok ÷
// 1000 is ms/tok; MB ÷ 1000 is GB, not MB/tok). Without the gate's check
// there is no quote to hold it to, and it is no conversion.
func conversion(pc *gate.PlanCheck, row *claims.Row, i int, amount *claims.Expr, f float64) (from, to string, ok bool) {
	if pc == nil || pc.Env == nil || pc.Result == nil {
		return "", "", false
	}
	v, err := pc.Env.Eval(amount)
	if err != nil {
		return "", "", false
	}
	var u string
	switch v.Kind {
	case eval.Scalar:
		u = v.X.Unit
	case eval.List:
		if len(v.List) > 0 {
			u = v.List[0].Unit
		}
	}
	fu, err := unit.Parse(u)
	if err != nil {
		return "", "", false
	}
	tu, ok := unit.Between(fu, f)
	if !ok {
		return "", "", false
	}
	bound := false
	for _, b := range pc.Result.Bindings {
		if b.Row != row || b.Status == gate.Stale {
			continue
		}
		q := b.Token.Unit
		if len(row.Sources) > 1 && i < len(b.Token.Units) {
			q = b.Token.Units[i]
		}
		if q != tu.String() {
			return "", "", false
		}
		bound = true
	}
	return fu.String(), tu.String(), bound
}

// derived is where the runner derives a field: the statement's lines,
// its text, the line of its first division (0 for none) and a literal
// divisor that counts something ("" for none).
type derived struct {
	start, end int
	expr       string
	div        int
	divisor    string
}

// derivation finds the runner's derivation of key inside the block scope.
func derivation(src *source.File, scope, key string) (derived, bool) {
	start, end, ok := src.Key(scope, key)
	if !ok {
		return derived{}, false
	}
	d := derived{start: start, end: end}
	var expr []string
	for l := start; l <= end; l++ {
		expr = append(expr, strings.TrimSpace(src.Lines[l-1]))
		code := src.Code[l-1]
		if l == start {
			if k := strings.IndexAny(code, ":="); k >= 0 {
				code = code[k+1:]
			}
		}
		if d.div == 0 && strings.Contains(code, "/") {
			d.div = l
		}
	}
	d.expr = strings.Join(expr, " ")
	switch {
	case d.div > 0:
		for _, lit := range src.Divisors(d.div, d.div) {
			if v, err := num.Parse(lit.Text); err == nil && !source.IsUnitDivisor(v.Value) {
				d.divisor = lit.Text
				break
			}
		}
	case strings.Contains(src.Code[start-1], "("):
		// A helper computes it: a literal count among its arguments is a
		// literal divisor; otherwise the count comes from elsewhere.
		d.div = start
		for _, lit := range source.NumberLiterals(src.Code[start-1]) {
			if v, err := num.Parse(lit); err == nil && !source.IsUnitDivisor(v.Value) {
				d.divisor = lit
			}
		}
	}
	return d, true
}

// field checks one per-token field of a runner table: how the runner
// derives it, and what its amount covers in the run it comes from.
func (rr *rateRun) field(block, steps *tables.Table, runKey string, f tables.Field, nTok, per string) {
	s := rr.snap
	fd := finding.Finding{Severity: finding.Pass, File: s.ResultsFile, Line: f.Line,
		Quote: fmt.Sprintf("%s = %s", f.Path, fieldText(f)), Source: f.Path}
	if f.Null {
		fd.Quote = f.Path + " = null"
	}

	// The amount: a whole-run figure and the run it was read from.
	amountName := strings.TrimSuffix(f.Name, perTokRE.FindString(f.Name))
	amount, hasAmount := block.Dict.Get(amountName)
	run := stepRun(s, steps, runKey, amountName, amount)
	covers := ""
	if run != nil {
		covers = runCovers(rr.metrics[run.Name])
	}

	if rr.src == nil {
		fd.Severity, fd.Check = finding.Warn, "source"
		fd.Message = fmt.Sprintf("%s: the runner's source is not in the snapshot, so its derivation cannot be read", f.Path)
		rr.p.Report(fd)
		return
	}
	src := rr.src
	d, ok := derivation(src, block.Path[strings.LastIndexByte(block.Path, '.')+1:], f.Name)
	switch {
	case !ok:
		fd.Severity, fd.Check = finding.Fail, "derivation"
		fd.Message = fmt.Sprintf("%s: no derivation of %q in %s", f.Path, f.Name, src.Path)
	case d.div == 0:
		fd.Check = "copied"
		fd.File, fd.Line = src.Path, d.start
		fd.Quote = d.expr
		fd.Raw = f.Path + " = " + fieldText(f)
		fd.Message = fmt.Sprintf("%s is copied, not divided, by the runner (%s:%d): no divisor to check", f.Name, src.Path, d.start)
	case d.divisor != "":
		fd.Severity, fd.Check = finding.Fail, "divisor"
		fd.File, fd.Line = src.Path, d.div
		fd.Quote = d.expr
		fd.Raw = fmt.Sprintf("%s = %s", f.Path, f.Num.Text)
		if hasAmount {
			fd.Raw = fmt.Sprintf("%s / %s = %s (%s)", fieldText(amount), d.divisor, num.Format(amount.Value()/number(d.divisor), 1), f.Path)
		}
		msg := fmt.Sprintf("%s divides by the literal %s (%s:%d), not by the run's own token count", f.Name, d.divisor, src.Path, d.div)
		if covers != "" {
			msg += fmt.Sprintf("; %s of %s covers the whole run: %s, so %s per %s tokens is not a per-token rate",
				amountName, run.Name, covers, fieldText(amount)+" MB", d.divisor)
		}
		if l := rr.planQuote(f); l > 0 {
			msg += fmt.Sprintf("; %s:%d presents it per generated token", rr.plan.File, l)
		}
		fd.Message = msg
	case nTok != "":
		fd.Severity, fd.Check = finding.Fail, "named"
		fd.Message = fmt.Sprintf("%s is named per %s tokens, but the runner (%s:%d) does not divide by that count", f.Name, nTok, src.Path, d.div)
	default:
		fd.Check = "own-count"
		fd.File, fd.Line = src.Path, d.div
		fd.Quote = d.expr
		fd.Raw = f.Path + " = " + fieldText(f)
		fd.Severity, fd.Message = rr.fromTail(f, amount, hasAmount, run, per, covers, src.Path, d.div)
	}
	rr.p.Report(fd)
}

// fromTail checks a rate whose divisor is not a literal: it must be named
// for what its amount covers (an amount that includes load and prefill is
// not per decoded token) and equal the amount over the run's own token
// count from its tail.
func (rr *rateRun) fromTail(f, amount tables.Field, hasAmount bool, run *archive.Run, per, covers, file string, line int) (finding.Severity, string) {
	if covers != "" && (per == "" || strings.Contains(per, "gen") || strings.Contains(per, "decod")) {
		return finding.Fail, fmt.Sprintf("%s presents %s per decoded token, but it covers the whole run: %s", f.Name, f.Path, covers)
	}
	if run == nil || !hasAmount {
		return finding.Pass, fmt.Sprintf("%s divides by a count, not a literal (%s:%d)", f.Name, file, line)
	}
	tot, ok := rr.metrics[run.Name].Get("total_tokens")
	if !ok {
		if f.Null {
			return finding.Pass, fmt.Sprintf("%s is null: %s prints no token count, and the runner (%s:%d) does not invent one", f.Name, run.Name, file, line)
		}
		return finding.Fail, fmt.Sprintf("%s = %s, but %s prints no token count to divide by", f.Name, f.Num.Text, run.Name)
	}
	want := num.Round(amount.Value()/tot.Value(), f.Num.Decimals)
	if f.Null || !num.Matches(amount.Value()/tot.Value(), f.Num) {
		return finding.Fail, fmt.Sprintf("%s = %s; the run's own count gives %s / %s = %s", f.Name, fieldText(f), fieldText(amount), tot.Num.Text, num.Format(want, f.Num.Decimals))
	}
	return finding.Pass, fmt.Sprintf("%s = %s / %s tokens processed (prompt + decoded, %s tail line %d) = %s: the run's own count, named for what it covers (%s:%d)",
		f.Name, fieldText(amount), tot.Num.Text, run.Name, tot.Line, fieldText(f), file, line)
}

// fieldText prints a results field as the plan would: thousands
// separators, the JSON literal's precision.
func fieldText(f tables.Field) string {
	if f.Null {
		return "null"
	}
	return num.Format(f.Value(), f.Num.Decimals)
}

func number(s string) float64 {
	n, err := num.Parse(s)
	if err != nil || n.Value == 0 {
		return math.NaN()
	}
	return n.Value
}

// stepRun finds the run a whole-run amount of a runner table was read from:
// the step whose field of the same name (the amount's name ends with it:
// whole_run_disk0_mb and disk0_mb) has the same value; the step names its
// run under runKey.
func stepRun(s *archive.Snapshot, steps *tables.Table, runKey, amountName string, amount tables.Field) *archive.Run {
	if amount.Null || steps == nil {
		return nil
	}
	for _, st := range steps.Rows {
		for _, sf := range st.Fields {
			if sf.Name != "" && !sf.Null && strings.HasSuffix(amountName, "_"+sf.Name) && sf.Value() == amount.Value() {
				return s.Run(st.Strings[runKey])
			}
		}
	}
	return nil
}

// runCovers says what a whole-run amount of a run includes besides
// decoding, from its tail: model load and prefill.
func runCovers(ms *tail.Metrics) string {
	var parts []string
	if m, ok := ms.Get("load_ms"); ok {
		parts = append(parts, fmt.Sprintf("model load (%s ms)", m.Num.Text))
	} else {
		parts = append(parts, "model load")
	}
	if n, ok := ms.Get("prompt_eval_tokens"); ok {
		pm, _ := ms.Get("prompt_eval_ms")
		parts = append(parts, fmt.Sprintf("prefill of %s tokens (%s ms)", n.Num.Text, pm.Num.Text))
	} else if p, ok := ms.Get("cli_prompt_tok_s"); ok {
		parts = append(parts, fmt.Sprintf("prefill of the whole chat prompt (%s t/s)", p.Num.Text))
	}
	if ev, ok := ms.Get("eval_ms"); ok {
		runs, _ := ms.Get("eval_tokens")
		if ev.Value() == 0 {
			parts = append(parts, "and no decoded token (eval time 0.00 ms)")
		} else {
			parts = append(parts, fmt.Sprintf("and %s decoded tokens", runs.Num.Text))
		}
	} else if g, ok := ms.Get("cli_gen_tok_s"); ok {
		parts = append(parts, fmt.Sprintf("and an uncounted decode (Generation %s t/s)", g.Num.Text))
	}
	return strings.Join(parts, ", ")
}

// planQuote returns the first plan line that prints a field's value, or 0:
// a number the plan reader reads on it (a part of a token, in prose or in a
// code block) printed as the field is, with its decimals. A longer number
// holding the digits (11,653.93 for 1,653.93) is not the field's.
func (rr *rateRun) planQuote(f tables.Field) int {
	if f.Null || rr.plan == nil {
		return 0
	}
	text := num.Format(f.Value(), f.Num.Decimals)
	prints := func(tk plan.Token) bool {
		return slices.ContainsFunc(tk.Parts, func(p num.Number) bool {
			return p.Decimals == f.Num.Decimals && num.Format(p.Value, p.Decimals) == text
		})
	}
	for _, l := range rr.plan.Lines {
		found := slices.ContainsFunc(l.FencedTokens(), prints)
		l.EachToken(func(tk plan.Token) bool {
			found = found || prints(tk)
			return !found
		})
		if found {
			return l.N
		}
	}
	return 0
}
