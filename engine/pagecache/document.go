package pagecache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/jsontree"
)

// DocumentFormat is the format tag of a residency document.
const DocumentFormat = "strataspec-residency/1"

// Document is what `tools/residency -format json` writes: one operation on
// one or more files, each with its reading (op "residency"), its result (op
// "evict" or "warm") or its error. A runner archives such documents beside
// its results so that an audit can read what the page cache held, measured,
// instead of what a helper returned.
//
//	{
//	  "format": "strataspec-residency/1",
//	  "op": "residency",                         (or "evict", "warm")
//	  "verified": true,                          (evict and warm only)
//	  "files": [
//	    {"reading": {"path": "/tmp/probe.gguf", "size": 268435456, "page_size": 16384,
//	                 "resident": 16384, "total": 16384, "method": "mincore"}},
//	    {"result": {…Result…}},
//	    {"error": "…"}
//	  ]
//	}
type Document struct {
	Format   string  `json:"format"`
	Op       string  `json:"op"`                 // "residency", "evict" or "warm"
	Verified *bool   `json:"verified,omitempty"` // every file verified (evict, warm)
	Files    []Entry `json:"files"`
}

// Entry is one file of a Document.
type Entry struct {
	Reading *Reading `json:"reading,omitempty"`
	Result  *Result  `json:"result,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// ParseDocument decodes a residency document strictly: the format tag must
// be DocumentFormat, unknown fields are errors, and every entry has exactly
// one of reading, result and error, matching the op. Errors name the file
// (name) and the line; the lines come from engine/jsontree, as every
// reader's do.
func ParseDocument(name string, data []byte) (*Document, error) {
	lines := jsontree.NewLineIndex(data)
	line := func(off int64) int {
		l, _ := lines.Pos(int(min(max(off, 0), int64(len(data)))))
		return l
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d Document
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, errorLine(name, data, line, dec, err), err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s:%d: data after the document", name, line(dec.InputOffset()))
	}
	tree, err := jsontree.ParseDoc(name, data) // the places of what decoded
	if err != nil {
		return nil, err
	}
	at := func(n *jsontree.Node, format string, args ...any) error {
		if n == nil {
			n = tree.Root
		}
		return fmt.Errorf("%s:%d: %s", name, tree.Line(n), fmt.Sprintf(format, args...))
	}
	if d.Format != DocumentFormat {
		return nil, at(tree.Root.Get("format"), "format %q; want %q", d.Format, DocumentFormat)
	}
	if d.Op != "residency" && d.Op != string(OpEvict) && d.Op != string(OpWarm) {
		return nil, at(tree.Root.Get("op"), "op %q; want residency, evict or warm", d.Op)
	}
	files := tree.Root.Get("files")
	if len(d.Files) == 0 {
		return nil, at(files, "no files")
	}
	errf := func(i int, format string, args ...any) error {
		var n *jsontree.Node
		if files != nil && i < len(files.Vals) {
			n = files.Vals[i]
		}
		return at(n, format, args...)
	}
	for i, e := range d.Files {
		n := 0
		for _, set := range []bool{e.Reading != nil, e.Result != nil, e.Error != ""} {
			if set {
				n++
			}
		}
		switch {
		case n != 1:
			return nil, errf(i, "files[%d] has %d of reading, result and error; want one", i, n)
		case e.Reading != nil && d.Op != "residency", e.Result != nil && d.Op == "residency":
			return nil, errf(i, "files[%d]: a %s document holds readings for op residency, results for evict and warm", i, d.Op)
		}
	}
	return &d, nil
}

// errorLine returns the line of a decoding error: the offset a syntax or
// type error names, an unknown field's key in the tree, else where the
// decoder stopped.
func errorLine(name string, data []byte, line func(int64) int, dec *json.Decoder, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return line(se.Offset - 1) // Offset counts the offending byte
	case errors.As(err, &te):
		return line(te.Offset - 1)
	}
	if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		key, _ = strconv.Unquote(key)
		if tree, terr := jsontree.ParseDoc(name, data); terr == nil {
			if n := tree.Root.Find(func(k string, _ *jsontree.Node) bool { return k == key }); n != nil {
				return tree.Line(n)
			}
		}
	}
	return line(dec.InputOffset())
}

// TextReading is one reading of a text transcript, with its line.
type TextReading struct {
	Reading
	Line int // 1-based line of the reading in the transcript
}

// textLine is a reading as `tools/residency FILE` prints it:
// "PATH: R/T pages (P %) resident, N-byte pages (METHOD)", with an optional
// " [tmpfs; unverifiable: …]" note.
var textLine = regexp.MustCompile(`^(.+): (\d+)/(\d+) pages \(([0-9.]+) %\) resident, (\d+)-byte pages \(([a-z]+)\)(?: \[(.*)\])?$`)

// FormatText formats a reading of the file at path as one line of
// `tools/residency FILE`'s text output, which ParseText reads back.
func FormatText(path string, r Reading) string {
	var n []string
	if r.Tmpfs {
		n = append(n, "tmpfs")
	}
	if r.Unverifiable != "" {
		n = append(n, "unverifiable: "+r.Unverifiable)
	}
	note := ""
	if len(n) > 0 {
		note = " [" + strings.Join(n, "; ") + "]"
	}
	return fmt.Sprintf("%s: %s resident, %d-byte pages (%s)%s", path, r.Count, r.PageSize, r.Method, note)
}

// ParseText reads the residency readings of a text transcript: every line
// that is a reading as `tools/residency FILE` prints it (other lines, such
// as the commands and the helpers' output between readings, are the
// transcript's and are skipped). A reading line whose counts disagree (more
// resident pages than pages, a percentage that is not theirs) is an error
// at its line; so is a transcript with no reading.
func ParseText(name string, data []byte) ([]TextReading, error) {
	var out []TextReading
	for i, l := range strings.Split(string(data), "\n") {
		m := textLine.FindStringSubmatch(strings.TrimSuffix(l, "\r"))
		if m == nil {
			continue
		}
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, args...))
		}
		res, err1 := strconv.ParseInt(m[2], 10, 64)
		tot, err2 := strconv.ParseInt(m[3], 10, 64)
		page, err3 := strconv.Atoi(m[5])
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, errf("%v", err)
		}
		r := Reading{Path: m[1], PageSize: page, Count: Count{Resident: res, Total: tot}, Method: m[6]}
		switch {
		case res > tot:
			return nil, errf("%d resident pages of %d", res, tot)
		case page <= 0:
			return nil, errf("page size %d", page)
		case fmt.Sprintf("%.2f", 100*r.Fraction()) != m[4]:
			return nil, errf("%s %% is not %d/%d", m[4], res, tot)
		}
		for _, note := range strings.Split(m[7], "; ") {
			switch {
			case note == "tmpfs":
				r.Tmpfs = true
			case strings.HasPrefix(note, "unverifiable: "):
				r.Unverifiable = strings.TrimPrefix(note, "unverifiable: ")
			case note != "":
				return nil, errf("unknown note %q", note)
			}
		}
		out = append(out, TextReading{Reading: r, Line: i + 1})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s:1: no residency reading (a line as tools/residency FILE prints it: \"PATH: R/T pages (P %%) resident, N-byte pages (METHOD)\")", name)
	}
	return out, nil
}
