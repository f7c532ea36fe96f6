package rules

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

func init() {
	Register(Rule{
		Name:  "compare.rate",
		Doc:   "a per-token rate divides by the run's own token count from its tail: no literal divisor, no load and prefill presented per decoded token",
		Check: checkCompareRate,
	})
}

// perTokRE matches the names of per-token fields: "…_per_65tok",
// "…_per_tok", "…_per_processed_tok".
var perTokRE = regexp.MustCompile(`_per_([0-9]*)([a-z_]*?)tok$`)

// literalDivRE finds a division by a numeric literal in code with strings
// and comments blanked.
var literalDivRE = regexp.MustCompile(`/\s*([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\b`)

// unitDivisors are literal divisors that convert units rather than count
// tokens; they are not reported.
var unitDivisors = map[float64]bool{1: true, 2: true, 10: true, 100: true, 1000: true, 1e6: true, 1e9: true,
	1024: true, 1024 * 1024: true, 1 << 30: true, 60: true, 3600: true}

func checkCompareRate(c *Context) ([]finding.Finding, error) {
	resultsFile := c.Snap.ResultsFile
	s := c.Snap
	if s == nil {
		return nil, fmt.Errorf("compare.rate: no snapshot")
	}
	runner := s.Provenance.File(RunnerRole)
	var src *codeFile
	if runner != nil {
		f, err := readCode(s, runner.Path)
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		src = f
	}
	planLines := readPlanLines(s)

	var out []finding.Finding
	sides := make([]string, 0, len(s.LlamaCpp))
	for side := range s.LlamaCpp {
		sides = append(sides, side)
	}
	sort.Strings(sides)
	for _, side := range sides {
		block := s.LlamaCpp[side]
		for _, f := range block.Fields {
			m := perTokRE.FindStringSubmatch(f.Name)
			if m == nil {
				continue
			}
			out = append(out, checkRateField(c, side, f, m[1], m[2], src, planLines))
		}
	}
	out = append(out, claimsDivisors(c)...)
	if len(out) == 0 {
		out = append(out, finding.Finding{Severity: finding.Pass, Rule: "compare.rate", ID: "F19", File: resultsFile,
			Message: "no per-token rate among the llama_cpp_* fields: whole-run amounts are not divided by a token count"})
	}
	return out, nil
}

// claimsDivisors checks the claims table's per-token rows: a rate the plan
// quotes must divide by a run's count, not by a declared constant or a
// number. Without a claims table there is nothing to check.
func claimsDivisors(c *Context) []finding.Finding {
	if c.Snap.FS == nil || !c.Snap.FS.Exists(claims.File) {
		return nil
	}
	pc, err := LoadPlanCheck(c)
	if err != nil {
		return nil // the plan rules report an unreadable plan or table
	}
	var out []finding.Finding
	for _, row := range pc.Table.Rows {
		for _, e := range row.Sources {
			walkExpr(e, func(x *claims.Expr) {
				if x.Op != claims.OpCall || x.Name != "div" || len(x.Args) != 2 {
					return
				}
				d := x.Args[1]
				var what string
				switch d.Op {
				case claims.OpNumber:
					what = "the number " + d.Num.Text
				case claims.OpConst:
					what = "$" + d.Name
					if k := pc.Table.Consts[d.Name]; k != nil {
						what = fmt.Sprintf("$%s = %s (a constant declared at %s:%d)", d.Name, k.Num.Text, claims.File, k.Line)
					}
				default:
					return
				}
				out = append(out, finding.Finding{Rule: "compare.rate", ID: "F19", Severity: finding.Fail,
					File: claims.File, Line: row.Line, Quote: row.Quote, Raw: x.String(), Source: row.Text,
					Message: fmt.Sprintf("%s at %s is bound to %s, which divides by %s, not by the run's own token count", row.Quote, row.Place, x.String(), what)})
			})
		}
	}
	return out
}

func walkExpr(e *claims.Expr, f func(*claims.Expr)) {
	f(e)
	for _, a := range e.Args {
		walkExpr(a, f)
	}
}

