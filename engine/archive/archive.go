// Package archive loads a snapshot as its checkout's spec file
// (engine/checkout) describes it: runs from JSON or JSON Lines run records,
// from log files with optional sidecars and from llama-bench output, and the
// records beside them that rules read (route_parity logs, a self-test output,
// recorded file mtimes). Every file is read through engine/snapfs, confined
// to the snapshot root.
//
// The loader is tolerant of what it does not need and strict about what it
// reads: a key no mapping uses is kept (Run.Extra) and reported once as a
// Note, never an error; a duplicate key or run name, a value of the wrong
// type, a missing referenced file, invalid UTF-8 or a truncated file is an
// *Error naming the file, the line:column and the JSON path.
package archive

import (
	"fmt"
	"hash/crc32"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// ResultsFile is the file name LoadResults gives the bytes it decodes (tests
// and fuzzing); a loaded snapshot names its own results files.
const ResultsFile = "results/results.json"

// Snapshot is one checkout (or a folder of logs) as the audit reads it.
type Snapshot struct {
	Root string // directory the snapshot was loaded from
	Runs []*Run // every run, in the order read: results files, logs, llama-bench files

	// FS reads the snapshot's files, confined to Root; nil for LoadResults.
	FS *snapfs.FS
	// Spec is the checkout's spec (its strataspec.json, or the defaults).
	Spec *checkout.Spec
	// formats names each run's format (LoadSpec's registry), nil when none
	// was given.
	formats Formats
	// ResultsFile is the first results file read, "" when runs came from logs.
	ResultsFile string
	// Docs holds the parsed JSON results files (not JSON Lines), by file,
	// for the readers of the runner's own tables (facts.Results).
	Docs map[string]*jsontree.Doc
	// MtimesFile is the recorded-mtimes file read, "" when none.
	MtimesFile string
	// Notes are inputs kept but not used (unknown keys, runs without a
	// tail), each reported once as an info line.
	Notes   []Note
	notes   map[string]bool
	byName  map[string]*Run
	loadErr error // an optional input present but refused

	GeneratedAtUTC time.Time // "generated_at_utc"
	GeneratedAt    Field     // the same, with its text and place
	// GeneratedFile is the file GeneratedAt was read from, "" when none.
	GeneratedFile string

	Provenance Provenance
	// ProvenanceFile is the JSON file the provenance record was read from
	// (a results file, or another the spec places it in), "" when none.
	ProvenanceFile string

	// Parity holds the route_parity logs, sorted by file name; nil when the
	// snapshot has none.
	Parity []*Record
	// SelfTest is the runner's self-test output, nil when absent.
	SelfTest *Record
	// Mtimes holds the file mtimes the audit recorded (machine/mtimes.json),
	// by path relative to the root; nil when absent.
	Mtimes map[string]Mtime
	// RecordErrs are the records (parity, selftest, mtimes) that could not
	// be read or parsed, left out: each is the bad input of the rule that
	// reads its kind, which reports it, and the rest of the audit runs. A
	// record over a limit stops the load instead.
	RecordErrs []RecordErr
}

// RecordErr is a record the loader could not read: its kind (RecordParity,
// RecordSelfTest, RecordMtimes) and the error, naming the file and place.
type RecordErr struct {
	Kind string
	Err  error
}

// Note is an input the loader kept but did not use, or a gap in a run
// record, reported once as an info line (never a failure).
type Note struct {
	File string
	Line int
	Path string // JSON path, "" outside JSON
	Msg  string
}

// String formats the note as file:line: path: message.
func (n Note) String() string {
	return (&Error{File: n.File, Line: n.Line, Path: n.Path, Msg: n.Msg}).Error()
}

// Run is one archived run.
type Run struct {
	Name        string            // unique across the snapshot
	File        string            // the file the run was read from
	Group       string            // the record's group, "" when it has none
	Parser      string            // the format of its output (engine/format), "" when unknown
	Cmd         []string          // argv
	Env         map[string]string // nil when the run was carried over (env: null)
	CarriedOver bool              // env was null: the run was not re-run
	ExitCode    int
	HasExit     bool              // the record gave an exit status
	Start       time.Time         // when the run started, zero when not recorded
	Extra       map[string]string // record keys no mapping used, as raw JSON
	// Metrics are the record's fields that the spec maps to metrics
	// (checkout.Fields.Metrics), in the order the spec's paths sort.
	Metrics   []RecordMetric
	DurationS float64
	Duration  Field // duration_s with its printed text and place
	// BinarySHA256 is the sha256 (hex) of the program the run ran, as its
	// sidecar records it ("binary": {"path", "sha256"}) or as read from the
	// checkout when argv[0] is a file in it; "" when unknown.
	BinarySHA256 string
	// Inputs are the files the run read as its sidecar lists them
	// ("inputs": [{"path", "sha256"}]), with their recorded hashes.
	Inputs []*ProvFile
	// Tail is the output tail when it was archived inside a results file;
	// read a run's output with Text, which also reads a log file's.
	Tail   string
	Source string // file and JSON path of the tail, e.g. "results/x.json: runs[3].output_tail"
	Index  int    // position in runs[]
	Line   int    // line of the run's object in the results file

	strata   bool       // Parser is a declared format wrapping strata's
	fsys     *snapfs.FS // where textFile is read from
	textFile string     // the log the output is read from; "" when Tail holds it
	textSum  uint32     // CRC-32C of textFile's bytes as loaded
}

// crcTable checks that a log read again is the log the loader read.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Text returns the run's output: the tail archived in its record, or the
// log file it was read from, read again through the snapshot's confined FS
// each time it is asked for, so that the logs of a large snapshot are never
// all in memory. Invalid UTF-8 in a log is replaced by U+FFFD, as the loader
// noted.
func (r *Run) Text() (string, error) {
	if r.textFile == "" {
		return r.Tail, nil
	}
	sum := crc32.New(crcTable)
	text, err := r.fsys.ReadText(r.textFile, snapfs.LimitResults, sum)
	if err != nil {
		return "", err
	}
	// The same bytes every time, or an error: every rule must judge the
	// output the loader checked, not a file rewritten since.
	if sum.Sum32() != r.textSum {
		return "", &snapfs.Error{File: r.textFile, Msg: "changed since the snapshot was loaded"}
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return text, nil
}

// WithOutput returns a copy of r whose output is text, read from source:
// Text returns text, never the log r was read from, and the copy has no
// record fields read as metrics (Metrics: the archived record's, which a
// re-run does not write). A live re-run's fresh output is judged through it,
// so that nothing of the archived log or record can stand in for what the
// engine printed now.
func (r *Run) WithOutput(source, text string) *Run {
	c := *r
	c.Tail, c.Source = text, source
	c.Metrics = nil
	c.fsys, c.textFile, c.textSum = nil, "", 0
	return &c
}

// TailLine returns line n (1-based) of the run's output, for quoting in a
// finding; "" when there is no such line or the output cannot be read.
func (r *Run) TailLine(n int) string {
	if n <= 0 {
		return ""
	}
	t, err := r.Text()
	if err != nil {
		return ""
	}
	return Line(t, n)
}

// Line returns line n (1-based) of text without its line ending, or ""
// when text has no such line: what a finding quotes of a tail or record.
func Line(text string, n int) string {
	if n < 1 {
		return ""
	}
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimSuffix(text, "\r")
}

// ModelFile returns the model file the run reads: the value of the first
// of flags on its command line ("--model", "-m" when none are given),
// "--flag=FILE" included, and the flag that named it; "" when it names
// none. It is the one place a run's model file is found.
func (r *Run) ModelFile(flags ...string) (file, flag string) {
	if len(flags) == 0 {
		flags = []string{"--model", "-m"}
	}
	for i := 1; i < len(r.Cmd); i++ {
		for _, f := range flags {
			if v, ok := strings.CutPrefix(r.Cmd[i], f+"="); ok {
				return v, f
			}
			if r.Cmd[i] == f && i+1 < len(r.Cmd) {
				return r.Cmd[i+1], f
			}
		}
	}
	return "", ""
}

// Strata reports whether the run is a strata engine run (speed or TF): its
// output is read in the strata format, or in a declared format that wraps it.
func (r *Run) Strata() bool { return r.strata }

// RecordMetric is a run record's field read as a metric.
type RecordMetric struct {
	Name, Unit string // the vocabulary name and unit the spec maps it to
	Field             // the value as written, with its JSON path and line
}

// Field is one number (or null) from the results JSON with its place. The
// number is kept as written: its printed precision is the reader's to
// take (engine/num parses Lit), the archive's to check only that it is a
// finite number.
type Field struct {
	Name  string  // key in its dict ("" for array elements)
	Lit   string  // the number as written in the JSON (or in a string, for duration_s); "" for null
	Null  bool    // the value was null
	Path  string  // JSON path, e.g. "runs[3].duration_s"
	Line  int     // line in the results file
	Text  string  // for string values (generated_at_utc): the string
	value float64 // Lit's value
}

// Value returns the field's value (0 for null).
func (f Field) Value() float64 { return f.value }

// Provenance is the runner's record of the files it ran and read.
type Provenance struct {
	Files   []*ProvFile // scripts and binaries (patch, moe_metal, route_parity, strata_window_cli, runner)
	Prompts []*ProvFile // prompt and token files
}

// File returns the provenance record of a role or path, or nil.
func (p Provenance) File(roleOrPath string) *ProvFile {
	for _, f := range append(append([]*ProvFile(nil), p.Files...), p.Prompts...) {
		if f.Role == roleOrPath || f.Path == roleOrPath {
			return f
		}
	}
	return nil
}

// ProvFile is one provenance record.
type ProvFile struct {
	Role      string // for Files: what the file is; "" for prompts
	File      string // the file the record is in when it is a run's sidecar; "" for the results file
	Path      string // relative to the root
	SHA256    string // hex
	Bytes     int64
	Mtime     time.Time // for Files: mtime as recorded (local time with offset)
	MtimeText string
	JSONPath  string
	Line      int
}

// Record is a text record beside the results (a route_parity log, the
// self-test output): the program's own output, and the command that
// produced it from a sidecar run record (NAME.json beside it) or from an
// optional header. Header lines are "# cmd: argv", "# env: K=V ...",
// "# exit: N"; the tail parsers skip them, so line numbers are file lines.
type Record struct {
	Name    string            // file name without extension, e.g. "fast_2"
	File    string            // path relative to the root
	Cmd     []string          // argv; nil when not recorded
	Env     map[string]string // environment; nil when not recorded
	Exit    int               // exit status; -1 when not recorded
	HasExit bool              // the exit status was recorded
	Text    string            // the whole file (a block's record: the file with other blocks' lines blank)
	Format  string            // the format it is read in (engine/format)
	Block   int               // 1-based block of the file the record is, 0 for the whole file
}

// Key names the record among the snapshot's records: its file, with
// "#k" for block k of a file its format splits.
func (r *Record) Key() string {
	if r.Block == 0 {
		return r.File
	}
	return fmt.Sprintf("%s#%d", r.File, r.Block)
}

// Mtime is a recorded file mtime.
type Mtime struct {
	Time time.Time
	Text string
}

// Rel maps a path as a run recorded it to a path inside the snapshot: a
// relative path is relative to the root, an absolute one names a file on
// the audited machine under the spec's machine folder for its longest
// prefix ("/tmp/x" → machine/tmp/x, or host_tmp/x with {"/tmp": "host_tmp"}).
// ok is false for a path that leads outside the snapshot: such a path is
// data to report, never to open.
func (s *Snapshot) Rel(recorded string) (rel string, ok bool) {
	p := filepath.ToSlash(recorded)
	if !path.IsAbs(p) || s.Spec == nil {
		return snapfs.Resolve(recorded, "")
	}
	dir, rest, ok := s.Spec.Machine.Map(p)
	if !ok {
		return "", false
	}
	return snapfs.Resolve(rest, dir)
}

// ReadFile reads a file named as a run recorded it (see Rel), confined to
// the snapshot: a path outside it is an error matching snapfs.ErrOutside.
func (s *Snapshot) ReadFile(recorded string) ([]byte, error) {
	rel, ok := s.Rel(recorded)
	if !ok {
		return nil, &snapfs.Error{File: recorded, Msg: "outside the snapshot: not archived, not read", Err: snapfs.ErrOutside}
	}
	fsys := s.FS
	if fsys == nil {
		// A Snapshot built by hand (tests) reads from Root, confined the same way.
		if s.Root == "" {
			return nil, &snapfs.Error{File: rel, Msg: "no snapshot root"}
		}
		var err error
		if fsys, err = snapfs.Open(s.Root); err != nil {
			return nil, err
		}
		defer fsys.Close()
	}
	return fsys.ReadFile(rel, snapfs.LimitData)
}

// Run returns the run with the given name, or nil.
//
// The loader indexes runs as it adds them, so a loaded snapshot answers in
// constant time and Run never writes (rules may call it concurrently); a
// Snapshot built by hand with Runs set directly is searched in order.
func (s *Snapshot) Run(name string) *Run {
	if len(s.byName) == len(s.Runs) {
		return s.byName[name]
	}
	for _, r := range s.Runs {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// addRun appends a run and indexes it by name.
func (s *Snapshot) addRun(r *Run) {
	if s.byName == nil {
		s.byName = map[string]*Run{}
	}
	if s.formats != nil && r.Parser != "" {
		r.strata = s.formats.Strata(r.Parser)
	}
	if s.FS != nil && len(s.Runs) >= s.FS.Limits().Runs {
		if s.loadErr == nil {
			s.loadErr = &snapfs.LimitError{File: r.File, What: "runs", Limit: int64(s.FS.Limits().Runs), Flag: "-max-runs"}
		}
		return
	}
	s.Runs = append(s.Runs, r)
	s.byName[r.Name] = r
}

// Group returns the runs of a group, in results order.
func (s *Snapshot) Group(group string) []*Run {
	var out []*Run
	for _, r := range s.Runs {
		if r.Group == group {
			out = append(out, r)
		}
	}
	return out
}

// StrataRuns returns the speed and TF runs, in results order.
func (s *Snapshot) StrataRuns() []*Run {
	var out []*Run
	for _, r := range s.Runs {
		if r.Strata() {
			out = append(out, r)
		}
	}
	return out
}

// Error is a problem in a snapshot file at a place: file, line:column and
// JSON path.
type Error = jsontree.Error
