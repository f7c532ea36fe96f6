// Package claims is the grammar and syntax tree of a claims table, the
// file that binds the numbers a plan quotes to their sources. A claims table (PLAN.claims at the root of a checkout) is a small
// line format:
//
//	# a comment; blank lines are ignored
//	section §7.1 #5                       a claim section: every number in it must be bound
//	skip §1.3                             a section declared not claims (design targets): its numbers are counted, not listed as ungated;
//	                                      a skip may carve a part out of a claim section, never cover a whole one
//	set q2 = engine_q2_* engine_opt_*     a named run set (globs over run names)
//	const page = 16 KiB                   a declared constant (value and unit)
//	ident 2023 5000                       words the plan uses as identifiers, not quantities (a year, a depth):
//	                                      in a claim section they are neither bound nor unreadable
//	§7.1 #5 | 3,194.19 ms | engine_q2_prefill_1024tok:prefill_ms
//	§7.1 #5 | 3.66–6.44 GB/s | range(@q2:fill_gb_s) | id=F13
//	§7.1 #5 | 82.17 + 9.38 % | RUN:hit_arena_pct ; RUN:hit_ra_pct | id=F08
//	§7.1 #5 | 9.51 → 13.52 tok/s | A:decode_tok_s ; B:decode_tok_s | caveat=decode-pair-n1
//
// A row is place | quote | source [| options]. The place is a plan place
// (§7.1 #5); the quote is a token exactly as the plan prints it; the source
// is one expression per part of the quote separated by ";", or one
// expression for the whole quote (a range over a set for a quoted range).
// Options are key=value words: caveat=ID (the plan must state that caveat
// beside the quote; may be given more than once), id=Fnn (the audit
// finding the row reproduces), n=K (the quote occurs K times at the
// place; 1 by default), digits=K (a derivation's value may be quoted with
// up to K decimals; see below) and pad=zeros (the plan pads the printed
// value with trailing zeros, 1.40 for a printed 1.4: declared, not silent). A row binds every occurrence of its quote at
// its place, and the count keeps an edit that turns one number into a copy
// of its neighbour from passing silently.
//
// Expressions (see Expr) are parsed here and evaluated by
// engine/claims/eval, which says how a quote's precision is bounded by its
// source; engine/gate checks a plan against a table.
//
// Expressions: RUN:METRIC is a run's metric; @SET:METRIC the
// metric over every run of a set (a metric may name its occurrence,
// METRIC#N or METRIC[FIELD=VALUE], see Ref); @SET the set itself; $NAME a constant; a
// bare number; NAME(args…) a registered derivation (see Funcs).
package claims

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/names"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
	"unicode/utf8"
)

// File is the claims table's path inside a checkout.
const File = "PLAN.claims"

// Table is a parsed claims table.
type Table struct {
	File     string
	Sections []Section
	// Skips are the sections declared not claims (skip PLACE): their
	// measurement-like numbers are counted, not listed as ungated.
	Skips  []Section
	Sets   map[string]*Set
	Consts map[string]*Const
	// Idents are the words the plan uses as identifiers, not quantities
	// (ident 2023 5000): in a claim section they are neither bound nor
	// unreadable.
	Idents map[string]*Ident
	Rows   []*Row
	Errors []*Error // syntax errors; parsing goes on after one
	Notes  []string // what parsing set aside ("file:1: a UTF-8 byte order mark … is ignored")
}

// Section is a declared claim section.
type Section struct {
	Place string
	Line  int
}

// Set is a named set of runs: the runs whose names match any of its globs
// (path.Match syntax), in archive order.
type Set struct {
	Name  string
	Globs []string
	Line  int
}

// Const is a declared constant.
type Const struct {
	Name string
	Num  num.Number
	Unit string // canonical unit, "" for none
	Doc  string // the comment after the declaration, if any
	Line int
}

// Ident is a word declared an identifier (ident WORD ...).
type Ident struct {
	Text string
	Line int
}

