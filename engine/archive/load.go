package archive

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// Formats is what the loader asks of the format registry (engine/format's
// Registry, built for the checkout's spec by format.For): which format
// reads a program's output, which recognises an output whose command was
// not recorded, which read the strata engine's log, and the built-in
// names a spec file is checked against. The loader holds no format of its
// own and imports no parser: the registry is handed to it.
type Formats interface {
	// Builtins returns the built-in formats' names.
	Builtins() []string
	// Program returns the format for a run's argv[0]; ok false for none.
	Program(argv0 string) (name string, ok bool)
	// Recognize returns the format whose output text is, "" for none.
	Recognize(text string) string
	// Strata reports whether a format reads the strata engine's log.
	Strata(name string) bool
	// Seconds converts a duration v in the time unit named (a results
	// entry's fields.duration_unit) into seconds; a unit that is no time
	// unit of the unit table is an error.
	Seconds(v float64, unit string) (float64, error)
}

// FormatsFor builds the format registry of a checkout's spec (format.For).
type FormatsFor func(*checkout.Spec) Formats

// Load reads the snapshot at root: its spec file (or the defaults), then
// its runs and records as the spec says, every file through one FS
// confined to root, each run's format named by the registry formats
// builds for the spec. Errors name the file and place.
func Load(root string, formats FormatsFor) (*Snapshot, error) {
	return LoadLimits(root, snapfs.Limits{}, formats)
}

// LoadLimits is Load within lim (zero fields: snapfs.DefaultLimits): every
// file is read through an FS that counts bytes, and the loader refuses more
// logs or runs than lim allows with a snapfs.LimitError.
func LoadLimits(root string, lim snapfs.Limits, formats FormatsFor) (*Snapshot, error) {
	fsys, err := snapfs.OpenLimits(root, lim)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	spec, err := checkout.Load(fsys)
	if err != nil {
		return nil, err
	}
	var f Formats
	if formats != nil {
		f = formats(spec)
	}
	return LoadSpec(fsys, spec, f)
}

