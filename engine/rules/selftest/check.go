package selftest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// Check checks the self-test output against the runner's PASS line: the
// verdict line must be exactly that line, the self-test must exit 0 and
// report no failed check. runner names the runner's source ("" if none).
func Check(r Result, pass, runner string) []finding.Finding {
	src := "--self-test"
	if runner != "" {
		src = runner + " --self-test"
	}
	f := func(sev finding.Severity, line int, quote, format string, args ...any) finding.Finding {
		return finding.Finding{Check: "verdict", Severity: sev, File: r.File, Line: line,
			Quote: quote, Raw: pass, Source: src, Message: fmt.Sprintf(format, args...)}
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
	assertRE = regexp.MustCompile(`^\s*assert\b`)
	effectRE = regexp.MustCompile(`(?i)mincore|residen`)
)

// CheckEviction checks the runner's self-test (the audit's F28):
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
func CheckEviction(fn *Func, runner string) finding.Finding {
	f := func(sev finding.Severity, line int, quote, format string, args ...any) finding.Finding {
		return finding.Finding{Check: "eviction", Severity: sev, File: runner, Line: line,
			Quote: quote, Source: runner, Message: fmt.Sprintf(format, args...)}
	}
	if fn == nil {
		return f(finding.Warn, 0, "", "%s is not in the snapshot: what the self-test asserts about eviction is not checked", runner)
	}
	if fn.Start == 0 {
		return f(finding.Warn, 0, "", "%s: no self-test function (def self_test…): what it asserts about eviction is not checked", runner)
	}
	lines := fn.File.Lines
	start, end := fn.Start-1, fn.End-1
	all := checks(lines, start, end)
	var evict []check
	for _, c := range all {
		if strings.Contains(strings.ToLower(c.text+" "+c.expanded), "evict") {
			evict = append(evict, c)
		}
	}
	if len(evict) == 0 {
		return f(finding.Warn, start+1, strings.TrimSpace(lines[start]), "%s:%d: the self-test checks nothing about eviction", runner, start+1)
	}
	for _, c := range evict {
		if effectRE.MatchString(c.expanded) {
			reads := ""
			if c.expanded != c.cond {
				reads = fmt.Sprintf(", that is %s", c.expanded)
			}
			return f(finding.Pass, c.line, c.text, "%s:%d: the self-test checks eviction by its effect: condition %s%s",
				runner, c.line, c.cond, reads)
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

// check is one assert or check(name, condition) of the self-test.
type check struct {
	line     int    // 1-based
	text     string // the statement
	cond     string // the condition it checks
	expanded string // cond with local variables replaced by their assigned values
}

var (
	assignRE = regexp.MustCompile(`^([A-Za-z_]\w*)\s*=\s*([^=\s].*)$`)
	callRE   = regexp.MustCompile(`^\w*check\w*\((.*)\)$`)
	identRE  = regexp.MustCompile(`[A-Za-z_]\w*`)
)

// checks returns the checks of the self-test function spanning lines
// start..end (0-based), in order.
func checks(lines []string, start, end int) []check {
	vars := map[string]string{}
	var out []check
	for i := start + 1; i <= end; i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "def ") {
			continue
		}
		text, last := logical(lines, i, end)
		n := i + 1
		i = last
		var cond string
		switch {
		case assertRE.MatchString(text):
			cond = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "assert"))
			cond = splitArgs(cond)[0] // drop the message
		case callRE.MatchString(text):
			as := splitArgs(callRE.FindStringSubmatch(text)[1])
			if len(as) < 2 {
				continue
			}
			cond = as[1]
		default:
			if m := assignRE.FindStringSubmatch(text); m != nil {
				vars[m[1]] = expand(strings.TrimSpace(m[2]), vars)
			}
			continue
		}
		out = append(out, check{line: n, text: text, cond: cond, expanded: expand(cond, vars)})
	}
	return out
}

// expand replaces the identifiers of expr that are local variables
// by their assigned values, in parentheses.
func expand(expr string, vars map[string]string) string {
	return identRE.ReplaceAllStringFunc(expr, func(id string) string {
		if v, ok := vars[id]; ok {
			return "(" + v + ")"
		}
		return id
	})
}

// splitArgs splits a Python argument list at its top-level commas.
func splitArgs(s string) []string {
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

// logical joins a statement continued over lines by open brackets
// or a trailing backslash; it returns the text and its last line.
func logical(lines []string, i, end int) (string, int) {
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
