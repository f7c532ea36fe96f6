package tail

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/num"
)

// numRE matches one printed number: digits with optional thousands
// separators, fraction and exponent, or C's inf/nan.
const numRE = `([-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan))`

// unitRE matches the unit a line prints after a number (%u): a run of
// non-space.
const unitRE = `(\S+)`

// pattern compiles a line pattern in which every %n stands for a number
// and every %u for a printed unit.
func pattern(p string) *regexp.Regexp {
	return regexp.MustCompile(`^` + strings.NewReplacer("%n", numRE, "%u", unitRE).Replace(p) + `$`)
}

// printed is a field's unit when the line prints it (a %u capture right
// after the number's): "timing: host wait 24830 µs/tok" reads the metric
// in µs/tok, which engine/format converts to the vocabulary's unit (and
// refuses, naming the line, when the unit table does not know it or it
// measures something else). The %u capture's own field is unnamed.
const printed = "%u"

// field names one capture group of a line pattern.
type field struct {
	name string
	unit string // the metric's unit; printed: the next capture's text
}

// lineRule reads one kind of line: every line starting with prefix must
// match the pattern pat, whose numbers (%n) are the fields, in order. pat
// is compiled to a template (no regexp at parse time) and, for the test
// that holds the two to agreement, to a regexp.
type lineRule struct {
	key    string // what the required-line check calls it
	prefix string
	pat    string
	tpl    *template
	re     *regexp.Regexp
	fields []field
	// skip reports lines that carry the prefix but are not this rule's
	// (progress lines sharing a prefix with a summary line).
	skip func(line string) bool
}

// ruleSet is an ordered list of line rules indexed by the first byte of
// their prefix, so that a line is tried only against the rules it could
// belong to. The rules a line is tried against keep their list order: the
// first rule whose prefix the line has takes it, as with a plain loop.
type ruleSet struct {
	rules   []lineRule
	byFirst [256][]int // first byte of a prefix → indexes into rules, in order
}

// newRuleSet indexes rules; every rule must have a non-empty prefix.
func newRuleSet(rules ...[]lineRule) *ruleSet {
	rs := &ruleSet{}
	for _, list := range rules {
		rs.rules = append(rs.rules, list...)
	}
	if len(rs.rules) > maxRules {
		panic(fmt.Sprintf("tail: %d line rules in one set; at most %d", len(rs.rules), maxRules))
	}
	for i := range rs.rules {
		ru := &rs.rules[i]
		if ru.prefix == "" {
			panic("tail: line rule " + ru.key + " has no prefix")
		}
		ru.tpl, ru.re = compileTemplate(ru.pat), pattern(ru.pat)
		if ru.tpl.ncap != len(ru.fields) {
			panic(fmt.Sprintf("tail: line rule %s has %d numbers and %d fields", ru.key, ru.tpl.ncap, len(ru.fields)))
		}
		rs.byFirst[ru.prefix[0]] = append(rs.byFirst[ru.prefix[0]], i)
	}
	return rs
}

// reader walks a tail line by line and collects metrics and errors.
type reader struct {
	ms   *Metrics
	seen map[string]int // rule key → first line it matched
	caps [16]string     // a template match's numbers
	// marked[i] says rule i of markedSet is in seen already: the map is
	// consulted once per rule, not once per line.
	marked    [maxRules]bool
	markedSet *ruleSet
	// text is the tail read, for the hint a missing line may carry
	// (prefixHint); "" when the parser sets none.
	text   string
	hinted bool // a missing line already carries the hint
}

// maxRules bounds a rule set's size (the reader marks rules in an array).
const maxRules = 64

// mark records the first line rule i of rs matched.
func (r *reader) mark(rs *ruleSet, i, n int) {
	if r.markedSet != rs {
		r.markedSet, r.marked = rs, [maxRules]bool{}
	}
	if r.marked[i] {
		return
	}
	r.marked[i] = true
	if _, ok := r.seen[rs.rules[i].key]; !ok {
		r.seen[rs.rules[i].key] = n
	}
}

func newReader(source string, max int) *reader {
	return &reader{ms: &Metrics{Source: source, Max: max}, seen: make(map[string]int, 16)}
}

