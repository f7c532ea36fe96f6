// Package checkout reads a checkout's spec file: the one place where what
// is specific to one project lives, as data. strataspec's Go code holds only
// general logic; the spec file says where the runs are and how a run record
// maps to name, argv, env, exit status, duration, tail and start time; which
// program each run is (and so which parser reads its tail); metric lines of
// log formats strataspec does not know; which audit finding id a check
// reproduces; and each rule's own settings (tolerances, derivations, source
// functions, manifests), which the rule's package decodes.
//
// The file is JSON, named strataspec.json at the checkout's root:
//
//	{
//	  "plan": "PLAN.md",                  // default PLAN.md
//	  "claims": "PLAN.claims",            // default PLAN.claims
//	  "machine": "machine",               // folder standing for the audited machine's "/", or
//	                                      // folders by prefix: {"/tmp": "host_tmp", "/": "machine"}
//	  "results": [{                       // run records in JSON or JSON Lines
//	    "file": "results/validation.json",  // a glob; .jsonl files are JSON Lines
//	    "runs": "runs",                   // dotted path to the array of records ("" = top level), or
//	                                      // to an object of records keyed by run name
//	    "fields": {"name": "name", "argv": "cmd", "env": "env", "exit": "exit_code",
//	               "duration": "duration_s", "tail": "output_tail", "start": "start",
//	               "group": "group",      // dotted paths inside a record; these are the defaults
//	               "duration_unit": "ms", // the duration's time unit (default s)
//	               "metrics": {"vm.swapout_mib": {"name": "swapout_mib", "unit": "MiB"}}},
//	                                      // record fields that are metrics (none by default)
//	    "provenance": "provenance",       // the runner's provenance record, if it writes one (default), or
//	                                      // {"file": "runs/derived.json", "path": "provenance"} in another file
//	    "generated": "generated_at_utc"   // when the runner wrote the file, if it says (default; or a place)
//	  }],
//	  "logs": [{"glob": "runs/*.log"}],   // one run per log; optional sidecar runs/NAME.json
//	  "bench": ["runs/*.bench.json"],     // llama-bench -o json / jsonl / csv / md output
//	  "records": {"parity": "results/route_parity/*.log",  // files a rule reads by kind;
//	              "selftest": {"glob": "t/self_test.txt", "format": "selftest_text"},
//	              "mtimes": "machine/mtimes.json"},
//	                                      // argv/env/exit from a NAME.json run record beside each
//	                                      // (or an optional "# cmd:/# env:/# exit:" header)
//	                                      // a .json record file is an array of records (or one),
//	                                      // mapped by {"glob", "fields"} as a results entry's fields
//	                                      // ("tail": the program's output)
//	  "programs": [{"match": "strata_window_cli", "parser": "strata"}],  // argv[0] → format
//	  "formats": {"mylog": [{"pattern": "^decode: (?P<ms>[0-9.]+) ms$",
//	                         "metrics": {"ms": {"name": "decode_ms", "unit": "ms"}}}],
//	              "glog_strata": {"wrap": "strata", "prefix": "^[IWEF]\\d{4} [^\\]]*\\] "},
//	              "parity_text": {"wrap": "route_parity", "blocks": "^# cmd:"}},
//	  "ids": {"plan.range": "F13", "compare.unlike/threads": "F17"},
//	  "rules": {"parity": {"configs": [{"name": "K=512", "key": "k512", "tolerance": 1e-6}],
//	                       "mode_env": "STRATA_METAL_MATH", "default_mode": "default",
//	                       "modes": ["default", "fast"], "repeats": 3}},
//	  "sources": [{"glob": "scripts/**", "language": "python"}], // source files; language by extension when omitted
//	  "live": {"bin": ["build/bin"],      // where a live re-run finds a bare argv[0] (llama-bench); default the root
//	           "tolerance": 0.15}         // the drift a measured metric of a re-run may show (default 0.15)
//	}
//
// A format (read by engine/format) is a list of line patterns, or an object
// that wraps another format: "wrap" names it, "prefix" is a regular
// expression removed from the start of each line first, "metrics" renames
// the wrapped format's metrics ({"old": {"name": "new", "unit": "ms"}}), and
// "blocks" is a regular expression starting each repeated block of a record
// file (each block is one record), and "command" and "exit" are regular
// expressions whose first group gives a record's command line and exit
// status (a transcript's "$ cmd" and "exit 0" lines) where it has no
// "# cmd:"/"# exit:" header. A record kind's "format" names the format its
// files are read in.
//
// Every key is optional; an unknown key is an error naming its line, as is
// a key of "rules" or "ids" that names no rule (a key of "rules" starting
// with "_" is set aside: kept, not read, not checked). With no spec file the defaults
// describe a folder of logs: runs/*.log with sidecars, and llama-bench
// output in runs/.
package checkout

