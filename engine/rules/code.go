package rules

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
)

func init() {
	Register(Rule{
		Name:  "code",
		Doc:   "no number the plan quotes and no divisor a derivation uses is a literal in the snapshot's source code; planning mirrors do not hard-code what the code they mirror reads from its parameters",
		Check: checkCode,
	})
}

// staleTexts are log texts an earlier audit found stale; they must appear
// in no run's tail (and the last two nowhere in the sources).
var staleTexts = []struct {
	Text       string
	InSourceOK bool // allowed in a source branch that the runs do not take
}{
	{"in the expert arena", true},
	{"0 arena slots stolen", false},
	{"0.00 GB anon", false},
}

// roundUpLitRE matches a round-up to a multiple of a literal:
// ((x + 16 - 1) / 16) * 16.
var roundUpLitRE = regexp.MustCompile(`\+\s*([0-9]+)\s*-\s*1\s*\)\s*/\s*([0-9]+)\s*\)\s*\*\s*([0-9]+)`)

// roundUpFieldRE matches a round-up to a multiple of a parameter:
// ((C + p.TM - 1) / p.TM) * p.TM.
var roundUpFieldRE = regexp.MustCompile(`\+\s*([A-Za-z_][A-Za-z0-9_]*(?:\.|->)([A-Za-z_][A-Za-z0-9_]*))\s*-\s*1\s*\)\s*/`)