// checkRateField checks one per-token field of a llama_cpp_* block: how the
// runner derives it, and what its amount covers in the run it comes from.
func checkRateField(c *Context, side string, f archive.Field, nTok, per string, src *codeFile, planLines []string) finding.Finding {
	resultsFile := c.Snap.ResultsFile
	s := c.Snap
	fd := finding.Finding{Severity: finding.Pass, Rule: "compare.rate", File: resultsFile, Line: f.Line,
		Quote: fmt.Sprintf("%s = %s", f.Path, fieldText(f)), Source: f.Path}
	if f.Null {
		fd.Quote = f.Path + " = null"
	}

	// The amount: a whole-run disk0 figure and the run it was read from.
	amountName := strings.TrimSuffix(f.Name, perTokRE.FindString(f.Name))
	amount, hasAmount := s.LlamaCpp[side].Get(amountName)
	run := stepRun(s, side, amountName, amount)
	covers := ""
	if run != nil {
		covers = runCovers(c.Metrics[run.Name], run)
	}

	// The derivation in the runner's source.
	var divLine int
	var divisor, expr string
	if src != nil {
		divLine, expr = src.derivation("llama_cpp_"+side, f.Name)
		switch {
		case divLine > 0:
			if m := literalDivRE.FindStringSubmatch(src.blank[divLine-1]); m != nil {
				if v, err := num.Parse(m[1]); err == nil && !unitDivisors[v.Value] {
					divisor = m[1]
				}
			}
		case divLine < 0 && strings.Contains(src.blank[-divLine-1], "("):
			// A helper computes it: a literal count among its arguments is
			// a literal divisor; otherwise the count comes from elsewhere.
			divLine = -divLine
			for _, lit := range numberLiterals(src.blank[divLine-1]) {
				if v, err := num.Parse(lit); err == nil && !unitDivisors[v.Value] {
					divisor = lit
				}
			}
		}
	}
	switch {
	case src == nil:
		fd.Severity = finding.Warn
		fd.Message = fmt.Sprintf("%s: the runner's source is not in the snapshot, so its derivation cannot be read", f.Path)
	case divLine == 0:
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s: no derivation of %q in %s", f.Path, f.Name, src.path)
	case divLine < 0:
		fd.File, fd.Line = src.path, -divLine
		fd.Quote = strings.TrimSpace(expr)
		fd.Raw = f.Path + " = " + fieldText(f)
		fd.Message = fmt.Sprintf("%s is copied, not divided, by the runner (%s:%d): no divisor to check", f.Name, src.path, -divLine)
	case divisor != "":
		fd.Severity, fd.ID = finding.Fail, "F19"
		fd.File, fd.Line = src.path, divLine
		fd.Quote = strings.TrimSpace(expr)
		fd.Raw = fmt.Sprintf("%s = %s", f.Path, f.Num.Text)
		if hasAmount {
			fd.Raw = fmt.Sprintf("%s / %s = %s (%s)", fieldText(amount), divisor, num.Format(amount.Value()/mustFloat(divisor), 1), f.Path)
		}
		msg := fmt.Sprintf("%s divides by the literal %s (%s:%d), not by the run's own token count", f.Name, divisor, src.path, divLine)
		if covers != "" {
			msg += fmt.Sprintf("; %s of %s covers the whole run: %s, so %s per %s tokens is not a per-token rate",
				amountName, run.Name, covers, fieldText(amount)+" MB", divisor)
		}
		if l := planQuote(planLines, f); l > 0 {
			msg += fmt.Sprintf("; PLAN.md:%d presents it per generated token", l)
		}
		fd.Message = msg
	case nTok != "":
		fd.Severity, fd.ID = finding.Fail, "F19"
		fd.Message = fmt.Sprintf("%s is named per %s tokens, but the runner (%s:%d) does not divide by that count", f.Name, nTok, src.path, divLine)
	default:
		fd.File, fd.Line = src.path, divLine
		fd.Quote = strings.TrimSpace(expr)
		fd.Raw = f.Path + " = " + fieldText(f)
		fd.Message = rateFromTail(c, f, amount, hasAmount, run, per, covers, src.path, divLine)
		if strings.HasPrefix(fd.Message, "FAIL ") {
			fd.Severity, fd.ID = finding.Fail, "F19"
			fd.Message = strings.TrimPrefix(fd.Message, "FAIL ")
		} else {
			fd.ID = "F19"
		}
	}
	return fd
}