import (
	"reflect"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// File is the spec file's name at the checkout's root.
const File = "strataspec.json"

// Spec is a checkout's spec, with defaults filled in.
type Spec struct {
	// Path is the spec file as read ("" when the defaults were used).
	Path     string                     `json:"-"`
	Plan     string                     `json:"plan,omitempty"`
	Claims   string                     `json:"claims,omitempty"`
	Machine  Machine                    `json:"machine,omitempty"`
	Results  []Results                  `json:"results,omitempty"`
	Logs     []Logs                     `json:"logs,omitempty"`
	Bench    []string                   `json:"bench,omitempty"`
	Records  map[string]Record          `json:"records,omitempty"`
	Programs []Program                  `json:"programs,omitempty"`
	Formats  map[string]Format          `json:"formats,omitempty"`
	IDs      map[string]string          `json:"ids,omitempty"`
	Rules    map[string]json.RawMessage `json:"rules,omitempty"`
	// Sources are the checkout's source files (globs), read by the code
	// rules; with none, the files the runs' provenance records.
	Sources []SourceGlob `json:"sources,omitempty"`
	// Live says how the checkout's runs are re-run live (spec/ TestLiveRuns).
	Live Live `json:"live,omitzero"`

	data      []byte
	lines     jsontree.LineIndex // line starts of the spec file
	doc       *jsontree.Doc      // the spec file's tree, for the places of its keys and values
	mentioned map[string]bool    // first parts of the rule settings' strings (Mentions)
	declared  map[string]bool    // keys the spec file gave (Declared)
	compiled  map[string][]Pattern
	prefixes  map[string]*regexp.Regexp // declared formats' line prefixes
	blocks    map[string]*regexp.Regexp // declared formats' block starts
	commands  map[string]*regexp.Regexp // declared formats' command lines
	exits     map[string]*regexp.Regexp // declared formats' exit lines
}

// Live holds the settings of live re-runs.
type Live struct {
	// Bin are the checkout's folders where a live re-run finds a program
	// recorded by a bare name ("llama-bench", "./llama-cli"), in order;
	// with none, the checkout's root (engine/live.ResolveIn).
	Bin []string `json:"bin,omitempty"`
	// Tolerance is the relative drift a measured metric of a re-run may
	// show (0.15: 15 %); 0 means DefaultTolerance. Deterministic metrics
	// must reproduce exactly whatever it says.
	Tolerance float64 `json:"tolerance,omitempty"`
}

// DefaultTolerance is the drift of a measured metric a live re-run
// tolerates when the spec file declares none.
const DefaultTolerance = 0.15

// Tol returns the declared tolerance, or DefaultTolerance.
func (l Live) Tol() float64 {
	if l.Tolerance == 0 {
		return DefaultTolerance
	}
	return l.Tolerance
}

// Results says where run records are and how one maps to a run.
type Results struct {
	File   string `json:"file"`            // a glob, relative to the root
	Runs   string `json:"runs,omitempty"`  // dotted path to the array of records
	Fields Fields `json:"fields,omitzero"` // where each part of a run is in a record
	// Provenance is the place of the runner's provenance record (the
	// files it ran and read, with their sha256: {"files": […], "prompts":
	// […]}): a dotted path in this file, read when the file has it (default
	// "provenance"), or {"file": …, "path": …} in another JSON file of the
	// checkout, which must have it.
	Provenance Place `json:"provenance,omitzero"`
	// Generated is the place of the time the runner wrote its results
	// (RFC 3339), as Provenance; default "generated_at_utc".
	Generated Place `json:"generated,omitzero"`

	declared Fields // Fields as the spec file gave them, before defaults
}

// Place is a value's place in a JSON file of the checkout: File ("" for
// the file at hand) and a dotted Path in it. In the spec file it is the
// path alone, or {"file": …, "path": …}.
type Place struct {
	File string `json:"file,omitempty"`
	Path string `json:"path"`
}

// UnmarshalJSON reads a dotted path or a Place object, strictly.
func (p *Place) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*p = Place{}
		return json.Unmarshal(b, &p.Path)
	}
	type plain Place
	var v plain
	if err := strictDecode(b, &v); err != nil {
		return err
	}
	if v.Path == "" {
		return errors.New(`a place needs "path"`)
	}
	*p = Place(v)
	return nil
}

// In reports whether the place is in file (the file at hand when it names
// none).
func (p Place) In(file string) bool { return p.File == "" || p.File == file }

// Declared returns the field paths the spec file itself gave (the others
// are defaults): a declared path no record has is worth a note.
func (r Results) Declared() Fields { return r.declared }

// Fields are dotted paths inside one run record. Empty entries take the
// defaults (DefaultFields).
type Fields struct {
	Name     string `json:"name,omitempty"`
	Argv     string `json:"argv,omitempty"` // an array of strings, or one command line
	Env      string `json:"env,omitempty"`  // an object, or null for a run carried over
	Exit     string `json:"exit,omitempty"`
	Duration string `json:"duration,omitempty"` // seconds, unless DurationUnit says
	// DurationUnit is the time unit the duration field is in ("ms", "µs",
	// "min"; a time unit of engine/unit's table), "" for seconds.
	DurationUnit string `json:"duration_unit,omitempty"`
	Tail         string `json:"tail,omitempty"`
	Start        string `json:"start,omitempty"` // RFC 3339
	Group        string `json:"group,omitempty"`
	// Metrics are record fields that are metrics: dotted path in the
	// record → the vocabulary name and unit it is read as
	// ({"vm.swapout_mib": {"name": "swapout_mib", "unit": "MiB"}}). A
	// field that is a number becomes a metric of the run, as printed.
	Metrics map[string]MetricSpec `json:"metrics,omitempty"`
}

