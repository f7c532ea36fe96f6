// Package cache holds the page-cache rules: a runner's eviction and warm-up
// helpers are judged by the residency records archived around each call
// (what `tools/residency -format json` writes), never by what they returned;
// and they must act on the files the arena fill reads.
//
// The checkout's spec declares the probe under "rules": {"cache": …}:
//
//	"cache": {
//	  "fill": {"files": ["models/X.gguf.experts"], "io": "pread, F_NOCACHE"},
//	  "helpers": [
//	    {"name": "evict_file_cache", "op": "evict", "mechanism": "…",
//	     "targets": ["models/X.gguf"], "returned": true,
//	     "before": "results/residency/evict.before.json",
//	     "after": "results/residency/evict.after.json"}
//	  ],
//	  "source": {"file": "scripts/runner.py", "function": "cache_target"}
//	}
//
// "before" and "after" are residency documents (pagecache.Document, op
// "residency", one file) measured on the probe file just before and just
// after the helper ran; "returned" is what the helper reported (optional);
// "source" (optional) names the runner source whose function returns the
// file name the helpers act on, as an f-string whose {…} fields stand for
// any text. Finding ids come from the spec's "ids" (for instance
// "cache.residency/evict").
package cache

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/strataspec/strataspec/engine/pagecache"
)

// Settings are the spec's "rules": {"cache": …}.
type Settings struct {
	Fill    Fill     `json:"fill"`
	Helpers []Helper `json:"helpers"`
	Source  *Source  `json:"source,omitempty"`
}

// Fill is what the arena fill reads, and how.
type Fill struct {
	Files []string `json:"files"`
	IO    string   `json:"io,omitempty"`
}

// Helper is one page-cache helper of the runner and the records of its
// probe.
type Helper struct {
	Name      string   `json:"name"`
	Op        string   `json:"op"` // "evict" or "warm"
	Mechanism string   `json:"mechanism,omitempty"`
	Targets   []string `json:"targets"`
	Returned  *bool    `json:"returned,omitempty"`
	Before    string   `json:"before"`
	After     string   `json:"after"`
}

// Source names the runner function that returns the helpers' target.
type Source struct {
	File     string `json:"file"`
	Function string `json:"function"`
}

// Probe is the fact the cache rules read: the settings, with each helper's
// records read and the lines to cite.
type Probe struct {
	Settings
	SpecFile string
	Helpers  []ProbedHelper
	// SourceLines holds the runner source's lines when Source is set.
	SourceLines []string
}

// ProbedHelper is a helper with its two readings.
type ProbedHelper struct {
	Helper
	SpecLine      int // line of the helper's name in the spec file
	Before, After *pagecache.Reading
	AfterLine     int // line of "resident" in the after record
}

// probeFact reads the probe the spec declares; its absence makes the rules
// not apply.
var probeFact = analysis.NewInput("cache probe", "the page-cache probe the spec declares, with its residency records", readProbe, facts.Sources.Analyzer).OwnedBy("cache.residency")

func readProbe(s *analysis.Pass) (*Probe, error) {
	spec := s.Spec
	var st Settings
	ok, err := spec.Rule("cache", &st)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, analysis.NoSettings("no page-cache probe declared (\"rules\": {\"cache\": …} in %s)", checkout.File)
	}
	p := &Probe{Settings: st, SpecFile: spec.Path}
	for i, h := range st.Helpers {
		line := spec.Line(fmt.Sprintf("rules.cache.helpers[%d]", i))
		if n := spec.Line(fmt.Sprintf("rules.cache.helpers[%d].name", i)); n > 0 {
			line = n
		}
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: rules.cache.helpers[%d]: %s", spec.Path, line, i, fmt.Sprintf(format, args...))
		}
		if h.Name == "" || h.Before == "" || h.After == "" {
			return nil, errf(`a helper needs "name", "before" and "after"`)
		}
		if h.Op != string(pagecache.OpEvict) && h.Op != string(pagecache.OpWarm) {
			return nil, errf("op %q; want evict or warm", h.Op)
		}
		ph := ProbedHelper{Helper: h, SpecLine: line}
		if ph.Before, _, err = reading(s, h.Before); err != nil {
			return nil, err
		}
		if ph.After, ph.AfterLine, err = reading(s, h.After); err != nil {
			return nil, err
		}
		p.Helpers = append(p.Helpers, ph)
	}
	if src := st.Source; src != nil {
		if src.File == "" || src.Function == "" {
			return nil, fmt.Errorf("%s:%d: rules.cache.source needs \"file\" and \"function\"", spec.Path, spec.Line("rules.cache.source"))
		}
		f, err := facts.Sources.Of(s).File(src.File)
		if err != nil {
			return nil, err
		}
		p.SourceLines = f.Lines
	}
	return p, nil
}

// residentLine returns the line of the first "resident" key of a
// residency record (one jsontree has parsed as ParseDocument did), 0 when
// there is none.
// residentLine is the line of a JSON record's "resident" count.
func residentLine(rel string, data []byte) int {
	doc, err := jsontree.ParseDoc(rel, data)
	if err != nil {
		return 0
	}
	if n := doc.Root.Find(func(key string, _ *jsontree.Node) bool { return key == "resident" }); n != nil {
		return doc.Line(n)
	}
	return 0
}

// refFile is the file of a reading's reference (FILE or FILE#N).
func refFile(ref string) string {
	if i := strings.LastIndexByte(ref, '#'); i >= 0 {
		return ref[:i]
	}
	return ref
}

// reading reads one residency record: a JSON document (tools/residency
// -format json FILE), or a reading of a text transcript, "FILE#N" for its
// N-th reading line (tools/residency FILE's output; the probe's commands
// and helper calls between readings are the transcript's own). It returns
// the reading and its line.
func reading(s *analysis.Pass, ref string) (*pagecache.Reading, int, error) {
	rel, nth := ref, 0
	if i := strings.LastIndexByte(ref, '#'); i >= 0 {
		n, err := strconv.Atoi(ref[i+1:])
		if err != nil || n < 1 {
			return nil, 0, fmt.Errorf("%s: %q: a reading is FILE or FILE#N (N from 1)", checkout.File, ref)
		}
		rel, nth = ref[:i], n
	}
	data, err := s.Snap.ReadFile(rel)
	if err != nil {
		return nil, 0, err
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		if nth != 0 {
			return nil, 0, fmt.Errorf("%s:1: a JSON residency record is one reading; %q selects reading %d of a text transcript", rel, ref, nth)
		}
		d, err := pagecache.ParseDocument(rel, data)
		if err != nil {
			return nil, 0, err
		}
		if d.Op != "residency" || len(d.Files) != 1 || d.Files[0].Reading == nil {
			return nil, 0, fmt.Errorf("%s:1: a probe record is the residency reading of one file (tools/residency -format json FILE), found op %s with %d files", rel, d.Op, len(d.Files))
		}
		return d.Files[0].Reading, residentLine(rel, data), nil
	}
	rs, err := pagecache.ParseText(rel, data)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case nth == 0 && len(rs) != 1:
		return nil, 0, fmt.Errorf("%s:%d: %d readings in the transcript: name one as %s#N", rel, rs[1].Line, len(rs), rel)
	case nth == 0:
		nth = 1
	case nth > len(rs):
		return nil, 0, fmt.Errorf("%s: %q: the transcript has %d readings", rel, ref, len(rs))
	}
	r := rs[nth-1]
	return &r.Reading, r.Line, nil
}

func missing(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