// Row binds one quote at a place to its source.
type Row struct {
	Line    int
	Place   string
	Quote   string
	Sources []*Expr  // one per part, or one for the whole quote
	Caveats []string // caveats the plan must state beside the quote (caveat=ID options, in order)
	ID      string   // audit finding id (F08…), "" for none
	N       int      // how many times the quote occurs at the place (n=K; 1 by default)
	Digits  int      // decimals a derivation may be quoted with (digits=K); -1 when not given
	// PadZeros (pad=zeros) accepts a quote that pads its source's printed
	// value with trailing zeros (1.40 for a printed 1.4); any other extra
	// digit still fails.
	PadZeros bool
	Text     string // the row as written
}

// Error is a syntax error in the table.
type Error struct {
	File string
	Line int
	Msg  string
}

// Error returns "file:line: message".
func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Pos returns the error's place: the table's file and line.
func (e *Error) Pos() finding.Pos { return finding.Pos{File: e.File, Line: e.Line} }

// MaxErrors is how many syntax errors Err lists before it counts the rest.
const MaxErrors = 20

// Err returns the table's errors, nil when there are none: one per line,
// in table order, the first MaxErrors listed and the rest counted. The
// errors stay reachable with errors.As (the first) and errors.Is.
func (t *Table) Err() error {
	if len(t.Errors) == 0 {
		return nil
	}
	if len(t.Errors) == 1 {
		return t.Errors[0]
	}
	n := min(len(t.Errors), MaxErrors)
	errs := make([]error, 0, n+1)
	for _, e := range t.Errors[:n] {
		errs = append(errs, e)
	}
	if rest := len(t.Errors) - n; rest > 0 {
		more := "more errors"
		if rest == 1 {
			more = "more error"
		}
		errs = append(errs, fmt.Errorf("%s: and %d %s", t.File, rest, more))
	}
	return errors.Join(errs...)
}

var (
	nameRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	optionRE = regexp.MustCompile(`^(caveat|id|n|digits|pad)=([A-Za-z0-9][A-Za-z0-9._-]*)$`)
	placeRE  = regexp.MustCompile(`^(§[0-9]+(\.[0-9A-Za-z]+)*)?( ?#[0-9]+)?$`)
)

// validPlace reports whether p is a place: a numbered place (§7.1, §7.1 #5,
// #29) or a heading path (a heading's text, "Inference plan > Design
// targets", "§7.1 > Warm runs"; see plan.Section.PathIn).
func validPlace(p string) bool {
	if p == "" {
		return false
	}
	if plan.IsNumbered(p) && !strings.Contains(p, strings.TrimSpace(plan.PathSep)) {
		return placeRE.MatchString(p)
	}
	for _, e := range strings.Split(p, strings.TrimSpace(plan.PathSep)) {
		e = strings.TrimSpace(e)
		if e == "" || e[0] >= '0' && e[0] <= '9' {
			// "7.1" is neither a place (§7.1) nor a heading's whole text
			return false
		}
	}
	return true
}

// bom is the UTF-8 byte order mark some editors write at the start of a
// file; it is not part of the first line.
const bom = "\uFEFF"

