package jsontree

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// CSVRow is one record of a CSV file read as a JSON object, so that the
// readers of JSON records read it by the same dotted paths: the header's
// column names are its keys (a dotted name, "vm.swapout_mib", nests), each
// cell a string or the JSON value it spells (a number, true, false, null,
// an object, an array: an argv or an environment in one cell), an empty
// cell no key at all.
type CSVRow struct {
	Line int  // the file's line the record starts on
	Doc  *Doc // the record as a one-line JSON document (line 1: add Line-1)
	// Cells are the file's line and column of each non-empty cell, by its
	// header name (a key path of Doc): the document's own columns are
	// those of its JSON text, not of the file.
	Cells map[string]CSVCell
}

// CSVCell is the place of a cell in the CSV file: 1-based line and byte
// column.
type CSVCell struct{ Line, Col int }

// ParseCSV reads a CSV file (RFC 4180: a header row, then one record per
// row, cells quoted where they hold commas, quotes or line breaks) into its
// records. A row of another width than the header's, a column named twice
// or both as a value and as the parent of a dotted one, and text that is
// not CSV are errors naming the file and line. A UTF-8 byte-order mark,
// which spreadsheets write, is skipped.
func ParseCSV(file string, data []byte) ([]CSVRow, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, &Error{File: file, Msg: "empty: no header row naming the columns"}
	}
	if err != nil {
		return nil, csvError(file, err)
	}
	cols, err := csvColumns(file, header)
	if err != nil {
		return nil, err
	}
	var out []CSVRow
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		line, _ := r.FieldPos(0)
		var b bytes.Buffer
		writeCSVObject(&b, cols, rec)
		doc, err := ParseDoc(file, b.Bytes())
		if err != nil {
			return nil, &Error{File: file, Line: line, Msg: fmt.Sprintf("record: %v", err)}
		}
		cells := map[string]CSVCell{}
		for i, h := range header {
			if rec[i] != "" {
				l, c := r.FieldPos(i)
				cells[h] = CSVCell{l, c}
			}
		}
		out = append(out, CSVRow{Line: line, Doc: doc, Cells: cells})
	}
}

func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: file, Line: pe.Line, Col: pe.Column, Msg: pe.Err.Error()}
	}
	return &Error{File: file, Msg: err.Error()}
}

// csvColumn is a header cell: its path of keys, and its column.
type csvColumn struct {
	path []string
	i    int
}

// csvColumns checks the header: no empty or repeated name, no name that is
// both a value and the parent of another ("vm" and "vm.swapout_mib").
func csvColumns(file string, header []string) ([]csvColumn, error) {
	seen := map[string]bool{}
	var cols []csvColumn
	for i, h := range header {
		if h == "" || strings.Contains(h, "..") || strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") {
			return nil, &Error{File: file, Line: 1, Msg: fmt.Sprintf("header column %d: %q is no key path", i+1, h)}
		}
		if seen[h] {
			return nil, &Error{File: file, Line: 1, Msg: fmt.Sprintf("header column %d: %q named twice", i+1, h)}
		}
		seen[h] = true
		cols = append(cols, csvColumn{path: strings.Split(h, "."), i: i})
	}
	for h := range seen {
		for g := range seen {
			if strings.HasPrefix(g, h+".") {
				return nil, &Error{File: file, Line: 1, Msg: fmt.Sprintf("header: %q is a value and the parent of %q", h, g)}
			}
		}
	}
	return cols, nil
}

// writeCSVObject writes one record as a JSON object: the columns nest by
// their paths, in header order.
func writeCSVObject(b *bytes.Buffer, cols []csvColumn, rec []string) {
	b.WriteByte('{')
	first := true
	for k := 0; k < len(cols); k++ {
		c := cols[k]
		if len(c.path) == 1 {
			if rec[c.i] == "" {
				continue
			}
			csvKey(b, &first, c.path[0])
			b.Write(csvValue(rec[c.i]))
			continue
		}
		// the columns sharing this first key, wherever they stand, as one object
		if k > 0 && csvDone(cols[:k], c.path[0]) {
			continue
		}
		var sub []csvColumn
		for _, o := range cols[k:] {
			if len(o.path) > 1 && o.path[0] == c.path[0] {
				sub = append(sub, csvColumn{path: o.path[1:], i: o.i})
			}
		}
		var inner bytes.Buffer
		writeCSVObject(&inner, sub, rec)
		if inner.Len() > 2 {
			csvKey(b, &first, c.path[0])
			b.Write(inner.Bytes())
		}
	}
	b.WriteByte('}')
}

// csvDone reports whether a column before holds the first key already.
func csvDone(before []csvColumn, key string) bool {
	for _, o := range before {
		if len(o.path) > 1 && o.path[0] == key {
			return true
		}
	}
	return false
}

func csvKey(b *bytes.Buffer, first *bool, k string) {
	if !*first {
		b.WriteByte(',')
	}
	*first = false
	kb, _ := json.Marshal(k)
	b.Write(kb)
	b.WriteByte(':')
}

// csvValue is a cell as JSON: the value it spells when it is one, compact
// (a number, true, false, null, an object, an array), else a string.
func csvValue(cell string) []byte {
	t := strings.TrimSpace(cell)
	if t != "" && strings.ContainsRune("{[-0123456789tfn", rune(t[0])) && json.Valid([]byte(t)) {
		var c bytes.Buffer
		if json.Compact(&c, []byte(t)) == nil {
			return c.Bytes()
		}
	}
	s, _ := json.Marshal(cell)
	return s
}