// LoadSpec reads the runs and records spec describes, through fsys, the
// format of each run named by formats (nil: none is known, and every run's
// Parser is ""). The spec's format names are checked against formats'
// built-ins first.
func LoadSpec(fsys *snapfs.FS, spec *checkout.Spec, formats Formats) (*Snapshot, error) {
	if formats != nil {
		if err := spec.CheckFormats(formats.Builtins()); err != nil {
			return nil, err
		}
	}
	s := &Snapshot{Root: fsys.Dir(), FS: fsys, Spec: spec, formats: formats, notes: map[string]bool{}}
	for _, rs := range spec.Results {
		files, err := fsys.Glob(rs.File)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 && !strings.ContainsAny(rs.File, "*?[") {
			if _, err := fsys.Stat(rs.File); err != nil {
				return nil, err // names the file and why: missing, or leading outside
			}
			return nil, &Error{File: spec.Path, Msg: fmt.Sprintf("results file %s does not exist", rs.File)}
		}
		for _, f := range files {
			data, err := fsys.ReadFile(f, snapfs.LimitResults)
			if err != nil {
				return nil, err
			}
			if s.ResultsFile == "" {
				s.ResultsFile = f
			}
			switch {
			case strings.HasSuffix(f, ".jsonl"):
				err = s.decodeJSONL(f, data, rs)
			case strings.HasSuffix(f, ".csv"):
				err = s.decodeCSV(f, data, rs)
			default:
				err = s.decodeResults(f, data, rs)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	for _, rs := range spec.Results {
		if err := s.loadPlaced(rs); err != nil {
			return nil, err
		}
	}
	if err := s.loadLogs(); err != nil {
		return nil, err
	}
	if err := s.loadBench(); err != nil {
		return nil, err
	}
	if err := s.checkFiles(); err != nil {
		return nil, err
	}
	if err := s.loadRecords(); err != nil {
		return nil, err
	}
	if s.loadErr != nil {
		return nil, s.loadErr
	}
	return s, nil
}

// LoadResults decodes a results file's bytes without touching the file
// system (no file checks, no records), with the default field names: for
// tests and fuzzing.
func LoadResults(root string, data []byte) (*Snapshot, error) {
	s := &Snapshot{Root: root, Spec: checkout.Default(), notes: map[string]bool{}}
	if root != "" {
		// Files the runs name are still read from root, under its spec.
		if fsys, err := snapfs.Open(root); err == nil {
			s.FS = fsys
			if spec, err := checkout.Load(fsys); err == nil {
				s.Spec = spec
			}
		}
	}
	rs := checkout.Results{File: ResultsFile, Runs: "runs", Fields: checkout.DefaultFields(),
		Provenance: checkout.Place{Path: "provenance"}, Generated: checkout.Place{Path: "generated_at_utc"}}
	if err := s.decodeResults(ResultsFile, data, rs); err != nil {
		return nil, err
	}
	return s, nil
}

// note records an input the loader kept but did not use, once per key.
func (s *Snapshot) note(key string, n Note) {
	if s.notes[key] {
		return
	}
	s.notes[key] = true
	s.Notes = append(s.Notes, n)
}

// decoder turns nodes into typed values, remembering the first error.
type decoder struct {
	p        *jsontree.Doc
	err      *Error
	lineBase int // lines before the document (JSON Lines)
	// cells are a CSV row's cells' places in the file, by key path; the
	// row's JSON text is not the file's, so a node outside them has no
	// column (nil for JSON).
	cells map[string]jsontree.CSVCell
}

func (d *decoder) fail(n *jsontree.Node, format string, args ...any) {
	if d.err == nil {
		d.err = d.p.Errorf(n, format, args...)
		d.err.Line += d.lineBase
		if d.cells != nil {
			c := jsontree.CSVCell{Line: d.lineBase + 1} // the row's start
			// the cell holding n: its path, or the path of a value that
			// holds it (an argv array's cell for "cmd[0]")
			for p := n.Path; p != ""; p = p[:max(strings.LastIndexAny(p, ".["), 0)] {
				if cell, ok := d.cells[p]; ok {
					c = cell
					break
				}
			}
			d.err.Line, d.err.Col = c.Line, c.Col
		}
	}
}

func (d *decoder) line(n *jsontree.Node) int {
	l, _ := d.p.Lines.Pos(n.Off)
	return l + d.lineBase
}

// object checks that n is an object with exactly the required keys plus
// any of the optional ones.
func (d *decoder) object(n *jsontree.Node, required []string, optional ...string) bool {
	if n.Kind != 'o' {
		d.fail(n, "want an object, found %s", jsontree.KindName(n.Kind))
		return false
	}
	for i, k := range n.Keys {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			d.fail(n.Vals[i], "unknown key %q (known: %s)", k, strings.Join(append(append([]string(nil), required...), optional...), ", "))
			return false
		}
	}
	for _, k := range required {
		if n.Get(k) == nil {
			d.fail(n, "missing key %q", k)
			return false
		}
	}
	return true
}

func (d *decoder) str(n *jsontree.Node) string {
	if n.Kind != 's' {
		d.fail(n, "want a string, found %s", jsontree.KindName(n.Kind))
		return ""
	}
	return n.Str
}

func (d *decoder) number(n *jsontree.Node, name string) Field {
	f := Field{Name: name, Path: n.Path, Line: d.line(n)}
	switch n.Kind {
	case 'z':
		f.Null = true
		return f
	case 'n':
		v, err := strconv.ParseFloat(string(n.Num), 64) // JSON's number syntax is Go's
		if err != nil || math.IsInf(v, 0) {
			d.fail(n, "bad number %s", n.Num)
		}
		f.Lit, f.value = string(n.Num), v
		return f
	}
	d.fail(n, "want a number, found %s", jsontree.KindName(n.Kind))
	return f
}

func (d *decoder) integer(n *jsontree.Node) int {
	if n.Kind != 'n' {
		d.fail(n, "want an integer, found %s", jsontree.KindName(n.Kind))
		return 0
	}
	i, err := strconv.Atoi(string(n.Num))
	if err != nil {
		d.fail(n, "want an integer, found %s", n.Num)
	}
	return i
}

func (d *decoder) strings(n *jsontree.Node) []string {
	if n.Kind != 'a' {
		d.fail(n, "want an array of strings, found %s", jsontree.KindName(n.Kind))
		return nil
	}
	out := make([]string, 0, len(n.Vals))
	for _, v := range n.Vals {
		out = append(out, d.str(v))
	}
	return out
}

// firstKey is the top-level key of a dotted path.
func firstKey(path string) string { return strings.SplitN(path, ".", 2)[0] }

func (s *Snapshot) decodeResults(file string, data []byte, rs checkout.Results) error {
	// The runs are decoded one record at a time as the parser reads them,
	// and their trees dropped: memory follows the runs kept, not every
	// record's tree, and a file over -max-runs stops at the first run past
	// the limit.
	at := rs.Runs
	if at == "" && !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("[")) {
		at = "runs" // a top-level object: its "runs"
	}
	d := &decoder{}
	seen := newFieldsSeen(rs.Declared())
	streamed := false
	doc, err := jsontree.ParseDocEach(file, data, at, func(doc *jsontree.Doc, i int, rn *jsontree.Node) error {
		d.p, streamed = doc, true
		s.decodeRun(d, rn, i, "", rs.Fields)
		if d.err != nil {
			return d.err
		}
		seen.add(rn)
		if s.loadErr != nil {
			return s.loadErr // over -max-runs: read no further
		}
		return nil
	})
	if err != nil {
		return err
	}
	if s.Docs == nil {
		s.Docs = map[string]*jsontree.Doc{}
	}
	s.Docs[file] = doc
	d.p = doc
	root := doc.Root
	runs := root.Lookup(at)
	if rs.Runs == "" && root.Kind != 'o' {
		runs = root
	}
	if runs == nil {
		return doc.Errorf(root, "no array of runs at %q (set \"runs\" in %s's results entry)", rs.Runs, checkout.File)
	}
	if !streamed {
		s.decodeRuns(d, runs, rs.Fields, seen) // an object keyed by run name, not an array (an error), or an empty array
		if d.err != nil {
			return d.err
		}
	}
	seen.note(s, file)
	if root.Kind != 'o' {
		return nil
	}
	runsKey := strings.SplitN(rs.Runs, ".", 2)[0]
	if rs.Runs == "" {
		runsKey = "runs"
	}
	for i, k := range root.Keys {
		if k == runsKey {
			continue
		}
		// The runner's own tables are read by rules where the spec's rule
		// settings locate them; the provenance record and the generation
		// time where the results entry says. Any other key is kept and noted.
		if !s.Spec.Mentions(k) && !s.placed(file, k) {
			s.note(file+"\x00"+k, Note{File: file, Line: d.line(root.Vals[i]), Path: root.Vals[i].Path, Msg: "kept, not used by any rule"})
		}
	}
	if rs.Generated.In(file) {
		s.decodeGenerated(d, file, root.Lookup(rs.Generated.Path), rs.Generated.Path)
	}
	if n := root.Lookup(rs.Provenance.Path); n != nil && rs.Provenance.In(file) {
		s.ProvenanceFile = file
		s.decodeProvenance(d, n)
	}
	if d.err != nil {
		return d.err
	}
	return nil
}

// placed reports whether the top-level key k of a JSON file holds the
// provenance record or the generation time a results entry places there.
func (s *Snapshot) placed(file, k string) bool {
	for _, rs := range s.Spec.Results {
		for _, pl := range []checkout.Place{rs.Provenance, rs.Generated} {
			if firstKey(pl.Path) == k && (pl.In(file) || pl.File == file) {
				return true
			}
		}
	}
	return false
}

// decodeGenerated reads the generation time at n (nil: not there).
func (s *Snapshot) decodeGenerated(d *decoder, file string, n *jsontree.Node, path string) {
	if n == nil || path == "" || d.err != nil {
		return
	}
	s.GeneratedAt = Field{Name: path, Path: n.Path, Line: d.line(n), Text: d.str(n)}
	s.GeneratedFile = file
	if d.err == nil {
		t, err := time.Parse(time.RFC3339Nano, s.GeneratedAt.Text)
		if err != nil {
			d.fail(n, "not an RFC 3339 time: %q", s.GeneratedAt.Text)
		}
		s.GeneratedAtUTC = t
	}
}

// loadPlaced reads the provenance record and the generation time a results
// entry places in another JSON file of the checkout ({"file": …, "path":
// …}). Such a file must exist and hold what it is said to hold; its other
// top-level keys are the runner's tables, located by the rules' settings,
// and any key no rule names is noted.
func (s *Snapshot) loadPlaced(rs checkout.Results) error {
	for _, pl := range []struct {
		place checkout.Place
		key   string
	}{{rs.Provenance, "provenance"}, {rs.Generated, "generated"}} {
		if pl.place.File == "" {
			continue
		}
		doc, err := s.Doc(pl.place.File)
		if err != nil {
			return err
		}
		n := doc.Root.Lookup(pl.place.Path)
		if n == nil {
			return &Error{File: s.Spec.Path, Msg: fmt.Sprintf("results %s: %s: %s has no %q", rs.File, pl.key, pl.place.File, pl.place.Path)}
		}
		d := &decoder{p: doc}
		if pl.key == "provenance" {
			s.ProvenanceFile = pl.place.File
			s.decodeProvenance(d, n)
		} else {
			s.decodeGenerated(d, pl.place.File, n, pl.place.Path)
		}
		if d.err != nil {
			return d.err
		}
		if doc.Root.Kind == 'o' {
			for i, k := range doc.Root.Keys {
				if !s.Spec.Mentions(k) && !s.placed(pl.place.File, k) {
					s.note(pl.place.File+"\x00"+k, Note{File: pl.place.File, Line: d.line(doc.Root.Vals[i]), Path: doc.Root.Vals[i].Path, Msg: "kept, not used by any rule"})
				}
			}
		}
	}
	return nil
}

// Doc returns the JSON file rel of the snapshot as a document, parsed once:
// a results file as the loader read it, or any other JSON file of the
// checkout (the runner's tables beside its runs).
func (s *Snapshot) Doc(rel string) (*jsontree.Doc, error) {
	if doc := s.Docs[rel]; doc != nil {
		return doc, nil
	}
	if s.FS == nil {
		return nil, &Error{File: rel, Msg: "not read: the snapshot has no file system"}
	}
	data, err := s.FS.ReadFile(rel, snapfs.LimitResults)
	if err != nil {
		return nil, err
	}
	doc, err := jsontree.ParseDoc(rel, data)
	if err != nil {
		return nil, err
	}
	if s.Docs == nil {
		s.Docs = map[string]*jsontree.Doc{}
	}
	s.Docs[rel] = doc
	return doc, nil
}

// decodeJSONL reads JSON Lines: every non-blank line is one run record.
func (s *Snapshot) decodeJSONL(file string, data []byte, rs checkout.Results) error {
	line := 0
	for len(data) > 0 {
		line++
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		doc, err := jsontree.ParseDoc(file, l)
		if err != nil {
			var je *jsontree.Error
			if errors.As(err, &je) {
				je.Line += line - 1
			}
			return err
		}
		d := &decoder{p: doc, lineBase: line - 1}
		rec := doc.Root
		if rs.Runs != "" {
			rec = rec.Lookup(rs.Runs)
		}
		if rec == nil {
			return &Error{File: file, Line: line, Msg: fmt.Sprintf("no run record at %q", rs.Runs)}
		}
		s.decodeRun(d, rec, len(s.Runs), "", rs.Fields)
		if d.err != nil {
			return d.err
		}
	}
	return nil
}

// RowsOnly reports whether a results file holds run records alone, one a
// line or a row (JSON Lines, CSV): no tables, no provenance record.
func RowsOnly(file string) bool {
	return strings.HasSuffix(file, ".jsonl") || strings.HasSuffix(file, ".csv")
}

// decodeCSV reads a CSV results file, one run a row: its header names the
// fields (jsontree.ParseCSV), which the spec maps as a JSON record's.
func (s *Snapshot) decodeCSV(file string, data []byte, rs checkout.Results) error {
	if rs.Runs != "" {
		return &Error{File: s.Spec.Path, Line: s.Spec.Line("results"), Msg: fmt.Sprintf("results %s: a CSV file holds one run a row; \"runs\" (%q) names a path in a JSON file", file, rs.Runs)}
	}
	rows, err := jsontree.ParseCSV(file, data)
	if err != nil {
		return err
	}
	for _, row := range rows {
		d := &decoder{p: row.Doc, lineBase: row.Line - 1, cells: row.Cells}
		s.decodeRun(d, row.Doc.Root, len(s.Runs), "", rs.Fields)
		if d.err != nil {
			return d.err
		}
	}
	return nil
}

// decodeRuns decodes the runs the streaming parser did not: an object of
// run records keyed by run name ({"q2_0_speed": {...}, ...}), whose key is
// a record's name where the record has no name field; anything else but an
// array is an error.
func (s *Snapshot) decodeRuns(d *decoder, n *jsontree.Node, f checkout.Fields, seen *fieldsSeen) {
	if n.Kind != 'a' && n.Kind != 'o' {
		d.fail(n, "want an array of runs or an object of runs keyed by name, found %s", jsontree.KindName(n.Kind))
		return
	}
	for i, rn := range n.Vals {
		key := ""
		if n.Kind == 'o' {
			key = n.Keys[i]
		}
		s.decodeRun(d, rn, i, key, f)
		if d.err != nil {
			return
		}
		seen.add(rn)
	}
}

// decodeRun maps one run record to a Run by the spec's field paths; key is
// the member name of a record in an object of runs ("" in an array), the
// run's name when the record has no name field. Keys the mapping does not
// use are kept in Extra and noted once per key.
func (s *Snapshot) decodeRun(d *decoder, rn *jsontree.Node, i int, key string, f checkout.Fields) {
	if rn.Kind != 'o' {
		d.fail(rn, "want a run record (an object), found %s", jsontree.KindName(rn.Kind))
		return
	}
	file := d.p.File
	r := &Run{Index: i, Line: d.line(rn), File: file, ExitCode: 0, Extra: map[string]string{}}
	used := map[string]bool{}
	get := func(path string) *jsontree.Node {
		if path == "" {
			return nil
		}
		used[strings.SplitN(path, ".", 2)[0]] = true
		return rn.Lookup(path)
	}
	nn := get(f.Name)
	switch {
	case nn == nil && key == "":
		d.fail(rn, "run record has no %q (the run's name; map it with fields.name in %s)", f.Name, checkout.File)
		return
	case nn == nil:
		nn = &jsontree.Node{Kind: 's', Str: key, Off: rn.Off, End: rn.Off, Path: rn.Path}
	}
	r.Name = d.str(nn)
	if d.err == nil && r.Name == "" {
		d.fail(nn, "empty run name")
	}
	if d.err == nil && key != "" && r.Name != key {
		d.fail(nn, "run record keyed %q names itself %q", key, r.Name)
	}
	if j := s.Run(r.Name); j != nil && d.err == nil {
		d.fail(nn, "duplicate run name %q (also %s line %d)", r.Name, j.File, j.Line)
	}
	if gn := get(f.Group); gn != nil && gn.Kind != 'z' {
		r.Group = d.str(gn)
	}
	line := false // argv is a command line, as a shell reads it
	switch an := get(f.Argv); {
	case an == nil:
	case an.Kind == 's':
		r.Cmd, line = splitCommand(an.Str), true
	default:
		r.Cmd = d.strings(an)
	}
	switch en := get(f.Env); {
	case en == nil:
	case en.Kind == 'z':
		r.CarriedOver = true
	case en.Kind == 'o':
		r.Env = map[string]string{}
		for j, k := range en.Keys {
			v := en.Vals[j]
			if v.Kind == 'n' {
				r.Env[k] = string(v.Num)
				continue
			}
			r.Env[k] = d.str(v)
		}
	default:
		d.fail(en, "want an object or null, found %s", jsontree.KindName(en.Kind))
	}
	if line {
		s.commandEnv(r, file, rn)
	}
	if xn := get(f.Exit); xn != nil && xn.Kind != 'z' {
		r.ExitCode = d.integer(xn)
		r.HasExit = true
	}
	if dn := get(f.Duration); dn != nil {
		if dn.Kind == 's' {
			v, err := strconv.ParseFloat(dn.Str, 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				d.fail(dn, "duration %q is not a number of seconds", dn.Str)
			}
			r.Duration = Field{Name: f.Duration, Lit: dn.Str, Path: dn.Path, Line: d.line(dn), value: v}
		} else {
			r.Duration = d.number(dn, f.Duration)
		}
		r.DurationS = r.Duration.Value()
		if f.DurationUnit != "" && d.err == nil {
			r.DurationS = s.seconds(d, dn, r.DurationS, f.DurationUnit)
		}
		if d.err == nil && !r.Duration.Null && r.DurationS < 0 {
			d.fail(dn, "duration must be a number ≥ 0")
		}
	} else {
		r.Duration = Field{Name: f.Duration, Null: true}
	}
	if sn := get(f.Start); sn != nil && sn.Kind != 'z' {
		txt := d.str(sn)
		if d.err == nil {
			t, err := time.Parse(time.RFC3339Nano, txt)
			if err != nil {
				d.fail(sn, "start %q is not an RFC 3339 time", txt)
			}
			r.Start = t
		}
	}
	if tn := get(f.Tail); tn != nil {
		r.Tail = d.str(tn)
		r.Source = file + ": " + tn.Path
	} else if f.Tail != "" { // "" in a sidecar: the log is the tail
		r.Source = file + ": " + rn.Path
		s.note(file+"\x00tail\x00"+r.Name, Note{File: file, Line: r.Line, Path: rn.Path, Msg: fmt.Sprintf("run %q has no %q: %s", r.Name, f.Tail, noTailNote)})
	}
	for _, p := range slices.Sorted(maps.Keys(f.Metrics)) {
		n := get(p)
		if n == nil || n.Kind == 'z' {
			continue // a record without the field: the rules that need the metric say so
		}
		m := f.Metrics[p]
		r.Metrics = append(r.Metrics, RecordMetric{Name: m.Name, Unit: m.Unit, Field: d.number(n, p)})
	}
	for j, k := range rn.Keys {
		if used[k] {
			continue
		}
		v := rn.Vals[j]
		r.Extra[k] = string(d.p.Data[v.Off:v.End])
		s.note(file+"\x00run\x00"+k, Note{File: file, Line: d.line(v), Path: v.Path, Msg: "run key kept, not used by any rule (reported once)"})
	}
	if d.err != nil {
		return
	}
	if len(r.Cmd) > 0 {
		r.Parser = s.program(r.Cmd[0])
	}
	s.addRun(r)
}

// seconds converts a duration v in the time unit u into seconds by the
// snapshot's format registry; a unit it refuses is an error at n.
func (s *Snapshot) seconds(d *decoder, n *jsontree.Node, v float64, u string) float64 {
	if s.formats == nil {
		d.fail(n, "duration_unit %q: no unit table to read it by", u)
		return v
	}
	sec, err := s.formats.Seconds(v, u)
	if err != nil {
		d.fail(n, "duration_unit %q: %v", u, err)
		return v
	}
	return sec
}

// noTailNote ends the note about a run record without an output tail.
const noTailNote = "no output tail to parse"

// commandEnv moves the environment assignments that open a command line
// ("STRATA_METAL_ARENA_GB=3.4 ./strata_window_cli …", or after "env") out
// of the run's argv and into its environment, as the shell that ran the
// line did: argv[0] is then the program. An assignment the recorded
// environment already holds keeps the recorded value, and a different one
// is noted; a run carried over (env null) gets no environment.
func (s *Snapshot) commandEnv(r *Run, file string, rn *jsontree.Node) {
	i := 0
	if len(r.Cmd) > 1 && r.Cmd[0] == "env" {
		i = 1
	}
	start := i
	for ; i < len(r.Cmd); i++ {
		k, v, ok := strings.Cut(r.Cmd[i], "=")
		if !ok || !envName(k) {
			break
		}
		if r.CarriedOver {
			continue
		}
		if r.Env == nil {
			r.Env = map[string]string{}
		}
		if old, ok := r.Env[k]; ok && old != v {
			s.note(file+"\x00cmdenv\x00"+r.Name+"\x00"+k, Note{File: file, Line: r.Line, Path: rn.Path,
				Msg: fmt.Sprintf("run %q: its command line sets %s=%s, its recorded environment %s=%s (the recorded value is kept)", r.Name, k, v, k, old)})
			continue
		}
		r.Env[k] = v
	}
	if i == start {
		return // no assignment: "env" alone is the program env
	}
	r.Cmd = r.Cmd[i:]
}

// envName reports whether k is a shell variable name.
func envName(k string) bool {
	for j := 0; j < len(k); j++ {
		c := k[j]
		if c != '_' && !('A' <= c && c <= 'Z') && !('a' <= c && c <= 'z') && (j == 0 || !('0' <= c && c <= '9')) {
			return false
		}
	}
	return k != ""
}

// splitCommand splits a command line into words, honouring single and
// double quotes and backslash escapes as a POSIX shell does for plain words.
func splitCommand(line string) []string {
	var out []string
	var cur strings.Builder
	in := false
	var quote rune
	esc := false
	for _, c := range line {
		switch {
		case esc:
			cur.WriteRune(c)
			esc, in = false, true
		case c == '\\' && quote != '\'':
			esc = true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func (s *Snapshot) strataRun(d *decoder, n *jsontree.Node, name string) {
	r := s.Run(name)
	switch {
	case r == nil:
		d.fail(n, "no run named %q in runs", name)
	case s.formats != nil && !r.Strata(): // no registry: no run's format is known
		d.fail(n, "run %q is a %s run, not a strata run", name, r.Group)
	}
}

func (s *Snapshot) decodeProvenance(d *decoder, n *jsontree.Node) {
	if d.err != nil || !d.object(n, []string{"files", "prompts"}) {
		return
	}
	s.Provenance.Files = s.provFiles(d, n.Get("files"), true)
	s.Provenance.Prompts = s.provFiles(d, n.Get("prompts"), false)
}

func (s *Snapshot) provFiles(d *decoder, n *jsontree.Node, withMeta bool) []*ProvFile {
	if d.err != nil {
		return nil
	}
	if n.Kind != 'a' {
		d.fail(n, "want an array, found %s", jsontree.KindName(n.Kind))
		return nil
	}
	var out []*ProvFile
	seen := map[string]bool{}
	for _, fn := range n.Vals {
		var ok bool
		if withMeta {
			ok = d.object(fn, []string{"role", "path", "sha256", "bytes", "mtime_local"})
		} else {
			ok = d.object(fn, []string{"path", "sha256", "bytes"})
		}
		if !ok {
			return nil
		}
		f := &ProvFile{JSONPath: fn.Path, Line: d.line(fn)}
		f.Path = d.str(fn.Get("path"))
		f.SHA256 = d.str(fn.Get("sha256"))
		f.Bytes = int64(d.integer(fn.Get("bytes")))
		if withMeta {
			f.Role = d.str(fn.Get("role"))
			f.MtimeText = d.str(fn.Get("mtime_local"))
			if d.err == nil {
				t, err := time.Parse(time.RFC3339Nano, f.MtimeText)
				if err != nil {
					d.fail(fn.Get("mtime_local"), "not an RFC 3339 time: %q", f.MtimeText)
				}
				f.Mtime = t
			}
		}
		if d.err == nil && !validHex(f.SHA256, 64) {
			d.fail(fn.Get("sha256"), "not a sha256 in hex: %q", f.SHA256)
		}
		// A path that leads outside the snapshot is data: the rules report
		// it and nothing opens it.
		if d.err == nil && f.Path == "" {
			d.fail(fn.Get("path"), "empty path")
		}
		if d.err == nil && seen[f.Path] {
			d.fail(fn.Get("path"), "duplicate provenance path %q", f.Path)
		}
		seen[f.Path] = true
		out = append(out, f)
	}
	return out
}

func validHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// checkFiles reports the first referenced file that does not exist, is a
// directory or leads outside the snapshot through a link. A recorded path
// that names a place outside the snapshot ("../x", or an absolute path
// with no machine folder) is data, left to the rules, which report it
// without opening it.
func (s *Snapshot) checkFiles() error {
	for _, f := range append(append([]*ProvFile(nil), s.Provenance.Files...), s.Provenance.Prompts...) {
		rel, ok := s.Rel(f.Path)
		if !ok {
			continue
		}
		st, err := s.FS.Stat(rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return &Error{File: s.ProvenanceFile, Line: f.Line, Path: f.JSONPath + ".path", Msg: fmt.Sprintf("referenced file %s does not exist", f.Path)}
		case err != nil:
			return &Error{File: s.ProvenanceFile, Line: f.Line, Path: f.JSONPath + ".path", Msg: err.Error()}
		case st.IsDir():
			return &Error{File: s.ProvenanceFile, Line: f.Line, Path: f.JSONPath + ".path", Msg: fmt.Sprintf("referenced file %s is a directory", f.Path)}
		}
	}
	return nil
}

// Record kinds a spec's "records" may name.
const (
	RecordParity   = "parity"   // route_parity logs (a glob)
	RecordSelfTest = "selftest" // the runner's self-test output
	RecordMtimes   = "mtimes"   // recorded file mtimes (JSON)
)

// loadRecords reads the records the spec names: route_parity logs, the
// self-test output and the recorded mtimes, each optional.
func (s *Snapshot) loadRecords() error {
	kinds := []string{RecordParity, RecordSelfTest, RecordMtimes}
	for _, k := range slices.Sorted(maps.Keys(s.Spec.Records)) {
		if !slices.Contains(kinds, k) {
			return &checkout.Error{File: s.Spec.Path, Line: s.Spec.Line("records." + k), Msg: fmt.Sprintf("records: unknown kind %q", k),
				Unknown: k, Known: kinds, Hint: fmt.Sprintf(" (known: %s)", strings.Join(kinds, ", "))}
		}
	}
	if g := s.Spec.Records[RecordParity]; g.Glob != "" {
		logs, err := s.FS.Glob(g.Glob)
		if err != nil {
			return err
		}
		s.noteEmpty(g.Glob, logs, "records.parity")
		for _, rel := range logs {
			recs, err := s.readRecords(rel, g)
			if err := s.recordErr(RecordParity, err); err != nil {
				return err
			}
			s.Parity = append(s.Parity, recs...)
		}
	}
	if g := s.Spec.Records[RecordSelfTest]; g.Glob != "" && s.present(g.Glob) {
		recs, err := s.readRecords(g.Glob, g)
		if err := s.recordErr(RecordSelfTest, err); err != nil {
			return err
		}
		if len(recs) > 0 {
			s.SelfTest = recs[len(recs)-1]
		}
	}
	f := s.Spec.Records[RecordMtimes].Glob
	if f == "" || !s.present(f) {
		return nil
	}
	data, err := s.FS.ReadFile(f, snapfs.LimitText)
	if err == nil {
		var m map[string]Mtime
		if m, err = decodeMtimes(f, data); err == nil {
			s.Mtimes, s.MtimesFile = m, f
		}
	}
	return s.recordErr(RecordMtimes, err)
}

// recordErr keeps err, the error of reading a record of kind, in
// RecordErrs (the rule reading the kind reports it) and returns nil; an
// input over a limit is returned, and stops the load.
func (s *Snapshot) recordErr(kind string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*snapfs.LimitError](err); ok {
		return err
	}
	s.RecordErrs = append(s.RecordErrs, RecordErr{Kind: kind, Err: err})
	return nil
}

// loadLogs reads every log the spec's "logs" globs match as one run, with
// its sidecar when there is one.
func (s *Snapshot) loadLogs() error {
	logs := 0
	for _, lg := range s.Spec.Logs {
		files, err := s.FS.Glob(lg.Glob)
		if err != nil {
			return err
		}
		s.noteEmpty(lg.Glob, files, "logs")
		// Counted before any is read: a folder of a million logs stops here.
		if logs += len(files); logs > s.FS.Limits().Logs {
			return &snapfs.LimitError{File: lg.Glob, What: "log files", Limit: int64(s.FS.Limits().Logs), Flag: "-max-logs"}
		}
		for _, f := range files {
			h := crc32.New(crcTable)
			data, err := s.FS.ReadText(f, snapfs.LimitResults, h)
			if err != nil {
				return err
			}
			sum := h.Sum32()
			if !utf8.ValidString(data) {
				data = strings.ToValidUTF8(data, "\uFFFD")
				s.note(f+"\x00utf8", Note{File: f, Msg: "invalid UTF-8 replaced by U+FFFD before parsing"})
			}
			name := strings.TrimSuffix(path.Base(f), path.Ext(f))
			// The log is read here once, to check it and recognise its
			// program, and again whenever a rule asks for its text (Run.Text):
			// a snapshot of many large logs is never held in memory at once.
			r := &Run{Name: name, File: f, Source: f, Index: len(s.Runs), Line: 1,
				Duration: Field{Name: "duration", Null: true}, Extra: map[string]string{},
				fsys: s.FS, textFile: f, textSum: sum}
			if j := s.Run(name); j != nil {
				return &Error{File: f, Msg: fmt.Sprintf("duplicate run name %q (also %s line %d)", name, j.File, j.Line)}
			}
			side := strings.TrimSuffix(f, path.Ext(f)) + lg.Sidecar
			if s.present(side) {
				if err := s.readSidecar(r, side, lg.Fields); err != nil {
					return err
				}
			}
			if len(r.Cmd) > 0 {
				r.Parser = s.program(r.Cmd[0])
			} else if s.formats != nil {
				r.Parser = s.formats.Recognize(data)
			}
			s.addRun(r)
		}
	}
	return nil
}

func (s *Snapshot) readSidecar(r *Run, file string, f checkout.Fields) error {
	data, err := s.FS.ReadFile(file, snapfs.LimitText)
	if err != nil {
		return err
	}
	doc, err := jsontree.ParseDoc(file, data)
	if err != nil {
		return err
	}
	d := &decoder{p: doc}
	tmp := &Snapshot{Spec: s.Spec, notes: s.notes, formats: s.formats}
	rec := doc.Root
	key := "" // the record's name field names the run, or else the log file does
	if rec.Kind == 'o' && rec.Lookup(f.Name) == nil {
		key = r.Name
	}
	f.Tail = ""
	tmp.decodeRun(d, rec, r.Index, key, f)
	if d.err != nil {
		return d.err
	}
	for _, n := range tmp.Notes {
		// The log beside the sidecar is the run's output: a sidecar without
		// one is as it should be, not a gap worth an info line.
		// The binary and inputs keys are read below: not unused keys.
		files := strings.HasSuffix(n.Path, sidecarBinary) || strings.HasSuffix(n.Path, sidecarInputs)
		if !strings.HasSuffix(n.Msg, noTailNote) && !(files && strings.HasPrefix(n.Msg, "run key kept")) {
			s.Notes = append(s.Notes, n)
		}
	}
	if len(tmp.Runs) != 1 {
		return &Error{File: file, Msg: "sidecar is not one run record"}
	}
	got := tmp.Runs[0]
	r.Cmd, r.Env, r.CarriedOver, r.ExitCode, r.HasExit = got.Cmd, got.Env, got.CarriedOver, got.ExitCode, got.HasExit
	r.Duration, r.DurationS, r.Start, r.Group, r.Extra = got.Duration, got.DurationS, got.Start, got.Group, got.Extra
	return readSidecarFiles(d, doc.Root, file, r)
}

// Keys of a sidecar that record the files of a run.
const (
	sidecarBinary = "binary" // {"path", "sha256"}: the program the run ran
	sidecarInputs = "inputs" // [{"path", "sha256"}]: the files it read
)

// readSidecarFiles reads a sidecar's record of the run's binary and inputs
// with their sha256s (the log folder's provenance), taking them out of the
// run's unused keys.
func readSidecarFiles(d *decoder, root *jsontree.Node, file string, r *Run) error {
	if root.Kind != 'o' {
		return nil
	}
	if b := root.Get(sidecarBinary); b != nil {
		if !d.object(b, []string{"sha256"}, "path") {
			return d.err
		}
		sum := d.str(b.Get("sha256"))
		if p := b.Get("path"); p != nil {
			d.str(p)
		}
		if d.err == nil && !validHex(sum, 64) {
			d.fail(b.Get("sha256"), "not a sha256 in hex: %q", sum)
		}
		if d.err != nil {
			return d.err
		}
		r.BinarySHA256 = sum
		delete(r.Extra, sidecarBinary)
	}
	if in := root.Get(sidecarInputs); in != nil {
		if in.Kind != 'a' {
			d.fail(in, "want an array, found %s", jsontree.KindName(in.Kind))
			return d.err
		}
		r.Inputs = []*ProvFile{}
		seen := map[string]bool{}
		for _, fn := range in.Vals {
			if !d.object(fn, []string{"path", "sha256"}, "bytes") {
				return d.err
			}
			f := &ProvFile{File: file, JSONPath: fn.Path, Line: d.line(fn), Path: d.str(fn.Get("path")), SHA256: d.str(fn.Get("sha256"))}
			if b := fn.Get("bytes"); b != nil {
				f.Bytes = int64(d.integer(b))
			}
			switch {
			case d.err != nil:
			case !validHex(f.SHA256, 64):
				d.fail(fn.Get("sha256"), "not a sha256 in hex: %q", f.SHA256)
			case f.Path == "":
				d.fail(fn.Get("path"), "empty path")
			case seen[f.Path]:
				d.fail(fn.Get("path"), "duplicate input path %q", f.Path)
			}
			if d.err != nil {
				return d.err
			}
			seen[f.Path] = true
			r.Inputs = append(r.Inputs, f)
		}
		delete(r.Extra, sidecarInputs)
	}
	return nil
}

// loadBench reads llama-bench output files as runs, one a file, named by
// the file's base name without extensions.
func (s *Snapshot) loadBench() error {
	for _, g := range s.Spec.Bench {
		files, err := s.FS.Glob(g)
		if err != nil {
			return err
		}
		s.noteEmpty(g, files, "bench")
		for _, f := range files {
			data, err := s.FS.ReadFile(f, snapfs.LimitResults)
			if err != nil {
				return err
			}
			name := path.Base(f)
			for ext := path.Ext(name); ext != ""; ext = path.Ext(name) {
				name = strings.TrimSuffix(name, ext)
			}
			if j := s.Run(name); j != nil {
				return &Error{File: f, Msg: fmt.Sprintf("duplicate run name %q (also %s line %d)", name, j.File, j.Line)}
			}
			r := &Run{Name: name, File: f, Cmd: []string{"llama-bench"}, Parser: s.program("llama-bench"),
				Tail: string(data), Source: f, Index: len(s.Runs), Line: 1, Duration: Field{Name: "duration", Null: true}, Extra: map[string]string{}}
			// A sidecar beside the output (runs/NAME.json for
			// runs/NAME.bench.json) records what the output cannot: the
			// command, exit, duration, binary and inputs. The output stays
			// llama-bench's, whatever argv[0] it records.
			if side := path.Join(path.Dir(f), name+".json"); side != f && s.present(side) {
				if err := s.readSidecar(r, side, checkout.DefaultFields()); err != nil {
					return err
				}
				if len(r.Cmd) == 0 {
					r.Cmd = []string{"llama-bench"}
				}
			}
			s.addRun(r)
		}
	}
	return nil
}

func decodeMtimes(file string, data []byte) (map[string]Mtime, error) {
	doc, err := jsontree.ParseDoc(file, data)
	if err != nil {
		return nil, err
	}
	root := doc.Root
	d := &decoder{p: doc}
	if !d.object(root, []string{"tz", "files"}) {
		return nil, d.err
	}
	d.str(root.Get("tz"))
	fn := root.Get("files")
	if fn.Kind != 'o' {
		d.fail(fn, "want an object, found %s", jsontree.KindName(fn.Kind))
		return nil, d.err
	}
	out := map[string]Mtime{}
	for i, k := range fn.Keys {
		text := d.str(fn.Vals[i])
		if d.err != nil {
			return nil, d.err
		}
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			d.fail(fn.Vals[i], "not an RFC 3339 time: %q", text)
			return nil, d.err
		}
		out[k] = Mtime{Time: t, Text: text}
	}
	if d.err != nil {
		return nil, d.err
	}
	return out, nil
}

// program returns the format for a run's argv[0], "" when none is known.
func (s *Snapshot) program(argv0 string) string {
	if s.formats == nil {
		return ""
	}
	name, _ := s.formats.Program(argv0)
	return name
}

// block is one repeated block of a record file: its lines, and its text
// with every line outside the block blanked, so that line numbers stay the
// file's.
type block struct {
	First, Last int // 1-based lines of the block in the file
	Text        string
}

// splitBlocks splits text into the blocks start begins; lines before the
// first start belong to no block, and a text start never matches is one
// block.
func splitBlocks(text string, start *regexp.Regexp) []block {
	lines := strings.SplitAfter(text, "\n")
	var starts []int
	for i, l := range lines {
		if start.MatchString(strings.TrimRight(l, "\r\n")) {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return []block{{First: 1, Last: len(lines), Text: text}}
	}
	out := make([]block, 0, len(starts))
	for k, s := range starts {
		e := len(lines)
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		var b strings.Builder
		for i, l := range lines {
			if i >= s && i < e {
				b.WriteString(l)
			} else if strings.HasSuffix(l, "\n") {
				b.WriteByte('\n')
			}
		}
		out = append(out, block{First: s + 1, Last: e, Text: b.String()})
	}
	return out
}

// readRecords reads the record file rel in the format g names ("" for the
// record kind's built-in, which the readers of records name): one record,
// or one per block where the format splits the file into repeated blocks
// (each named NAME#k, its text the file's with the other blocks' lines
// blanked, so that line numbers stay the file's). A .json file holds the
// records themselves (readJSONRecords).
func (s *Snapshot) readRecords(rel string, g checkout.Record) ([]*Record, error) {
	name := g.Format
	if path.Ext(rel) == ".json" {
		return s.readJSONRecords(rel, g)
	}
	start := s.Spec.BlockStart(name)
	if start == nil {
		rec, err := s.readRecord(rel)
		if err != nil {
			return nil, err
		}
		rec.Format = name
		if err := s.transcriptLines(rec, name); err != nil {
			return nil, err
		}
		return []*Record{rec}, nil
	}
	data, err := s.FS.ReadFile(rel, snapfs.LimitResults)
	if err != nil {
		return nil, err
	}
	blocks := splitBlocks(string(data), start)
	out := make([]*Record, 0, len(blocks))
	lines := strings.SplitAfter(string(data), "\n")
	for k, b := range blocks {
		rec, err := parseRecord(rel, []byte(strings.Join(lines[b.First-1:b.Last], "")))
		if err != nil {
			return nil, err
		}
		if !rec.HasExit {
			rec.Exit = -1
		}
		rec.Name = fmt.Sprintf("%s#%d", rec.Name, k+1)
		rec.Text, rec.Format, rec.Block = b.Text, name, k+1
		if err := s.transcriptLines(rec, name); err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// readJSONRecords reads a JSON record file: an array of records (each
// record k of it named NAME#k unless it has a name field) or one record
// object, mapped by g's fields to argv, env, exit status and the program's
// output, which is the record's text.
func (s *Snapshot) readJSONRecords(rel string, g checkout.Record) ([]*Record, error) {
	doc, err := s.Doc(rel)
	if err != nil {
		return nil, err
	}
	elems := []*jsontree.Node{doc.Root}
	if doc.Root.Kind == 'a' {
		elems = doc.Root.Vals
	}
	base := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	g.Fields = g.Fields.WithDefaults()
	out := make([]*Record, 0, len(elems))
	for k, el := range elems {
		d := &decoder{p: doc}
		tmp := &Snapshot{Spec: s.Spec, notes: s.notes, formats: s.formats}
		key := ""
		if el.Kind == 'o' && el.Lookup(g.Fields.Name) == nil {
			key = base
			if doc.Root.Kind == 'a' {
				key = fmt.Sprintf("%s#%d", base, k+1)
			}
		}
		tmp.decodeRun(d, el, k, key, g.Fields)
		if d.err != nil {
			return nil, d.err
		}
		s.Notes = append(s.Notes, tmp.Notes...)
		if len(tmp.Runs) != 1 {
			return nil, &Error{File: rel, Msg: fmt.Sprintf("%s: not one record", el.Path)}
		}
		r := tmp.Runs[0]
		if r.Tail == "" && el.Lookup(g.Fields.Tail) == nil {
			return nil, doc.Errorf(el, "record has no %q (the program's output; map it with the record kind's fields.tail in %s)", g.Fields.Tail, checkout.File)
		}
		rec := &Record{Name: r.Name, File: rel, Cmd: r.Cmd, Env: r.Env, Exit: r.ExitCode, HasExit: r.HasExit, Text: r.Tail, Format: g.Format}
		if doc.Root.Kind == 'a' {
			rec.Block = k + 1
		}
		if rec.Env == nil && !r.CarriedOver {
			rec.Env = map[string]string{}
		}
		if !rec.HasExit {
			rec.Exit = -1
		}
		if err := s.transcriptLines(rec, g.Format); err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// transcriptLines sets a record's command and exit status from the lines
// its format declares for them (a transcript's "$ cmd" and "exit 0"), when
// the record has no header giving them. An exit line that declares no
// integer is an error at its line.
func (s *Snapshot) transcriptLines(rec *Record, format string) error {
	cmdRe, exitRe := s.Spec.TranscriptLines(format)
	if cmdRe == nil && exitRe == nil {
		return nil
	}
	for i, line := range strings.Split(rec.Text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if cmdRe != nil && rec.Cmd == nil {
			if m := cmdRe.FindStringSubmatch(line); m != nil {
				rec.Cmd = strings.Fields(m[1])
				if rec.Env == nil {
					rec.Env = map[string]string{}
				}
			}
		}
		if exitRe == nil || rec.HasExit {
			continue
		}
		if m := exitRe.FindStringSubmatch(line); m != nil {
			n, err := strconv.Atoi(strings.TrimSpace(m[1]))
			if err != nil {
				return &Error{File: rec.File, Line: i + 1, Col: 1, Msg: fmt.Sprintf("exit status %q is not an integer", m[1])}
			}
			rec.Exit, rec.HasExit = n, true
		}
	}
	return nil
}

// readRecord reads a text record: the program's own output, with the
// command that produced it from a "# cmd/env/exit" header when the file
// has one, else from a sidecar run record beside it (the same path with
// ".json" in place of the extension, with the default field names: cmd,
// env, exit_code). With neither, the record's command is not known: Cmd
// and Env are nil and HasExit is false.
func (s *Snapshot) readRecord(rel string) (*Record, error) {
	data, err := s.FS.ReadFile(rel, snapfs.LimitResults)
	if err != nil {
		return nil, err
	}
	rec, err := parseRecord(rel, data)
	if err != nil || rec.HasExit || rec.Cmd != nil {
		return rec, err
	}
	side := strings.TrimSuffix(rel, path.Ext(rel)) + ".json"
	if !s.present(side) {
		return rec, nil
	}
	r := &Run{Name: rec.Name, Extra: map[string]string{}}
	if err := s.readSidecar(r, side, checkout.DefaultFields()); err != nil {
		return nil, err
	}
	rec.Cmd, rec.Env, rec.Exit, rec.HasExit = r.Cmd, r.Env, r.ExitCode, r.HasExit
	if rec.Env == nil && !r.CarriedOver {
		rec.Env = map[string]string{}
	}
	if !rec.HasExit {
		rec.Exit = -1
	}
	return rec, nil
}

// parseRecord parses the bytes of the text record at rel (relative to the
// snapshot root) and its optional header: "# cmd:", "# env:" and
// "# exit:" lines, the first lines of the file. A header, when present,
// needs "# cmd:" and "# exit:"; without one, Cmd and Env are nil and
// HasExit is false.
func parseRecord(rel string, data []byte) (*Record, error) {
	rec := &Record{Name: strings.TrimSuffix(path.Base(rel), path.Ext(rel)), File: rel, Text: string(data), Exit: -1}
	seen := map[string]bool{}
	for i, line := range strings.Split(rec.Text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if !strings.HasPrefix(line, "# ") {
			break
		}
		key, val, ok := strings.Cut(strings.TrimPrefix(line, "# "), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		errAt := func(format string, args ...any) error {
			return &Error{File: rel, Line: i + 1, Col: 1, Msg: fmt.Sprintf(format, args...)}
		}
		if !utf8.ValidString(line) {
			return nil, errAt("invalid UTF-8 in header")
		}
		switch key {
		case "cmd", "env", "exit":
			if seen[key] {
				return nil, errAt("duplicate %q header", key)
			}
			seen[key] = true
		}
		switch key {
		case "cmd":
			rec.Cmd = strings.Fields(val)
		case "env":
			rec.Env = map[string]string{}
			for _, kv := range strings.Fields(val) {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return nil, errAt("env entry %q is not K=V", kv)
				}
				rec.Env[k] = v
			}
		case "exit":
			n, err := strconv.Atoi(val)
			if err != nil {
				return nil, errAt("exit status %q is not an integer", val)
			}
			rec.Exit, rec.HasExit = n, true
		}
	}
	if len(seen) == 0 {
		return rec, nil // no header: the program's own output only
	}
	if !seen["cmd"] || !seen["exit"] {
		return nil, &Error{File: rel, Line: 1, Msg: `a record header needs "# cmd:" and "# exit:" lines`}
	}
	if rec.Cmd == nil {
		rec.Cmd = []string{}
	}
	if rec.Env == nil {
		rec.Env = map[string]string{}
	}
	return rec, nil
}

// present reports whether an optional input is there; one that is there but
// refused (a link outside the root, unreadable) is remembered as the
// loader's error, returned by LoadSpec, rather than skipped.
func (s *Snapshot) present(rel string) bool {
	ok, err := s.FS.Present(rel)
	if err != nil && s.loadErr == nil {
		s.loadErr = err
	}
	return ok
}

// noteEmpty notes a glob the checkout's spec file declared that matches no
// file: a typo there would otherwise drop every run silently. The defaults'
// globs (no spec file) may match nothing.
func (s *Snapshot) noteEmpty(glob string, matched []string, key string) {
	if len(matched) > 0 || s.Spec.Path == "" || key != "records.parity" && !s.Spec.Declared(key) {
		return
	}
	s.note(key+"\x00"+glob, Note{File: s.Spec.Path, Msg: fmt.Sprintf("%s: %s matches no file", key, glob)})
}

// fieldsSeen gathers, record by record, which declared field paths some
// run record has, for a note on each that none has.
type fieldsSeen struct {
	fields  []struct{ name, path string }
	found   []bool
	records int
}

func newFieldsSeen(declared checkout.Fields) *fieldsSeen {
	f := &fieldsSeen{}
	for _, fp := range []struct{ name, path string }{{"argv", declared.Argv}, {"env", declared.Env}, {"exit", declared.Exit},
		{"duration", declared.Duration}, {"tail", declared.Tail}, {"start", declared.Start}, {"group", declared.Group}} {
		if fp.path != "" {
			f.fields = append(f.fields, fp)
		}
	}
	f.found = make([]bool, len(f.fields))
	return f
}

// add looks for the fields in one run record.
func (f *fieldsSeen) add(rn *jsontree.Node) {
	f.records++
	for i, fp := range f.fields {
		if !f.found[i] && rn.Lookup(fp.path) != nil {
			f.found[i] = true
		}
	}
}

// note notes every declared field no record of file has (none when file
// has no records).
func (f *fieldsSeen) note(s *Snapshot, file string) {
	if f.records == 0 {
		return
	}
	for i, fp := range f.fields {
		if !f.found[i] {
			s.note(file+"\x00field\x00"+fp.name, Note{File: s.Spec.Path, Msg: fmt.Sprintf("fields.%s: no run record of %s has %q", fp.name, file, fp.path)})
		}
	}
}