// DefaultFields are the key names strataspec looks for when a spec names
// none: the strata runner's, which are also the plainest English ones.
func DefaultFields() Fields {
	return Fields{Name: "name", Argv: "cmd", Env: "env", Exit: "exit_code", Duration: "duration_s",
		Tail: "output_tail", Start: "start", Group: "group"}
}

// Logs says where plain log files are: each file matching Glob is one run
// named by its base name without extension; an optional sidecar (the same
// path with Sidecar, default ".json", in place of the extension) holds the
// run's argv, env, exit, duration and start with the Fields key names.
type Logs struct {
	Glob    string `json:"glob"`
	Sidecar string `json:"sidecar,omitempty"`
	Fields  Fields `json:"fields,omitzero"`
}

// SourceGlob names source files: a glob (with "**") and their language
// ("python" or "c"; by extension when empty). Files of no known language
// that the glob matches are left out.
type SourceGlob struct {
	Glob     string `json:"glob"`
	Language string `json:"language,omitempty"`
}

// Program maps argv[0] to a parser. Match is a glob on argv[0]'s base name
// (path.Match syntax; ".exe" is stripped first).
type Program struct {
	Match  string `json:"match"`
	Parser string `json:"parser"`
}

// Format is a log or record format a spec file declares (engine/format
// builds the readers): either a JSON array of line patterns, or an object.
type Format struct {
	// Patterns are metric lines: each line a pattern matches yields its
	// groups' metrics.
	Patterns []LinePattern `json:"patterns,omitempty"`
	// Wrap names the format that reads the lines (after Prefix is removed)
	// instead of Patterns: a built-in (engine/format's registry) or another declared
	// format.
	Wrap string `json:"wrap,omitempty"`
	// Prefix is a regular expression removed from the start of every line
	// it matches before the lines are read (glog's line header).
	Prefix string `json:"prefix,omitempty"`
	// Metrics renames the wrapped format's metrics: its name → the name
	// (and unit) the checkout's rules and claims read.
	Metrics map[string]MetricSpec `json:"metrics,omitempty"`
	// Blocks is a regular expression: a line it matches starts a new
	// block, and each block of a record file is read as one record.
	Blocks string `json:"blocks,omitempty"`
	// Command and Exit are regular expressions for a record's transcript
	// lines that give its command line and exit status (a terminal's
	// "$ cmd" and the shell's "exit 0"): the first group of the first line
	// each matches. They stand in for a "# cmd:"/"# exit:" header.
	Command string `json:"command,omitempty"`
	Exit    string `json:"exit,omitempty"`
	// Doc says what the format reads.
	Doc string `json:"doc,omitempty"`
}

// UnmarshalJSON reads an array of line patterns or a Format object,
// strictly.
func (f *Format) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		*f = Format{}
		return strictDecode(b, &f.Patterns)
	}
	type plain Format
	var p plain
	if err := strictDecode(b, &p); err != nil {
		return err
	}
	*f = Format(p)
	return nil
}

// Machine maps the audited machine's absolute paths to folders of the
// checkout, by prefix: {"/tmp": "host_tmp", "/": "machine"} puts /tmp/x at
// host_tmp/x and /etc/x at machine/etc/x. In the spec file it is one folder
// (standing for "/") or such an object.
type Machine map[string]string

// UnmarshalJSON reads a folder or an object of prefixes → folders.
func (m *Machine) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var dir string
		if err := json.Unmarshal(b, &dir); err != nil {
			return err
		}
		*m = Machine{"/": dir}
		if dir == "" {
			*m = nil
		}
		return nil
	}
	var mm map[string]string
	if err := strictDecode(b, &mm); err != nil {
		return err
	}
	for p := range mm {
		if !path.IsAbs(p) || path.Clean(p) != p {
			return fmt.Errorf("machine: prefix %q must be a clean absolute path", p)
		}
	}
	*m = mm
	return nil
}

// Map returns the folder an absolute path of the audited machine is under,
// by the longest prefix, and the path below that prefix ("/tmp/x" with
// {"/tmp": "host_tmp"} → "host_tmp", "/x"); ok is false when no prefix
// covers it.
func (m Machine) Map(abs string) (dir, rest string, ok bool) {
	c := path.Clean(abs)
	best := ""
	for p := range m {
		if (c == p || p == "/" || strings.HasPrefix(c, p+"/")) && (!ok || len(p) > len(best)) {
			best, ok = p, true
		}
	}
	if !ok {
		return "", "", false
	}
	rest = strings.TrimPrefix(c, best)
	if best == "/" {
		rest = c
	}
	if rest == "" {
		rest = "/"
	}
	return m[best], rest, true
}

