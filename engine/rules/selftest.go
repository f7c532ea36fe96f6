package rules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/tail"
)

// SelftestPassLine is the runner's PASS line when its source does not show
// one.
const SelftestPassLine = "self-test: PASS"

// selftestRun is the runner's --self-test output as the selftest rule reads it.
type selftestRun struct {
	File    string // the output's file, relative to the snapshot root; "" if absent
	Exit    int
	Verdict tail.Metric // verdict_pass: the verdict line; zero Metric if none
	// VerdictText is the text of the verdict line, as printed.
	VerdictText  string
	ChecksOK     tail.Metric
	ChecksFailed tail.Metric
}

// selftestSource is the runner's source as the selftest rule reads it.
type selftestSource struct {
	File  string
	Lines []string // nil when the snapshot has no runner source
}

func init() {
	Register(Rule{
		Name: "selftest",
		Doc:  "runner --self-test: the verdict is exactly the runner's PASS line; eviction is asserted by its effect, not a return value",
		Check: func(c *Context) ([]finding.Finding, error) {
			run, err := selftestOutput(c)
			if err != nil {
				return nil, err
			}
			src, err := selftestReadSource(c.Snap.Root)
			if err != nil {
				return nil, err
			}
			out := append(checkSelftest(run, selftestPass(src)), checkSelftestEviction(src)...)
			if rec := c.Snap.SelfTest; rec != nil {
				out = append(out, recordErrors("selftest", "F42", rec, c.Metrics[rec.File])...)
			}
			return out, nil
		},
	})
}

// checkSelftest checks the self-test output against the runner's PASS line
// (F42): the verdict line must be exactly that line, the self-test must exit
// 0 and report no failed check.
func checkSelftest(r selftestRun, pass string) []finding.Finding {
	f := func(sev finding.Severity, line int, quote, format string, args ...any) finding.Finding {
		return finding.Finding{Rule: "selftest", ID: "F42", Severity: sev, File: r.File, Line: line,
			Quote: quote, Raw: pass, Source: RunnerFile + " --self-test", Message: fmt.Sprintf(format, args...)}
	}
	if r.File == "" {
		return []finding.Finding{f(finding.Fail, 0, "", "no --self-test output in the snapshot")}
	}
	var out []finding.Finding
	ok := true
	if r.Exit != 0 {
		ok = false
		out = append(out, f(finding.Fail, 0, "", "--self-test exited %d; want 0", r.Exit))
	}
	if r.ChecksFailed.Num.Text != "" && r.ChecksFailed.Value() != 0 {
		ok = false
		out = append(out, f(finding.Fail, r.ChecksFailed.Line, r.ChecksFailed.Num.Text, "--self-test reports %s failed checks", r.ChecksFailed.Num.Text))
	}
	v := strings.TrimRight(r.VerdictText, " \t\r")
	switch {
	case r.Verdict.Line == 0:
		ok = false
		out = append(out, f(finding.Fail, 0, "", "--self-test printed no verdict line; want %q", pass))
	case v != pass:
		ok = false
		msg := fmt.Sprintf("the verdict line is %q, not the runner's PASS line %q", v, pass)
		if i := strings.LastIndex(v, pass); i > 0 && i+len(pass) == len(v) {
			msg += fmt.Sprintf(": garbled prefix %q", v[:i])
		}
		out = append(out, f(finding.Fail, r.Verdict.Line, v, "%s", msg))
	}
	if ok {
		checks := ""
		if r.ChecksOK.Num.Text != "" {
			checks = fmt.Sprintf(", %s checks ok", r.ChecksOK.Num.Text)
		}
		out = append(out, f(finding.Pass, r.Verdict.Line, v, "--self-test verdict is exactly %q, exit 0%s", pass, checks))
	}
	return out
}

var (
	selftestString = regexp.MustCompile(`"([^"]*)"|'([^']*)'`)
	selftestDef    = regexp.MustCompile(`^(\s*)def\s+_?self_?test\w*\s*\(`)
	selftestAssert = regexp.MustCompile(`^\s*assert\b`)
	selftestEffect = regexp.MustCompile(`(?i)mincore|residen`)
)