// rateFromTail checks a rate whose divisor is not a literal: it must be
// named for what its amount covers (an amount that includes load and
// prefill is not per decoded token) and equal the amount over the run's own
// token count from its tail.
func rateFromTail(c *Context, f archive.Field, amount archive.Field, hasAmount bool, run *archive.Run, per, covers, file string, line int) string {
	if covers != "" && (per == "" || strings.Contains(per, "gen") || strings.Contains(per, "decod")) {
		return fmt.Sprintf("FAIL %s presents %s per decoded token, but it covers the whole run: %s", f.Name, f.Path, covers)
	}
	if run == nil || !hasAmount {
		return fmt.Sprintf("%s divides by a count, not a literal (%s:%d)", f.Name, file, line)
	}
	ms := c.Metrics[run.Name]
	tot, ok := ms.Get("total_tokens")
	if !ok {
		if f.Null {
			return fmt.Sprintf("%s is null: %s prints no token count, and the runner (%s:%d) does not invent one", f.Name, run.Name, file, line)
		}
		return fmt.Sprintf("FAIL %s = %s, but %s prints no token count to divide by", f.Name, f.Num.Text, run.Name)
	}
	want := num.Round(amount.Value()/tot.Value(), f.Num.Decimals)
	if f.Null || !num.Matches(amount.Value()/tot.Value(), f.Num) {
		return fmt.Sprintf("FAIL %s = %s; the run's own count gives %s / %s = %s", f.Name, fieldText(f), fieldText(amount), tot.Num.Text, num.Format(want, f.Num.Decimals))
	}
	return fmt.Sprintf("%s = %s / %s tokens processed (prompt + decoded, %s tail line %d) = %s: the run's own count, named for what it covers (%s:%d)",
		f.Name, fieldText(amount), tot.Num.Text, run.Name, tot.Line, fieldText(f), file, line)
}

// fieldText prints a results field as the plan would: thousands
// separators, the JSON literal's precision.
func fieldText(f archive.Field) string {
	if f.Null {
		return "null"
	}
	return num.Format(f.Value(), f.Num.Decimals)
}

func mustFloat(s string) float64 {
	n, err := num.Parse(s)
	if err != nil || n.Value == 0 {
		return math.NaN()
	}
	return n.Value
}

// stepRun finds the run a llama_cpp_* amount was read from: the
// prev_llama_* step whose disk0_mb equals it.
func stepRun(s *archive.Snapshot, side, amountName string, amount archive.Field) *archive.Run {
	if amount.Null || !strings.Contains(amountName, "disk0") {
		return nil
	}
	for _, st := range s.PrevLlama[side] {
		if d, ok := st.Get("disk0_mb"); ok && !d.Null && d.Value() == amount.Value() {
			return s.Run(st.Run)
		}
	}
	return nil
}

// runCovers says what a whole-run amount of run r includes besides
// decoding, from its tail: model load and prefill.
func runCovers(ms *tail.Metrics, r *archive.Run) string {
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
		runs, _ := ms.Get("eval_runs")
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

// planQuote returns the first PLAN.md line that prints a field's value, or 0.
func planQuote(lines []string, f archive.Field) int {
	if f.Null {
		return 0
	}
	text := num.Format(f.Value(), f.Num.Decimals)
	for i, l := range lines {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	return 0
}

func readPlanLines(s *archive.Snapshot) []string {
	b, err := s.ReadFile(PlanFile)
	if err != nil {
		return nil
	}
	return strings.Split(string(b), "\n")
}
