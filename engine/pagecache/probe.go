package pagecache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
)

// ProbeFormat is the format tag a mincore probe record carries.
const ProbeFormat = "strataspec-mincore-probe/1"

// Probe is the archived record of a mincore probe of a runner's page-cache
// helpers (results/mincore_probe.json in a snapshot): which helpers the
// runner calls, on which files, what each returned and what mincore measured
// before and after, and which files the arena fill reads.
//
// The format, field by field:
//
//	{
//	  "format": "strataspec-mincore-probe/1",
//	  "probe": {"tool": "…", "page_size": 16384, "file_size": 268435456},
//	  "arena_fill": {"files": ["models/X.gguf.experts"], "io": "pread, F_NOCACHE"},
//	  "helpers": [
//	    {"name": "evict_file_cache", "op": "evict", "mechanism": "…",
//	     "targets": ["models/X.gguf"], "returned": true,
//	     "before": 1.00, "after": 1.00}
//	  ],
//	  "note": "…"                      (optional)
//	}
//
// Residencies are fractions of the probe file's pages, 0 to 1. Every field
// but "note" is required; unknown fields are errors.
type Probe struct {
	File      string // as given to ParseProbe
	Tool      string
	PageSize  int64
	FileSize  int64
	FillFiles []string // files the arena fill reads
	FillIO    string   // how it reads them
	Helpers   []ProbeHelper
	Note      string
}

// ProbeHelper is one page-cache helper of the runner, as probed.
type ProbeHelper struct {
	Name      string
	Op        Op
	Mechanism string
	Targets   []string // files the runner passes to it
	Returned  bool     // what the helper reported
	Before    float64  // resident fraction before the call, measured by mincore
	After     float64  // resident fraction after
	BeforeRaw string   // the numbers as printed in the record
	AfterRaw  string
	Line      int    // 1-based line of the helper's "name" in the record
	Path      string // JSON path of the helper, e.g. "$.helpers[0]"
}

// ParseProbe decodes a probe record strictly. Errors name the file and the
// JSON path of the offending value.
func ParseProbe(file string, data []byte) (*Probe, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d: %w", file, bytes.Count(data[:min(se.Offset, int64(len(data)))], []byte("\n"))+1, err)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: $: trailing data after the record", file)
	}
	p := &Probe{File: file}
	d := decoder{file: file}
	root := d.object("$", v, "format", "probe", "arena_fill", "helpers", "?note")
	if f := d.str("$.format", root["format"]); d.err == nil && f != ProbeFormat {
		d.fail("$.format", fmt.Sprintf("%q; want %q", f, ProbeFormat))
	}
	pr := d.object("$.probe", root["probe"], "tool", "page_size", "file_size")
	p.Tool = d.str("$.probe.tool", pr["tool"])
	p.PageSize = d.posInt("$.probe.page_size", pr["page_size"])
	p.FileSize = d.posInt("$.probe.file_size", pr["file_size"])
	af := d.object("$.arena_fill", root["arena_fill"], "files", "io")
	p.FillFiles = d.strs("$.arena_fill.files", af["files"])
	p.FillIO = d.str("$.arena_fill.io", af["io"])
	if root["note"] != nil {
		p.Note = d.str("$.note", root["note"])
	}
	hs, ok := root["helpers"].([]any)
	if !ok && d.err == nil {
		d.fail("$.helpers", "want an array")
	}
	for i, h := range hs {
		path := fmt.Sprintf("$.helpers[%d]", i)
		o := d.object(path, h, "name", "op", "mechanism", "targets", "returned", "before", "after")
		ph := ProbeHelper{Path: path}
		ph.Name = d.str(path+".name", o["name"])
		switch op := Op(d.str(path+".op", o["op"])); op {
		case OpEvict, OpWarm:
			ph.Op = op
		default:
			d.fail(path+".op", fmt.Sprintf("%q; want %q or %q", op, OpEvict, OpWarm))
		}
		ph.Mechanism = d.str(path+".mechanism", o["mechanism"])
		ph.Targets = d.strs(path+".targets", o["targets"])
		if b, ok := o["returned"].(bool); ok {
			ph.Returned = b
		} else {
			d.fail(path+".returned", "want true or false")
		}
		ph.Before, ph.BeforeRaw = d.fraction(path+".before", o["before"])
		ph.After, ph.AfterRaw = d.fraction(path+".after", o["after"])
		ph.Line = lineOf(data, ph.Name)
		p.Helpers = append(p.Helpers, ph)
	}
	if d.err != nil {
		return nil, d.err
	}
	return p, nil
}

// decoder validates a decoded JSON value, keeping the first error.
type decoder struct {
	file string
	err  error
}

func (d *decoder) fail(path, msg string) {
	if d.err == nil {
		d.err = fmt.Errorf("%s: %s: %s", d.file, path, msg)
	}
}

// object checks that v is an object with exactly the given keys (a key
// prefixed with "?" is optional).
func (d *decoder) object(path string, v any, keys ...string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			d.fail(path, "missing")
		} else {
			d.fail(path, "want an object")
		}
		return nil
	}
	known := map[string]bool{}
	for _, k := range keys {
		opt := k[0] == '?'
		if opt {
			k = k[1:]
		}
		known[k] = true
		if _, ok := m[k]; !ok && !opt {
			d.fail(path+"."+k, "missing")
		}
	}
	var extra []string
	for k := range m {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	if len(extra) > 0 {
		d.fail(path+"."+extra[0], "unknown field")
	}
	return m
}

func (d *decoder) str(path string, v any) string {
	s, ok := v.(string)
	if !ok {
		d.fail(path, "want a string")
	} else if s == "" {
		d.fail(path, "empty")
	}
	return s
}

func (d *decoder) strs(path string, v any) []string {
	a, ok := v.([]any)
	if !ok || len(a) == 0 {
		d.fail(path, "want a non-empty array of strings")
		return nil
	}
	out := make([]string, len(a))
	for i, e := range a {
		out[i] = d.str(fmt.Sprintf("%s[%d]", path, i), e)
	}
	return out
}

func (d *decoder) posInt(path string, v any) int64 {
	n, ok := v.(json.Number)
	if !ok {
		d.fail(path, "want a number")
		return 0
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || i <= 0 {
		d.fail(path, fmt.Sprintf("%s; want a positive integer", n))
	}
	return i
}

func (d *decoder) fraction(path string, v any) (float64, string) {
	n, ok := v.(json.Number)
	if !ok {
		d.fail(path, "want a number")
		return 0, ""
	}
	f, err := n.Float64()
	if err != nil || f < 0 || f > 1 {
		d.fail(path, fmt.Sprintf("%s; want a fraction from 0 to 1", n))
	}
	return f, n.String()
}

// lineOf returns the 1-based line of `"name": "value"` in data, or 0.
func lineOf(data []byte, value string) int {
	re := regexp.MustCompile(`"name"\s*:\s*` + regexp.QuoteMeta(strconv.Quote(value)))
	loc := re.FindIndex(data)
	if loc == nil {
		return 0
	}
	return bytes.Count(data[:loc[0]], []byte("\n")) + 1
}