// selftestPass returns the runner's PASS line: the string literal with
// "self-test" and "PASS" that its self-test prints, or SelftestPassLine when
// the source does not show one.
func selftestPass(src selftestSource) string {
	start, end := selftestFunc(src.Lines)
	if start < 0 {
		start, end = 0, len(src.Lines)-1
	}
	for i := start; i <= end && i < len(src.Lines); i++ {
		if !strings.Contains(src.Lines[i], "print(") {
			continue
		}
		for _, m := range selftestString.FindAllStringSubmatch(src.Lines[i], -1) {
			if lit := m[1] + m[2]; strings.Contains(lit, "self-test") && strings.Contains(lit, "PASS") {
				return lit
			}
		}
	}
	return SelftestPassLine
}

// checkSelftestEviction checks the runner's self-test for the audit's F28:
// an eviction check that looks only at a return value (assert
// evict_file_cache(__file__) is True) cannot see an eviction that does
// nothing. A check is an assert statement or a check(name, condition) call
// in the self-test function; it is about eviction when it mentions evict,
// and it checks the effect when its condition, with the function's local
// variables replaced by what they were assigned, reads residency (mincore).
//
// The source is read as text, statement by statement (brackets and trailing
// backslashes join lines), not by a Python parser: it understands the
// forms above, and a self-test written otherwise gets a warn, not a pass.
func checkSelftestEviction(src selftestSource) []finding.Finding {
	f := func(sev finding.Severity, line int, quote, format string, args ...any) []finding.Finding {
		return []finding.Finding{{Rule: "selftest", ID: "F28", Severity: sev, File: src.File, Line: line,
			Quote: quote, Source: src.File, Message: fmt.Sprintf(format, args...)}}
	}
	if src.Lines == nil {
		return f(finding.Warn, 0, "", "%s is not in the snapshot: what the self-test asserts about eviction is not checked", src.File)
	}
	start, end := selftestFunc(src.Lines)
	if start < 0 {
		return f(finding.Warn, 0, "", "%s: no self-test function (def self_test…): what it asserts about eviction is not checked", src.File)
	}
	checks := selftestChecks(src.Lines, start, end)
	var evict []selftestCheck
	for _, c := range checks {
		if strings.Contains(strings.ToLower(c.text+" "+c.expanded), "evict") {
			evict = append(evict, c)
		}
	}
	if len(evict) == 0 {
		return f(finding.Warn, start+1, strings.TrimSpace(src.Lines[start]), "%s:%d: the self-test checks nothing about eviction", src.File, start+1)
	}
	for _, c := range evict {
		if selftestEffect.MatchString(c.expanded) {
			reads := ""
			if c.expanded != c.cond {
				reads = fmt.Sprintf(", that is %s", c.expanded)
			}
			return f(finding.Pass, c.line, c.text, "%s:%d: the self-test checks eviction by its effect: condition %s%s",
				src.File, c.line, c.cond, reads)
		}
	}
	var what []string
	for _, c := range evict {
		what = append(what, fmt.Sprintf("L%d %s", c.line, c.text))
	}
	c := evict[0]
	return f(finding.Fail, c.line, c.text, "the self-test's eviction check tests only a return value, never residency (%s): it passes on an eviction that evicts nothing; check residency with mincore",
		strings.Join(what, "; "))
}

// selftestCheck is one assert or check(name, condition) of the self-test.
type selftestCheck struct {
	line     int    // 1-based
	text     string // the statement
	cond     string // the condition it checks
	expanded string // cond with local variables replaced by their assigned values
}

var (
	selftestAssign = regexp.MustCompile(`^([A-Za-z_]\w*)\s*=\s*([^=\s].*)$`)
	selftestCall   = regexp.MustCompile(`^\w*check\w*\((.*)\)$`)
	selftestIdent  = regexp.MustCompile(`[A-Za-z_]\w*`)
)