// Parse parses a claims table; funcs are the derivations its sources may
// call (engine/claims/eval.Signatures gives the evaluator's). It never
// fails: each syntax error is recorded with its line and parsing goes on.
// A leading UTF-8 byte order mark is dropped, with a note.
func Parse(file string, b []byte, funcs Funcs) *Table {
	t := &Table{File: file, Sets: map[string]*Set{}, Consts: map[string]*Const{}, Idents: map[string]*Ident{}}
	errf := func(line int, format string, args ...any) {
		t.Errors = append(t.Errors, &Error{file, line, fmt.Sprintf(format, args...)})
	}
	if rest, ok := bytes.CutPrefix(b, []byte(bom)); ok {
		b = rest
		t.Notes = append(t.Notes, fmt.Sprintf("%s:1: a UTF-8 byte order mark at the start of the file is ignored", file))
	}
	for i, raw := range strings.Split(string(b), "\n") {
		ln := i + 1
		line := strings.TrimSuffix(raw, "\r")
		if !validUTF8(line) {
			errf(ln, "invalid UTF-8")
			continue
		}
		text := strings.TrimSpace(line)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		comment := ""
		if j := strings.Index(text, " # "); j >= 0 {
			text, comment = strings.TrimSpace(text[:j]), strings.TrimSpace(text[j+3:])
		}
		kw, rest := text, ""
		if i := strings.IndexAny(text, " \t"); i >= 0 {
			kw, rest = text[:i], strings.TrimSpace(text[i:])
		}
		if u, ok := keywordUsage(kw); ok && rest == "" {
			// a keyword with nothing after it
			errf(ln, "%s: want %q", kw, u)
			continue
		}
		switch kw {
		case "section", "skip":
			p := strings.Join(strings.Fields(rest), " ")
			if !validPlace(p) {
				errf(ln, "%s %q: want a place like §7.1, §7.1 #5 or a heading's text", kw, p)
				continue
			}
			if kw == "section" {
				t.Sections = append(t.Sections, Section{p, ln})
			} else {
				t.Skips = append(t.Skips, Section{p, ln})
			}
		case "set":
			if st, err := parseSet(rest, t.Sets); err != nil {
				errf(ln, "%v", err)
			} else {
				st.Line = ln
				t.Sets[st.Name] = st
			}
		case "ident":
			for _, w := range strings.Fields(rest) {
				if _, dup := t.Idents[w]; dup {
					errf(ln, "ident %s declared twice", w)
					continue
				}
				t.Idents[w] = &Ident{Text: w, Line: ln}
			}
		case "const":
			if c, err := parseConst(rest, t.Consts); err != nil {
				errf(ln, "%v", err)
			} else {
				c.Doc, c.Line = comment, ln
				t.Consts[c.Name] = c
			}
		default:
			r, err := parseRow(text, funcs)
			if err != nil {
				errf(ln, "%v", err)
				continue
			}
			r.Line = ln
			t.Rows = append(t.Rows, r)
		}
	}
	// a skip may carve a part out of a claim section (§7.1 #4 of §7), never
	// a whole one
	for _, sk := range t.Skips {
		for _, sc := range t.Sections {
			if plan.IsNumbered(sc.Place) && plan.IsNumbered(sk.Place) && plan.InPlace(sc.Place, sk.Place) {
				errf(sk.Line, "skip %s covers claim section %s (line %d): a section is either claims or not", sk.Place, sc.Place, sc.Line)
			}
		}
	}
	// references to undeclared sets and constants are errors of the table
	for _, r := range t.Rows {
		for _, e := range r.Sources {
			e.walk(func(x *Expr) {
				switch x.Op {
				case OpSet, OpSetMetric:
					if t.Sets[x.Name] == nil {
						errf(r.Line, "unknown set @%s%s", x.Name, names.DidYouMean("@"+x.Name, sigilNames("@", maps.Keys(t.Sets))))
					}
				case OpConst:
					if t.Consts[x.Name] == nil {
						errf(r.Line, "unknown constant $%s%s", x.Name, names.DidYouMean("$"+x.Name, sigilNames("$", maps.Keys(t.Consts))))
					}
				}
			})
		}
	}
	return t
}

// sigilNames returns the names with their sigil ("@q2_0", "$pages"), as a
// row writes them, for a "did you mean".
func sigilNames(sigil string, keys iter.Seq[string]) []string {
	var out []string
	for k := range keys {
		out = append(out, sigil+k)
	}
	return out
}