// Record names the files of one kind of record (route_parity logs, the
// self-test output, recorded mtimes): a glob, and the format they are read
// in ("" for the kind's built-in one). In the spec file it is the glob
// alone, or {"glob": …, "format": …}.
type Record struct {
	Glob   string `json:"glob"`
	Format string `json:"format,omitempty"`
	// Fields map a JSON record file (.json: an array of records, or one
	// record object) to each record's argv, env, exit status and output
	// (Tail); empty entries take the defaults (DefaultFields). A record
	// with no name field is named after its file and place (NAME#k).
	Fields Fields `json:"fields,omitzero"`
}

// UnmarshalJSON reads a glob string or a Record object, strictly.
func (r *Record) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*r = Record{}
		return json.Unmarshal(b, &r.Glob)
	}
	type plain Record
	var p plain
	if err := strictDecode(b, &p); err != nil {
		return err
	}
	*r = Record(p)
	return nil
}

func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// LinePattern teaches strataspec one metric line of a log format: a regular
// expression with named groups, and for each group the metric it yields.
type LinePattern struct {
	Pattern string                `json:"pattern"`
	Metrics map[string]MetricSpec `json:"metrics"`
}

// MetricSpec names the metric a pattern group yields, and its unit.
type MetricSpec struct {
	Name string `json:"name"`
	Unit string `json:"unit,omitempty"`
}

// Languages are the source languages a "sources" entry may name
// (source.Langs; a test in engine/source holds the two equal).
func Languages() []string { return []string{"python", "c"} }

// Default returns the spec used when a checkout has no spec file: a folder
// of logs (runs/*.log with sidecars) and llama-bench output in runs/.
func Default() *Spec {
	s := &Spec{}
	s.fill()
	return s
}

func defaultLogs() []Logs { return []Logs{{Glob: "runs/*.log"}} }

func defaultBench() []string {
	return []string{"runs/*.bench.json", "runs/*.bench.jsonl", "runs/*.bench.csv", "runs/*.bench.md"}
}

// Declared reports whether the spec file itself gave the key ("plan",
// "claims", "logs", "bench"), rather than the defaults: a file a checkout
// declares must be there, and a glob it declares that matches nothing is
// worth a note; the defaults may find nothing.
func (s *Spec) Declared(key string) bool { return s.declared[key] }

func (s *Spec) fill() {
	s.declared = map[string]bool{"plan": s.Plan != "", "claims": s.Claims != "", "logs": s.Logs != nil, "bench": s.Bench != nil}
	// A key absent from the file takes its default; an empty list ("logs":
	// []) says there are none.
	if s.Logs == nil {
		s.Logs = defaultLogs()
	}
	if s.Bench == nil {
		s.Bench = defaultBench()
	}
	s.mentioned = map[string]bool{}
	for _, raw := range s.Rules {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			collectPaths(v, s.mentioned)
		}
	}
	if s.Plan == "" {
		s.Plan = "PLAN.md"
	}
	if s.Claims == "" {
		s.Claims = "PLAN.claims"
	}
	for i := range s.Results {
		s.Results[i].declared = s.Results[i].Fields
		s.Results[i].Fields = s.Results[i].Fields.WithDefaults()
		if s.Results[i].Provenance.Path == "" {
			s.Results[i].Provenance.Path = "provenance"
		}
		if s.Results[i].Generated.Path == "" {
			s.Results[i].Generated.Path = "generated_at_utc"
		}
	}
	for i := range s.Logs {
		s.Logs[i].Fields = s.Logs[i].Fields.WithDefaults()
		if s.Logs[i].Sidecar == "" {
			s.Logs[i].Sidecar = ".json"
		}
	}
}

// WithDefaults returns f with its empty entries set to DefaultFields'.
func (f Fields) WithDefaults() Fields {
	d := DefaultFields()
	for _, p := range []struct{ v, def *string }{{&f.Name, &d.Name}, {&f.Argv, &d.Argv}, {&f.Env, &d.Env},
		{&f.Exit, &d.Exit}, {&f.Duration, &d.Duration}, {&f.Tail, &d.Tail}, {&f.Start, &d.Start}, {&f.Group, &d.Group}} {
		if *p.v == "" {
			*p.v = *p.def
		}
	}
	return f
}

// Error is a problem in the spec file at a line.
type Error struct {
	File string
	Line int
	Msg  string
	// Unknown is a name the file gives that the format does not know (a
	// key), and Known the names it could have meant: the caller that
	// prints the error may set Suggest (engine/names' DidYouMean), so that
	// checkout, which the analysis driver imports, imports no more. Hint
	// follows the suggestion.
	Unknown string
	Known   []string
	Suggest string
	Hint    string
}

// Pos returns the error's place: the spec file and line.
func (e *Error) Pos() finding.Pos { return finding.Pos{File: e.File, Line: e.Line} }

