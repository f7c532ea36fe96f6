package claims

import (
	"slices"
	"strings"
	"unicode"

	"github.com/strataspec/strataspec/engine/plan"
)

// checkSpans checks the code spans of the claim lines (indexes into
// doc.Lines) that quote numbers. A span of command-line arguments or
// settings (`-ub 1024`, `MoCE=0.85`) is a label, which rule plan.label
// checks; any other span with a number either occurs verbatim (runs of
// white space aside) in the tail of a run the line's numbers are bound to
// (or, on a line with no bound number, a run bound at its section), or has
// every number bound by a row at its place.
func checkSpans(doc *plan.Doc, t *Table, env *Env, res *Result, lines []int, byQuote map[string][]*Row) []SpanCheck {
	if len(lines) == 0 {
		return nil
	}
	lineRuns := map[int][]string{}
	for _, b := range res.Bindings {
		if b.Token.Line > 0 {
			lineRuns[b.Token.Line] = appendNew(lineRuns[b.Token.Line], b.Row.MetricRuns(env)...)
		}
	}
	var out []SpanCheck
	for _, i := range lines {
		l := doc.Lines[i]
		for _, sp := range l.CodeSpans() {
			toks := plan.Scan(sp.Text)
			if len(toks) == 0 || LabelSpan(sp.Text) {
				continue
			}
			place := l.Section.Place()
			c := SpanCheck{Span: sp, Line: l.N, Place: place}
			c.Runs = lineRuns[l.N]
			if len(c.Runs) == 0 {
				for _, row := range t.Rows {
					if l.Section.In(row.Place) {
						c.Runs = appendNew(c.Runs, row.MetricRuns(env)...)
					}
				}
			}
			for _, run := range c.Runs {
				if env.Tail != nil && containsFields(env.Tail(run), sp.Text) {
					c.OK, c.Run = true, run
					break
				}
			}
			if !c.OK {
				for _, tk := range toks {
					bound := false
					for _, row := range byQuote[tk.Text] {
						bound = bound || l.Section.In(row.Place)
					}
					if !bound {
						c.Loose = append(c.Loose, tk.Text)
					}
				}
				c.OK = len(c.Loose) == 0
			}
			out = append(out, c)
		}
	}
	return out
}

func appendNew(l []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(l, a) {
			l = append(l, a)
		}
	}
	return l
}

// LabelSpan reports whether a code span holds command-line arguments or
// settings only: flags (-ub, --n-gen) with their values, name=value
// settings, and words without digits (a program name), as in
// `llama-completion -no-cnv -t 8` or `--n-prompt 32 --n-gen 64`.
func LabelSpan(s string) bool {
	f := strings.Fields(s)
	label := false
	for i := 0; i < len(f); i++ {
		w := f[i]
		switch {
		case IsFlag(w):
			label = true
			if i+1 < len(f) && !IsFlag(f[i+1]) {
				i++
			}
		case strings.Contains(w, "=") && strings.Index(w, "=") > 0:
			label = true
		case strings.IndexFunc(w, unicode.IsDigit) >= 0:
			return false
		}
	}
	return label
}

// IsFlag reports whether w is a command-line flag: "-" or "--" and a letter.
func IsFlag(w string) bool {
	if !strings.HasPrefix(w, "-") {
		return false
	}
	r := strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-")
	return r != "" && unicode.IsLetter(rune(r[0]))
}

// containsFields reports whether text holds the words of s in order,
// separated by white space (any amount) as in s.
func containsFields(text, s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return false
	}
	for off := 0; ; {
		i := strings.Index(text[off:], f[0])
		if i < 0 {
			return false
		}
		start := off + i
		j := start + len(f[0])
		ok := true
		for _, w := range f[1:] {
			k := j
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			if k == j || !strings.HasPrefix(text[k:], w) {
				ok = false
				break
			}
			j = k + len(w)
		}
		if ok {
			return true
		}
		off = start + 1
	}
}