// keywordUsage gives, for a declaration keyword, what its line needs;
// false for a word that is no keyword.
func keywordUsage(kw string) (string, bool) {
	switch kw {
	case "section":
		return "section PLACE (a place like §7.1 or §7.1 #5)", true
	case "skip":
		return "skip PLACE (a section that is not claims, e.g. design targets)", true
	case "set":
		return "set NAME = glob ...", true
	case "const":
		return "const NAME = VALUE [UNIT]", true
	case "ident":
		return "ident WORD ... (words the plan uses as identifiers: a year, a depth)", true
	}
	return "", false
}

// decl splits a declaration "NAME = REST" of the given kind and checks that
// NAME is a name not declared before.
func decl[T any](kind, text, usage string, declared map[string]T) (name, rest string, err error) {
	name, rest, ok := strings.Cut(text, "=")
	name = strings.TrimSpace(name)
	if !ok || !nameRE.MatchString(name) {
		return "", "", fmt.Errorf("%s: want %q", kind, usage)
	}
	if _, dup := declared[name]; dup {
		return "", "", fmt.Errorf("%s %s declared twice", kind, name)
	}
	return name, rest, nil
}

// parseSet parses "NAME = GLOB ..." (the text after "set ").
func parseSet(text string, sets map[string]*Set) (*Set, error) {
	name, rest, err := decl("set", text, "set NAME = glob ...", sets)
	if err != nil {
		return nil, err
	}
	globs := strings.Fields(rest)
	if len(globs) == 0 {
		return nil, fmt.Errorf("set %s: no runs", name)
	}
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("set %s: bad glob %q: %v", name, g, err)
		}
	}
	return &Set{Name: name, Globs: globs}, nil
}

// parseConst parses "NAME = VALUE [UNIT]" (the text after "const ").
func parseConst(text string, consts map[string]*Const) (*Const, error) {
	name, rest, err := decl("const", text, "const NAME = VALUE [UNIT]", consts)
	if err != nil {
		return nil, err
	}
	f := strings.Fields(rest)
	if len(f) == 0 || len(f) > 2 {
		return nil, fmt.Errorf("const %s: want a value and an optional unit", name)
	}
	n, err := num.Parse(f[0])
	if err != nil {
		return nil, fmt.Errorf("const %s: %v", name, err)
	}
	unit := ""
	if len(f) == 2 {
		if unit = plan.CanonUnit(f[1]); unit == "" {
			return nil, fmt.Errorf("const %s: unknown unit %q", name, f[1])
		}
	}
	return &Const{Name: name, Num: n, Unit: unit}, nil
}

// clipLen is how much of a line or expression an error message quotes.
const clipLen = 80