func (e *Error) Error() string {
	msg := e.Msg + e.Suggest + e.Hint
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	}
	return e.File + ": " + msg
}

// Parse reads a spec file's bytes. file names it in errors.
func Parse(file string, data []byte) (*Spec, error) {
	s := &Spec{Path: file, data: data, lines: jsontree.NewLineIndex(data)}
	// jsontree's errors come second (below), so that encoding/json names
	// a syntax or type error first; its tree gives the places.
	doc, derr := jsontree.ParseDoc(file, data)
	s.doc = doc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		return nil, s.jsonError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Error{File: file, Line: s.line(int(dec.InputOffset())), Msg: "unexpected data after the spec object"}
	}
	// jsontree then: it refuses duplicate keys (encoding/json keeps the
	// last), naming the line.
	if err := derr; err != nil {
		if je, ok := errors.AsType[*jsontree.Error](err); ok {
			msg := je.Msg
			if je.Path != "" {
				msg = je.Path + ": " + msg
			}
			return nil, &Error{File: file, Line: je.Line, Msg: msg}
		}
		return nil, err
	}
	if err := s.validate(data); err != nil {
		return nil, err
	}
	s.fill()
	return s, nil
}

func (s *Spec) line(off int) int {
	n, _ := s.lines.Pos(max(off, 0))
	return n
}

var unknownField = regexp.MustCompile(`unknown field "([^"]*)"`)

func (s *Spec) jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &Error{File: s.Path, Line: s.line(int(se.Offset) - 1), Msg: "JSON syntax error: " + se.Error()}
	case errors.As(err, &te):
		where := te.Field
		if where == "" {
			where = "value"
		}
		return &Error{File: s.Path, Line: s.line(int(te.Offset) - 1), Msg: fmt.Sprintf("%s: want %s, found %s", where, te.Type, te.Value)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{File: s.Path, Line: s.line(len(data)), Msg: "unexpected end of JSON (truncated file?)"}
	}
	if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
		key := m[1]
		if i := strings.LastIndex(key, "."); i >= 0 {
			key = key[i+1:]
		}
		return &Error{File: s.Path, Line: s.lineOfKey(key), Msg: fmt.Sprintf("unknown key %q", m[1]),
			Unknown: key, Known: specKeys(), Hint: " (see the engine/checkout package doc for the spec format)"}
	}
	return &Error{File: s.Path, Msg: err.Error()}
}

// specKeys returns every key the spec format knows, at any depth: the JSON
// names of Spec's fields and of the structs below them.
func specKeys() []string { return keysOf(reflect.TypeFor[Spec]()) }

// keysOf returns the JSON names of a struct type's fields and of the
// structs below them, at any depth.
func keysOf(t reflect.Type) []string {
	seen := map[reflect.Type]bool{}
	var keys []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != "" && name != "-" {
				keys = append(keys, name)
			}
			walk(f.Type)
		}
	}
	walk(t)
	return keys
}

// lineOf returns the line of the first key or string value in the file
// equal to str, for errors about a value already decoded; 0 when there is
// none (or the file has no tree).
func (s *Spec) lineOf(str string) int {
	return s.lineWhere(func(key string, v *jsontree.Node) bool { return key == str || v.Kind == 's' && v.Str == str })
}

// lineOfKey returns the line of the first member named key.
func (s *Spec) lineOfKey(key string) int {
	return s.lineWhere(func(k string, _ *jsontree.Node) bool { return k == key })
}

func (s *Spec) lineWhere(match func(string, *jsontree.Node) bool) int {
	if s.doc == nil {
		return 0
	}
	if n := s.doc.Root.Find(match); n != nil {
		return s.doc.Line(n)
	}
	return 0
}

// Line returns the line of the value at a JSON path of the spec file
// ("rules.cache.helpers[0].name", as jsontree names paths), 0 when the
// file has none: a rule citing its own settings cites their line.
func (s *Spec) Line(path string) int {
	if s.doc == nil {
		return 0
	}
	if n := s.doc.Root.At(path); n != nil {
		return s.doc.Line(n)
	}
	return 0
}