func (r *reader) errorf(line int, format string, args ...any) {
	r.ms.Errors = append(r.ms.Errors, &Error{File: r.ms.Source, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// lines calls f with each line (without its line ending) and its 1-based
// number. A line that is not valid UTF-8 is reported and skipped. It stops
// once a metric was offered past the limit (Metrics.Over).
func (r *reader) lines(text string, f func(n int, line string)) {
	valid := utf8.ValidString(text) // then no line needs checking
	n := 0
	for len(text) > 0 && !r.ms.Over {
		n++
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if !valid && !utf8.ValidString(line) {
			r.errorf(n, "invalid UTF-8 at byte %d of the line", invalidAt(line))
			continue
		}
		f(n, line)
	}
}

func invalidAt(s string) int {
	for i, c := range s {
		if c == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return i + 1
			}
		}
	}
	return 0
}

// apply tries the rules on one line (already trimmed of surrounding
// space); it reports whether one took the line.
func (r *reader) apply(rs *ruleSet, n int, trimmed string) bool {
	if trimmed == "" {
		return false
	}
	for _, i := range rs.byFirst[trimmed[0]] {
		ru := &rs.rules[i]
		if !strings.HasPrefix(trimmed, ru.prefix) {
			continue
		}
		if ru.skip != nil && ru.skip(trimmed) {
			return true
		}
		if !ru.tpl.match(trimmed, r.caps[:]) {
			r.errorf(n, "malformed %q line: %q", ru.key, clip(trimmed))
			r.mark(rs, i, n) // reported once, not again as missing
			return true
		}
		r.mark(rs, i, n)
		for j, fd := range ru.fields {
			if fd.name == "" {
				continue
			}
			unit := fd.unit
			if unit == printed {
				unit = r.caps[j+1]
			}
			r.add(n, fd.name, r.caps[j], unit)
		}
		return true
	}
	return false
}

// add parses text as a number and records it.
func (r *reader) add(line int, name, text, unit string) {
	v, ok := PlainDecimal(text)
	var err error
	if !ok {
		v, err = num.Parse(text)
	}
	if err != nil {
		r.errorf(line, "%s: %v", name, err)
		return
	}
	r.ms.Add(Metric{Name: name, Num: v, Unit: unit, Line: line})
}

// require reports every required rule key that matched no line.
func (r *reader) require(keys ...string) {
	for _, k := range keys {
		if _, ok := r.seen[k]; !ok {
			r.errorf(0, "missing required line %q%s", k, r.prefixHint(k))
		}
	}
}

// prefixHint says, for the first required line found missing, where the
// text has it after something else at the start of the line (a time and
// level, glog's header): the format reads lines that start with key, and
// a declared format wrapping it can strip such a prefix. "" when the text
// has key at no line's middle, or a hint was given.
func (r *reader) prefixHint(key string) string {
	if r.hinted || r.text == "" {
		return ""
	}
	text := r.text
	for at, tries := 0, 0; tries < 3; tries++ {
		i := strings.Index(text[at:], key)
		if i < 0 {
			return ""
		}
		i += at
		start := strings.LastIndexByte(text[:i], '\n') + 1
		// a prefix ends where a word starts: "prompt_gemm_init:" holds no
		// "init:" line
		if prefix := text[start:i]; strings.TrimSpace(prefix) != "" && !isWordByte(prefix[len(prefix)-1]) {
			r.hinted = true
			line := strings.Count(text[:start], "\n") + 1
			return fmt.Sprintf(` (line %d has it after a prefix, %q: a declared format that wraps this one can strip it, "prefix" under "formats" in the spec file)`, line, clip(prefix))
		}
		at = i + len(key)
	}
	return ""
}

// requireRules reports every rule of rules that matched no line, with the
// metrics the line would have given (Error.Metrics).
func (r *reader) requireRules(rules []lineRule) {
	for _, ru := range rules {
		if _, ok := r.seen[ru.key]; ok {
			continue
		}
		e := &Error{File: r.ms.Source, Msg: fmt.Sprintf("missing required line %q%s", ru.key, r.prefixHint(ru.key))}
		for _, fd := range ru.fields {
			if fd.name != "" {
				e.Metrics = append(e.Metrics, fd.name)
			}
		}
		r.ms.Errors = append(r.ms.Errors, e)
	}
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// PlainDecimal parses the common case of a printed number, an optional sign,
// digits and at most one '.', without num.Parse's general path; it returns
// what num.Parse returns for such text, and false for any other text.
func PlainDecimal(text string) (num.Number, bool) {
	dot, digits := -1, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && dot < 0:
			dot = i
		case (c == '-' || c == '+') && i == 0:
		default:
			return num.Number{}, false
		}
	}
	if digits == 0 {
		return num.Number{}, false
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return num.Number{}, false
	}
	n := num.Number{Value: v, Text: text}
	if dot >= 0 {
		n.Decimals = len(text) - dot - 1
	}
	return n, true
}