// clip shortens s to clipLen bytes (on a rune boundary) for an error
// message, so that a message stays small whatever the input.
func clip(s string) string {
	if len(s) <= clipLen {
		return s
	}
	i := clipLen
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func parseRow(text string, funcs Funcs) (*Row, error) {
	f := strings.Split(text, "|")
	if len(f) == 1 {
		return nil, fmt.Errorf("want a row \"place | quote | source [| options]\" or a declaration (section PLACE, set NAME = glob ..., const NAME = VALUE [UNIT]), got %q", clip(text))
	}
	if len(f) < 3 || len(f) > 4 {
		return nil, fmt.Errorf("row: want \"place | quote | source [| options]\", got %d fields", len(f))
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	r := &Row{Place: strings.Join(strings.Fields(f[0]), " "), Quote: f[1], Text: text, N: 1, Digits: -1}
	if !validPlace(r.Place) {
		return nil, fmt.Errorf("row: place %q: want a place like §7.1 #5 or a heading's text", r.Place)
	}
	if r.Quote == "" {
		return nil, fmt.Errorf("row: empty quote")
	}
	for _, src := range strings.Split(f[2], ";") {
		e, err := ParseExpr(strings.TrimSpace(src), funcs)
		if err != nil {
			return nil, fmt.Errorf("row: source %q: %v", clip(strings.TrimSpace(src)), err)
		}
		r.Sources = append(r.Sources, e)
	}
	if len(f) == 4 {
		for _, o := range strings.Fields(f[3]) {
			m := optionRE.FindStringSubmatch(o)
			if m == nil {
				return nil, fmt.Errorf("row: option %q: want caveat=ID, id=Fnn, n=K, digits=K or pad=zeros", o)
			}
			switch m[1] {
			case "caveat":
				r.Caveats = append(r.Caveats, m[2])
			case "id":
				r.ID = m[2]
			case "n":
				n, err := strconv.Atoi(m[2])
				if err != nil || n < 1 {
					return nil, fmt.Errorf("row: option %q: want n=K with K ≥ 1", o)
				}
				r.N = n
			case "digits":
				d, err := strconv.Atoi(m[2])
				if err != nil || d < 0 || d > 17 {
					return nil, fmt.Errorf("row: option %q: want digits=K with 0 ≤ K ≤ 17", o)
				}
				r.Digits = d
			case "pad":
				if m[2] != "zeros" {
					return nil, fmt.Errorf("row: option %q: want pad=zeros", o)
				}
				r.PadZeros = true
			}
		}
	}
	return r, nil
}

// Runs returns the names of the runs the row's sources name directly
// (RUN:METRIC), in order of first mention. Set references are not expanded.
func (r *Row) Runs() []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range r.Sources {
		e.walk(func(x *Expr) {
			if x.Op == OpMetric && !seen[x.Run] {
				seen[x.Run] = true
				out = append(out, x.Run)
			}
		})
	}
	return out
}

// Metrics returns the metric names the row's sources read (RUN:METRIC,
// @SET:METRIC), in order of first mention.
func (r *Row) Metrics() []string {
	var out []string
	for _, e := range r.Sources {
		e.walk(func(x *Expr) {
			if (x.Op == OpMetric || x.Op == OpSetMetric) && !slices.Contains(out, x.Metric) {
				out = append(out, x.Metric)
			}
		})
	}
	return out
}

// Sets expands a named set of runs to the runs of an archive
// (engine/claims/eval's Env does).
type Sets interface {
	Set(name string) ([]string, error)
}

// MetricRuns returns the runs whose metrics the row's sources read, directly
// (RUN:METRIC) or over a set (@SET:METRIC), in order of first mention. A set
// that sets cannot expand adds nothing; @SET alone (as in count(@SET))
// reads no metric.
func (r *Row) MetricRuns(sets Sets) []string {
	var out []string
	seen := map[string]bool{}
	add := func(run string) {
		if !seen[run] {
			seen[run] = true
			out = append(out, run)
		}
	}
	for _, e := range r.Sources {
		e.walk(func(x *Expr) {
			switch x.Op {
			case OpMetric:
				add(x.Run)
			case OpSetMetric:
				names, _ := sets.Set(x.Name)
				for _, n := range names {
					add(n)
				}
			}
		})
	}
	return out
}

// Expand returns the runs of a set among names, in the order of names.
func (s *Set) Expand(names []string) []string {
	var out []string
	for _, n := range names {
		for _, g := range s.Globs {
			if ok, _ := path.Match(g, n); ok {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// Declared says whether a row's source is declared rather than measured:
// a literal number, a constant ($NAME), or a derivation with a literal
// factor (mul(x, 1.0000125)). A unit conversion (to(x, MB), gib_to_gb) is
// declared by the registry, not by the row, and is measured. It returns
// what makes the row declared, "" when every source is measured.
func (r *Row) Declared() string {
	var why []string
	for _, e := range r.Sources {
		e.walk(func(x *Expr) {
			w := ""
			switch x.Op {
			case OpNumber:
				w = "the literal " + x.Num.Text
			case OpConst:
				w = "the constant $" + x.Name
			}
			if w != "" && !slices.Contains(why, w) {
				why = append(why, w)
			}
		})
	}
	return strings.Join(why, ", ")
}