func (s *Spec) validate(data []byte) error {
	errf := func(str, format string, args ...any) error {
		return &Error{File: s.Path, Line: s.lineOf(str), Msg: fmt.Sprintf(format, args...)}
	}
	for _, p := range append(append([]string{s.Plan, s.Claims}, slices.Collect(maps.Values(s.Machine))...), s.Bench...) {
		if p != "" && !relative(p) {
			return errf(p, "path %q must be relative to the checkout and stay inside it", p)
		}
	}
	for _, r := range s.Results {
		if r.File == "" {
			return errf("results", `a "results" entry needs "file"`)
		}
		if !relative(r.File) {
			return errf(r.File, "path %q must be relative to the checkout and stay inside it", r.File)
		}
	}
	for _, l := range s.Logs {
		if l.Glob == "" || !relative(l.Glob) {
			return errf("logs", "a logs glob must be a relative path inside the checkout, found %q", l.Glob)
		}
	}
	for k, rec := range s.Records {
		if !relative(rec.Glob) {
			return errf(rec.Glob, "records.%s: path %q must be relative to the checkout and stay inside it", k, rec.Glob)
		}
	}
	for _, p := range s.Programs {
		if p.Match == "" || p.Parser == "" {
			return errf("programs", `a "programs" entry needs "match" and "parser"`)
		}
		if _, err := path.Match(p.Match, ""); err != nil {
			return errf(p.Match, "programs: bad pattern %q: %v", p.Match, err)
		}
	}
	s.compiled = map[string][]Pattern{}
	if err := s.compileFormats(); err != nil {
		return err
	}
	for _, b := range s.Live.Bin {
		if !relative(b) {
			return errf(b, "live.bin: folder %q must be relative to the checkout and stay inside it", b)
		}
	}
	if t := s.Live.Tolerance; t < 0 || t >= 10 {
		return &Error{File: s.Path, Line: s.Line("live.tolerance"), Msg: fmt.Sprintf("live.tolerance: %v is not a relative drift (0.15 for 15 %%; more than 0, less than 10)", t)}
	}
	for _, g := range s.Sources {
		if !relative(g.Glob) {
			return errf(g.Glob, "sources: glob %q must be a relative path inside the checkout", g.Glob)
		}
		if g.Language != "" && !slices.Contains(Languages(), g.Language) {
			return errf(g.Language, "sources: unknown language %q (known: python, c)", g.Language)
		}
	}
	for k, id := range s.IDs {
		if k == "" || id == "" {
			return errf(id, "ids: empty rule or id")
		}
	}
	return nil
}

// CheckFormats checks every format name the spec gives (a program's
// parser, a record's format, a declared format's name and the format it
// wraps) against the built-in formats' names, which the format registry
// (engine/format) holds and the loader hands in, and the declared ones: an
// unknown name is an error at its line, and a declared format may not take
// a built-in's name.
func (s *Spec) CheckFormats(builtins []string) error {
	known := func(name string) bool {
		_, ok := s.Formats[name]
		return ok || slices.Contains(builtins, name)
	}
	hint := fmt.Sprintf("(built in: %s; or a name under \"formats\")", strings.Join(builtins, ", "))
	errf := func(at, format string, args ...any) error {
		return &Error{File: s.Path, Line: s.lineOf(at), Msg: fmt.Sprintf(format, args...)}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Formats)) {
		if slices.Contains(builtins, name) {
			return errf(name, "formats.%s: %q is a built-in format's name", name, name)
		}
		if w := s.Formats[name].Wrap; w != "" && !known(w) {
			return errf(w, "formats.%s: wraps %q, which is no format %s", name, w, hint)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Records)) {
		if f := s.Records[k].Format; f != "" && !known(f) {
			return errf(f, "records.%s: unknown format %q %s", k, f, hint)
		}
	}
	for _, p := range s.Programs {
		if !known(p.Parser) {
			return errf(p.Parser, "programs: unknown parser %q %s", p.Parser, hint)
		}
	}
	return nil
}

// compileFormats checks and compiles the declared formats: patterns, or a
// wrapped format that exists (no cycle) with an optional prefix and
// renaming; an optional block start.
func (s *Spec) compileFormats() error {
	s.prefixes, s.blocks = map[string]*regexp.Regexp{}, map[string]*regexp.Regexp{}
	s.commands, s.exits = map[string]*regexp.Regexp{}, map[string]*regexp.Regexp{}
	for _, name := range slices.Sorted(maps.Keys(s.Formats)) {
		f := s.Formats[name]
		errf := func(at, format string, args ...any) error {
			return &Error{File: s.Path, Line: s.lineOf(at), Msg: "formats." + name + ": " + fmt.Sprintf(format, args...)}
		}
		switch {
		case f.Wrap != "" && len(f.Patterns) > 0:
			return errf(f.Wrap, `"wrap" and "patterns" exclude each other: a format reads its lines one way`)
		case f.Wrap == "" && len(f.Patterns) == 0:
			return errf(name, `needs "patterns" or "wrap"`)
		case f.Wrap == "" && len(f.Metrics) > 0:
			return errf(name, `"metrics" renames a wrapped format's metrics; a pattern names its own`)
		}
		for from, to := range f.Metrics {
			if from == "" || to.Name == "" {
				return errf(from, "metrics: renaming %q needs a metric name", from)
			}
		}
		seen := map[string]bool{name: true}
		for w := f.Wrap; w != ""; w = s.Formats[w].Wrap {
			if seen[w] {
				return errf(name, "wraps in a cycle through %q", w)
			}
			seen[w] = true
		}
		for _, lp := range f.Patterns {
			cp, err := compile(lp)
			if err != nil {
				return errf(lp.Pattern, "%v", err)
			}
			s.compiled[name] = append(s.compiled[name], cp)
		}
		for _, x := range []struct {
			expr, what string
			into       map[string]*regexp.Regexp
		}{{f.Prefix, "prefix", s.prefixes}, {f.Blocks, "blocks pattern", s.blocks},
			{f.Command, "command pattern", s.commands}, {f.Exit, "exit pattern", s.exits}} {
			if x.expr == "" {
				continue
			}
			re, err := regexp.Compile(x.expr)
			if err != nil {
				return errf(x.expr, "bad %s %q: %v", x.what, x.expr, err)
			}
			if (x.what == "command pattern" || x.what == "exit pattern") && re.NumSubexp() < 1 {
				return errf(x.expr, "%s %q has no group to read the value from", x.what, x.expr)
			}
			x.into[name] = re
		}
	}
	return nil
}