// selftestChecks returns the checks of the self-test function spanning lines
// start..end (0-based), in order.
func selftestChecks(lines []string, start, end int) []selftestCheck {
	vars := map[string]string{}
	var out []selftestCheck
	for i := start + 1; i <= end; i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "def ") {
			continue
		}
		text, last := selftestLogical(lines, i, end)
		n := i + 1
		i = last
		var cond string
		switch {
		case selftestAssert.MatchString(text):
			cond = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "assert"))
			cond = selftestArgs(cond)[0] // drop the message
		case selftestCall.MatchString(text):
			args := selftestArgs(selftestCall.FindStringSubmatch(text)[1])
			if len(args) < 2 {
				continue
			}
			cond = args[1]
		default:
			if m := selftestAssign.FindStringSubmatch(text); m != nil {
				vars[m[1]] = selftestExpand(strings.TrimSpace(m[2]), vars)
			}
			continue
		}
		out = append(out, selftestCheck{line: n, text: text, cond: cond, expanded: selftestExpand(cond, vars)})
	}
	return out
}

// selftestExpand replaces the identifiers of expr that are local variables
// by their assigned values, in parentheses.
func selftestExpand(expr string, vars map[string]string) string {
	return selftestIdent.ReplaceAllStringFunc(expr, func(id string) string {
		if v, ok := vars[id]; ok {
			return "(" + v + ")"
		}
		return id
	})
}

// selftestArgs splits a Python argument list at its top-level commas.
func selftestArgs(s string) []string {
	var out []string
	depth, from := 0, 0
	var quote rune
	for i, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case strings.ContainsRune("([{", c):
			depth++
		case strings.ContainsRune(")]}", c):
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[from:i]))
			from = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[from:]))
}

// selftestFunc returns the 0-based first and last lines of the runner's
// self-test function, by indentation; -1, -1 if none.
func selftestFunc(lines []string) (int, int) {
	for i, l := range lines {
		m := selftestDef.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		indent := len(m[1])
		end := i
		for j := i + 1; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if len(lines[j])-len(strings.TrimLeft(lines[j], " \t")) <= indent {
				break
			}
			end = j
		}
		return i, end
	}
	return -1, -1
}

// selftestLogical joins a statement continued over lines by open brackets
// or a trailing backslash; it returns the text and its last line.
func selftestLogical(lines []string, i, end int) (string, int) {
	var parts []string
	depth := 0
	for j := i; j <= end; j++ {
		l := strings.TrimSpace(lines[j])
		if k := strings.Index(l, " #"); k >= 0 {
			l = strings.TrimSpace(l[:k])
		}
		parts = append(parts, strings.TrimSuffix(l, "\\"))
		depth += strings.Count(l, "(") + strings.Count(l, "[") + strings.Count(l, "{") -
			strings.Count(l, ")") - strings.Count(l, "]") - strings.Count(l, "}")
		if depth <= 0 && !strings.HasSuffix(l, "\\") {
			return strings.Join(parts, " "), j
		}
	}
	return strings.Join(parts, " "), end
}

func selftestReadSource(root string) (selftestSource, error) {
	lines, err := readSourceLines(root, RunnerFile)
	if err != nil {
		return selftestSource{File: RunnerFile}, fmt.Errorf("selftest: %w", err)
	}
	return selftestSource{File: RunnerFile, Lines: lines}, nil
}

// selftestOutput reads the runner's self-test output: the snapshot's
// self-test record and its parsed metrics (verdict_pass, checks_ok,
// checks_failed). The verdict line's text is the record's line at the
// metric's line number.
func selftestOutput(c *Context) (selftestRun, error) {
	if c.Snap == nil {
		return selftestRun{}, fmt.Errorf("selftest: no snapshot")
	}
	rec := c.Snap.SelfTest
	if rec == nil {
		return selftestRun{}, nil
	}
	ms, err := metricsOfRecord(c, rec)
	if err != nil {
		return selftestRun{}, fmt.Errorf("selftest: %w", err)
	}
	r := selftestRun{File: rec.File, Exit: rec.Exit}
	r.Verdict, _ = ms.Get("verdict_pass")
	r.ChecksOK, _ = ms.Get("checks_ok")
	r.ChecksFailed, _ = ms.Get("checks_failed")
	if r.Verdict.Line > 0 {
		lines := strings.Split(rec.Text, "\n")
		if r.Verdict.Line > len(lines) {
			return r, fmt.Errorf("selftest: %s: verdict at line %d of a %d-line file", rec.File, r.Verdict.Line, len(lines))
		}
		r.VerdictText = lines[r.Verdict.Line-1]
	}
	return r, nil
}