func checkCode(c *Context) ([]finding.Finding, error) {
	s := c.Snap
	if s == nil {
		return nil, fmt.Errorf("code: no snapshot")
	}
	var files []*codeFile
	for _, rel := range sourceFiles(s) {
		f, err := readCode(s, rel)
		if err != nil {
			if os.IsNotExist(err) {
				continue // provenance reports missing files
			}
			return nil, fmt.Errorf("code: %w", err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return []finding.Finding{{Rule: "code", Severity: finding.Warn, File: ".",
			Message: "no source files in the snapshot (scripts/, vendor/, provenance): the code checks cannot run"}}, nil
	}
	var out []finding.Finding
	out = append(out, literalDivisors(files)...)
	out = append(out, planLiterals(s, files)...)
	out = append(out, staleStrings(c, files)...)
	out = append(out, hardCodedMirrors(files)...)
	return out, nil
}

// literalDivisors reports every division by a numeric literal that is not a
// unit conversion, outside strings and comments (the audit's "/ 65.0").
// Round-ups to a literal tile are left to hardCodedMirrors.
func literalDivisors(files []*codeFile) []finding.Finding {
	var out []finding.Finding
	n := 0
	for _, f := range files {
		for i, b := range f.blank {
			if roundUpLitRE.MatchString(b) {
				continue
			}
			for _, m := range literalDivRE.FindAllStringSubmatchIndex(b, -1) {
				lit := b[m[2]:m[3]]
				v, err := num.Parse(lit)
				if err != nil || unitDivisors[v.Value] {
					continue
				}
				n++
				out = append(out, finding.Finding{Rule: "code", ID: "F19", Severity: finding.Fail, File: f.path, Line: i + 1,
					Quote: strings.TrimSpace(f.lines[i]), Raw: "/ " + lit, Source: f.path,
					Message: fmt.Sprintf("literal divisor %s at %s:%d: a derived rate must divide by a count read from the run, not a constant", lit, f.path, i+1)})
			}
		}
	}
	if n == 0 {
		out = append(out, finding.Finding{Rule: "code", ID: "F19", Severity: finding.Pass, File: files[0].path, Source: sourceList(files),
			Message: fmt.Sprintf("no literal divisor (other than unit conversions) in %d source files", len(files))})
	}
	return out
}

// planLiterals reports a number the plan quotes that the code hard-codes
// (the audit's "1.36 * gb"). Only numbers with a fraction or of three or
// more digits are compared: small integers (tile sizes, counts) are not
// quotes. Occurrences inside string literals (a self-test sample) are
// listed in a pass finding.
func planLiterals(s *archive.Snapshot, files []*codeFile) []finding.Finding {
	b, err := s.ReadFile(PlanFile)
	if err != nil {
		return []finding.Finding{{Rule: "code", ID: "F20", Severity: finding.Warn, File: PlanFile,
			Message: fmt.Sprintf("%s cannot be read, so quoted numbers cannot be looked for in the code: %v", PlanFile, err)}}
	}
	doc := plan.Parse(PlanFile, b)
	quoted := map[float64]string{} // value → "1.36 (PLAN.md:310)"
	for _, l := range doc.Lines {
		for _, t := range l.Tokens() {
			for _, p := range t.Parts {
				if p.Decimals == 0 && (p.Value < 100 && p.Value > -100) {
					continue
				}
				if _, ok := quoted[p.Value]; !ok {
					quoted[p.Value] = fmt.Sprintf("%s (%s:%d)", p.Text, PlanFile, l.N)
				}
			}
		}
	}
	var out []finding.Finding
	inStrings := map[string][]string{} // quote → places
	for _, f := range files {
		for i, bl := range f.blank {
			for _, lit := range numberLiterals(bl) {
				v, err := num.Parse(lit)
				if err != nil {
					continue
				}
				if q, ok := quoted[v.Value]; ok && (v.Decimals > 0 || v.Value >= 100) {
					out = append(out, finding.Finding{Rule: "code", ID: "F20", Severity: finding.Fail, File: f.path, Line: i + 1,
						Quote: strings.TrimSpace(f.lines[i]), Raw: lit, Source: q,
						Message: fmt.Sprintf("%s:%d hard-codes %s, a number the plan quotes at %s", f.path, i+1, lit, q)})
				}
			}
			for _, str := range f.strs[i] {
				for _, lit := range numberLiterals(str) {
					v, err := num.Parse(lit)
					if err != nil || v.Decimals == 0 {
						continue
					}
					if _, ok := quoted[v.Value]; ok {
						inStrings[lit] = append(inStrings[lit], fmt.Sprintf("%s:%d", f.path, i+1))
					}
				}
			}
		}
	}
	if len(out) == 0 {
		msg := "no number the plan quotes is a literal in the code (the audit looked for 1.36 * gb)"
		// Group the string occurrences by place: "1.36, 2.90 in strings at runner.py:711, 724".
		byPlace := map[string][]string{}
		for k, places := range inStrings {
			key := strings.Join(dedupe(places), ", ")
			byPlace[key] = append(byPlace[key], k)
		}
		var raw []string
		file := files[0].path
		for places, lits := range byPlace {
			sort.Strings(lits)
			raw = append(raw, fmt.Sprintf("%s only inside string literals at %s", strings.Join(lits, ", "), places))
			file = strings.SplitN(places, ":", 2)[0]
		}
		sort.Strings(raw)
		if len(raw) > 0 {
			msg += "; quoted numbers appear " + strings.Join(raw, "; ")
		}
		out = append(out, finding.Finding{Severity: finding.Pass, Rule: "code", ID: "F20", File: file, Source: sourceList(files),
			Raw: strings.Join(raw, "; "), Message: msg})
	}
	return out
}

// numberLiterals returns the decimal literals in s that stand alone (not
// part of an identifier or a version such as 1.2.3).
func numberLiterals(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		if c < '0' || c > '9' || i > 0 && (isIdent(s[i-1]) || s[i-1] == '.') {
			i++
			continue
		}
		j := i
		dots := 0
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && dots == 0 && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
			if s[j] == '.' {
				dots++
			}
			j++
		}
		if j < len(s) && s[j] == '.' && dots == 0 && (j+1 == len(s) || !isIdent(s[j+1]) && s[j+1] != '.') {
			j++ // "3." is a float literal
		}
		if j < len(s) && (isIdent(s[j]) || s[j] == '.') {
			for j < len(s) && (isIdent(s[j]) || s[j] == '.') {
				j++
			}
			i = j
			continue
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// staleStrings checks the stale log texts against every tail and source.
func staleStrings(c *Context, files []*codeFile) []finding.Finding {
	var out []finding.Finding
	for _, st := range staleTexts {
		var inTails []string
		for _, r := range c.Snap.Runs {
			if strings.Contains(r.Tail, st.Text) {
				inTails = append(inTails, r.Name)
			}
		}
		var inSrc []string
		for _, f := range files {
			for i, l := range f.lines {
				if strings.Contains(l, st.Text) {
					inSrc = append(inSrc, fmt.Sprintf("%s:%d", f.path, i+1))
				}
			}
		}
		fd := finding.Finding{Severity: finding.Pass, Rule: "code", ID: "F21", File: files[0].path, Quote: st.Text, Source: "every run's tail and " + sourceList(files)}
		switch {
		case len(inTails) > 0:
			fd.Severity = finding.Fail
			fd.Raw = strings.Join(inTails, ", ")
			fd.Message = fmt.Sprintf("the stale text %q appears in the tails of %s", st.Text, strings.Join(inTails, ", "))
		case len(inSrc) > 0 && !st.InSourceOK:
			fd.Severity = finding.Fail
			fd.File = strings.SplitN(inSrc[0], ":", 2)[0]
			fd.Raw = strings.Join(inSrc, ", ")
			fd.Message = fmt.Sprintf("the stale text %q is still in the sources (%s)", st.Text, strings.Join(inSrc, ", "))
		case len(inSrc) > 0:
			fd.Raw = strings.Join(inSrc, ", ")
			fd.Message = fmt.Sprintf("%q appears in no tail; it survives only in a source branch no run took (%s)", st.Text, strings.Join(inSrc, ", "))
		default:
			fd.Message = fmt.Sprintf("%q appears in no tail and no source", st.Text)
		}
		out = append(out, fd)
	}
	return out
}

// cFunc is a function of a C-family source: its name and line span.
type cFunc struct {
	name       string
	start, end int // 1-based, inclusive
}

var cFuncRE = regexp.MustCompile(`^[A-Za-z_][^;()]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\([^;]*\)\s*(?:const\s*)?\{\s*$`)

// cFuncs finds the top-level functions of a C-family file: a header at
// column 0 ending in "{", up to the next "}" at column 0.
func cFuncs(f *codeFile) []cFunc {
	var out []cFunc
	for i := 0; i < len(f.blank); i++ {
		m := cFuncRE.FindStringSubmatch(f.blank[i])
		if m == nil {
			continue
		}
		fn := cFunc{name: m[1], start: i + 1}
		for j := i + 1; j < len(f.blank); j++ {
			if strings.HasPrefix(f.blank[j], "}") {
				fn.end = j + 1
				break
			}
		}
		if fn.end == 0 {
			continue
		}
		out = append(out, fn)
		i = fn.end - 1
	}
	return out
}

// hardCodedMirrors finds a planning function that re-derives a size with a
// literal where the code it mirrors reads a parameter: make() rounds up to
// p.TM, prompt_gemm_need_bytes() to 16 (audit §2 ⚠, F23). An assertion
// that the plan's size equals the measured one, anywhere in the file,
// turns the warning into a pass.
func hardCodedMirrors(files []*codeFile) []finding.Finding {
	var out []finding.Finding
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f.path, ".py") {
			continue
		}
		funcs := cFuncs(f)
		fields := map[string]string{} // field name → "make (L2108)"
		for _, fn := range funcs {
			for l := fn.start; l <= fn.end; l++ {
				for _, m := range roundUpFieldRE.FindAllStringSubmatch(f.blank[l-1], -1) {
					if _, ok := fields[m[2]]; !ok {
						fields[m[2]] = fmt.Sprintf("%s() at %s:%d rounds up to %s", fn.name, f.path, l, m[1])
					}
				}
			}
		}
		var lits []int
		var lit string
		var names []string
		asserted := ""
		for _, fn := range funcs {
			if !strings.Contains(fn.name, "need") {
				continue
			}
			checked++
			names = append(names, fn.name+"()")
			if a := assertsEqual(f, fn.name); a != "" {
				asserted = a
			}
			for l := fn.start; l <= fn.end; l++ {
				if m := roundUpLitRE.FindStringSubmatch(f.blank[l-1]); m != nil && m[1] == m[2] && m[2] == m[3] {
					lits = append(lits, l)
					lit = m[1]
				}
			}
		}
		if len(names) == 0 {
			continue
		}
		var mirror []string
		for _, v := range fields {
			mirror = append(mirror, v)
		}
		sort.Strings(mirror)
		switch {
		case len(lits) > 0 && len(mirror) > 0:
			var lines []string
			for _, l := range lits {
				lines = append(lines, fmt.Sprintf("L%d", l))
			}
			fd := finding.Finding{Severity: finding.Pass, Rule: "code", ID: "F23", File: f.path, Line: lits[0],
				Quote: strings.TrimSpace(f.lines[lits[0]-1]), Raw: "literal " + lit + " at " + strings.Join(lines, ", "),
				Source: strings.Join(mirror, "; ")}
			if asserted != "" {
				fd.Message = fmt.Sprintf("%s hard-code %s (%s) where %s, but %s asserts the plan's need equals the measured one",
					strings.Join(names, ", "), lit, strings.Join(lines, ", "), mirror[0], asserted)
			} else {
				fd.Severity = finding.Warn
				fd.Message = fmt.Sprintf("%s, a hand-kept mirror of the sizing, hard-code %s (%s) where %s; nothing asserts that the mirror equals the measured need",
					strings.Join(names, ", "), lit, strings.Join(lines, ", "), mirror[0])
			}
			out = append(out, fd)
		default:
			msg := fmt.Sprintf("%s in %s hard-code no round-up literal", strings.Join(names, ", "), f.path)
			if asserted != "" {
				msg += "; " + asserted + " asserts the plan's need equals the measured one"
			}
			out = append(out, finding.Finding{Severity: finding.Pass, Rule: "code", ID: "F23", File: f.path, Quote: strings.Join(names, ", "), Source: f.path, Message: msg})
		}
	}
	if checked == 0 {
		out = append(out, finding.Finding{Rule: "code", ID: "F23", Severity: finding.Warn, File: files[0].path, Source: sourceList(files),
			Message: "no planning function (a function named *need*) in the C-family sources: the mirror check did not run"})
	}
	return out
}

// assertsEqual returns "file:line" of an assertion that compares with a
// call of fn, or "".
func assertsEqual(f *codeFile, fn string) string {
	for i, b := range f.blank {
		if strings.Contains(b, "assert") && strings.Contains(b, "==") && strings.Contains(b, fn+"(") {
			return fmt.Sprintf("%s:%d", f.path, i+1)
		}
	}
	return ""
}

func sourceList(files []*codeFile) string {
	var names []string
	for _, f := range files {
		names = append(names, f.path)
	}
	return strings.Join(names, ", ")
}

func dedupe(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range l {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