// Prefix returns the line prefix a declared format removes, nil for none.
func (s *Spec) Prefix(format string) *regexp.Regexp { return s.prefixes[format] }

// BlockStart returns the expression that starts each block of a record
// file in the format, nil when the format reads a file as one record.
func (s *Spec) BlockStart(format string) *regexp.Regexp { return s.blocks[format] }

// TranscriptLines returns the expressions whose first group is a record's
// command line and exit status in the format, nil for none.
func (s *Spec) TranscriptLines(format string) (command, exit *regexp.Regexp) {
	return s.commands[format], s.exits[format]
}

// relative reports whether p is a relative slash path that stays inside
// the checkout.
func relative(p string) bool {
	if p == "" || path.IsAbs(p) || strings.HasPrefix(p, "\\") || strings.Contains(p, ":") {
		return false
	}
	c := path.Clean(p)
	return c != ".." && !strings.HasPrefix(c, "../")
}

// Rule decodes the rule's settings ("rules": {name: …}) into v, strictly.
// It returns false when the spec has none for the rule.
func (s *Spec) Rule(name string, v any) (bool, error) {
	raw, ok := s.Rules[name]
	if !ok {
		return false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
			// a misspelt setting: name it at its line, with the keys the
			// rule's settings know, for the caller's "did you mean"
			key := m[1]
			if i := strings.LastIndex(key, "."); i >= 0 {
				key = key[i+1:]
			}
			return true, &Error{File: s.Path, Line: s.ruleKeyLine(name, key), Msg: fmt.Sprintf("rules.%s: unknown key %q", name, m[1]),
				Unknown: key, Known: keysOf(reflect.TypeOf(v))}
		}
		line := s.ruleLine(name)
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && line > 0 && te.Offset > 0 && int(te.Offset) <= len(raw) {
			// a value of the wrong type: its own line, inside the settings
			line += bytes.Count(raw[:te.Offset], []byte("\n"))
		}
		return true, &Error{File: s.Path, Line: line, Msg: fmt.Sprintf("rules.%s: %v", name, err)}
	}
	return true, nil
}

// ruleKeyLine returns the line of the first member named key inside the
// rule's settings, else the line of the rule's key.
func (s *Spec) ruleKeyLine(name, key string) int {
	if s.doc != nil {
		if rules := s.doc.Root.Get("rules"); rules != nil {
			if n := rules.Get(name); n != nil {
				if k := n.Find(func(k string, _ *jsontree.Node) bool { return k == key }); k != nil {
					return s.doc.Line(k)
				}
			}
		}
	}
	return s.ruleLine(name)
}

// RuleErrorf returns an error about the rule's settings, naming the spec
// file and the line of the rule's key: for settings that decode but do
// not make sense (an empty list, a tolerance below zero).
func (s *Spec) RuleErrorf(name, format string, args ...any) error {
	return &Error{File: s.Path, Line: s.ruleLine(name), Msg: "rules." + name + ": " + fmt.Sprintf(format, args...)}
}

// ruleLine returns the line of the rule's settings under "rules" (a rule
// may share its name with another key: "records": {"parity": …}).
func (s *Spec) ruleLine(name string) int {
	if s.doc == nil {
		return 0
	}
	if rules := s.doc.Root.Get("rules"); rules != nil {
		if n := rules.Get(name); n != nil {
			return s.doc.Line(n)
		}
	}
	return 0
}

// CheckUnits checks the unit of every metric the spec declares (record
// fields read as metrics, a wrapped format's renamings, a pattern's
// groups) with check, which says whether a unit is one for the metric
// (engine/metric's CheckUnit: a unit of the table, and one that converts
// into the vocabulary's unit for a metric the vocabulary names). The spec
// file's reader knows no unit and no vocabulary; the loader calls this
// after Load. Each refused unit is an *Error (joined, errors.Join) naming
// the file, the line and the unit's JSON path.
func (s *Spec) CheckUnits(check func(metric, unit string) error) error {
	var errs []error
	for i, r := range s.Results {
		errs = append(errs, s.checkUnits(fmt.Sprintf("results[%d].fields.metrics", i), r.Fields.Metrics, check)...)
	}
	for i, l := range s.Logs {
		errs = append(errs, s.checkUnits(fmt.Sprintf("logs[%d].fields.metrics", i), l.Fields.Metrics, check)...)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Formats)) {
		f := s.Formats[name]
		errs = append(errs, s.checkUnits("formats."+name+".metrics", f.Metrics, check)...)
		for i, lp := range f.Patterns {
			errs = append(errs, s.checkUnits(fmt.Sprintf("formats.%s[%d].metrics", name, i), lp.Metrics, check)...)
		}
	}
	return errors.Join(errs...)
}

// checkUnits checks the units of ms (at is their JSON path, for the
// message): an *Error for each unit check refuses.
func (s *Spec) checkUnits(at string, ms map[string]MetricSpec, check func(metric, unit string) error) []error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(ms)) {
		m := ms[k]
		if m.Unit == "" {
			continue
		}
		if err := check(m.Name, m.Unit); err != nil {
			errs = append(errs, &Error{File: s.Path, Line: s.lineOf(m.Unit), Msg: fmt.Sprintf("%s.%s.unit: %v", at, k, err)})
		}
	}
	return errs
}

// Pattern is a declared line pattern, compiled: the regular expression and
// the metric each of its named groups yields.
type Pattern struct {
	Re     *regexp.Regexp
	Groups map[string]MetricSpec // by group name
}

// Patterns returns the compiled line patterns of a format declared under
// "formats", nil for a built-in parser.
func (s *Spec) Patterns(format string) []Pattern { return s.compiled[format] }

func compile(lp LinePattern) (Pattern, error) {
	re, err := regexp.Compile(lp.Pattern)
	if err != nil {
		return Pattern{}, fmt.Errorf("bad pattern %q: %v", lp.Pattern, err)
	}
	if len(lp.Metrics) == 0 {
		return Pattern{}, fmt.Errorf("pattern %q yields no metric (add \"metrics\")", lp.Pattern)
	}
	p := Pattern{Re: re, Groups: map[string]MetricSpec{}}
	for g, m := range lp.Metrics {
		if re.SubexpIndex(g) < 0 {
			return Pattern{}, fmt.Errorf("pattern %q has no group named %q", lp.Pattern, g)
		}
		if m.Name == "" {
			return Pattern{}, fmt.Errorf("pattern %q: group %q needs a metric name", lp.Pattern, g)
		}
		p.Groups[g] = m
	}
	return p, nil
}

// ID returns the audit finding id a spec gives a rule's check: "rule/check"
// first, then "rule".
func (s *Spec) ID(rule, check string) string {
	if check != "" {
		if id, ok := s.IDs[rule+"/"+check]; ok {
			return id
		}
	}
	return s.IDs[rule]
}

// Load reads the checkout's spec file through fsys, or returns the
// defaults when it has none.
func Load(fsys *snapfs.FS) (*Spec, error) {
	ok, err := fsys.Present(File)
	if err != nil {
		return nil, err // a spec file linked outside the root is refused, not ignored
	}
	if !ok {
		return Default(), nil
	}
	data, err := fsys.ReadFile(File, snapfs.LimitText)
	if err != nil {
		return nil, err
	}
	return Parse(File, data)
}

// CheckNames checks that every key of "rules" (but those starting with "_",
// settings set aside) and every rule of "ids" names a rule strataspec has:
// known lists the rules and the rule families ("cache" for cache.*). A
// misspelt key would otherwise leave a rule without its settings, or a
// finding without its id, in silence; the error names the nearest known
// name (suggest, engine/names' DidYouMean, gives it; nil for none). Every
// such name is an *Error (joined, errors.Join), its Unknown the name as
// written (the rule part of an ids key) and Known the names given; the
// message has the suggestion already, so Suggest stays empty.
func (s *Spec) CheckNames(known []string, suggest func(name string, known []string) string) error {
	if suggest == nil {
		suggest = func(string, []string) string { return "" }
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(s.Rules)) {
		if strings.HasPrefix(name, "_") {
			continue // set aside: "_parity" keeps settings a rule does not read
		}
		if !slices.Contains(known, name) {
			e := s.RuleErrorf(name, "no rule or rule family has this name%s", suggest(name, known)).(*Error)
			e.Unknown, e.Known = name, known
			errs = append(errs, e)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(s.IDs)) {
		rule, _, _ := strings.Cut(key, "/")
		if !slices.Contains(known, rule) {
			errs = append(errs, &Error{File: s.Path, Line: s.lineOfKey(key), Msg: fmt.Sprintf("ids: %q names no rule%s", key, suggest(rule, known)),
				Unknown: rule, Known: known})
		}
	}
	return errors.Join(errs...)
}

// Mentions reports whether a rule's settings name key as the first part of
// a path (a table at "summary_comparison.prefill" mentions
// "summary_comparison"): the loader notes the results keys no setting
// mentions as kept but unused.
func (s *Spec) Mentions(key string) bool { return s.mentioned[key] }

func collectPaths(v any, into map[string]bool) {
	switch v := v.(type) {
	case string:
		into[strings.SplitN(v, ".", 2)[0]] = true
	case []any:
		for _, e := range v {
			collectPaths(e, into)
		}
	case map[string]any:
		for _, e := range v {
			collectPaths(e, into)
		}
	}
}
