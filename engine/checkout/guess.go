package checkout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// Key names Guess looks for in a run record, most likely first.
var guessKeys = map[string][]string{
	"name":     {"name", "run", "id", "label", "test", "title"},
	"argv":     {"cmd", "argv", "command", "args", "cmdline", "command_line"},
	"env":      {"env", "environment"},
	"exit":     {"exit_code", "exit", "returncode", "return_code", "status", "rc"},
	"duration": {"duration_s", "duration", "elapsed_s", "elapsed", "seconds", "wall_s", "time_s"},
	"tail":     {"output_tail", "output", "stdout", "log", "tail", "stderr"},
	"start":    {"start", "started_at", "start_time", "timestamp", "time"},
	"group":    {"group", "kind", "category"},
}

// Guess inspects a directory and returns a starter spec for it, with one
// line per guess it made (and per file it could not place), for a person to
// read before adopting the spec. It reads through fsys, so it stays inside
// the directory. isBench reports whether a file's text is llama-bench
// output (engine/format.LooksLikeBench: the format registry recognises
// content; checkout, which the analysis driver imports, holds no format).
func Guess(fsys *snapfs.FS, isBench func([]byte) bool) (*Spec, []string, error) {
	files, err := fsys.Glob("**")
	if err != nil {
		return nil, nil, err
	}
	s := &Spec{}
	var said []string
	logDirs := map[string]bool{}
	for _, f := range files {
		if hidden(f) {
			continue
		}
		switch ext := path.Ext(f); {
		case f == File:
			said = append(said, fmt.Sprintf("%s: already present; the guess below ignores it", File))
		case f == "PLAN.md" || f == "PLAN.claims":
			said = append(said, fmt.Sprintf("%s: the plan's %s (default name)", f, map[string]string{"PLAN.md": "text", "PLAN.claims": "claims table"}[f]))
		case ext == ".json" || ext == ".jsonl":
			b, err := fsys.ReadFile(f, snapfs.LimitResults)
			if err != nil {
				said = append(said, fmt.Sprintf("%s: not read: %v", f, err))
				continue
			}
			said = append(said, s.guessJSON(f, b, files, isBench))
		case ext == ".log" || ext == ".txt" && strings.Contains(f, "log"):
			if b, err := fsys.ReadFile(f, snapfs.LimitResults); err == nil && isBench(b) {
				// llama-bench's stdout saved as a log: read as its output
				// (the log glob of its folder reads it so too, by content)
				said = append(said, fmt.Sprintf("%s: llama-bench output saved as a log (read by content)", f))
			}
			dir := path.Dir(f)
			if !logDirs[dir] {
				logDirs[dir] = true
				glob := path.Join(dir, "*"+ext)
				s.Logs = append(s.Logs, Logs{Glob: glob})
				said = append(said, fmt.Sprintf("%s: one run per log file (name = file name); a sidecar %s beside a log gives its argv, env, exit, duration", glob, "NAME.json"))
			}
		case ext == ".csv" || ext == ".md":
			b, err := fsys.ReadFile(f, snapfs.LimitResults)
			switch {
			case err != nil && ext == ".csv":
				said = append(said, fmt.Sprintf("%s: not read: %v", f, err))
			case err == nil && isBench(b):
				s.Bench = append(s.Bench, f)
				said = append(said, fmt.Sprintf("%s: llama-bench output (%s)", f, strings.TrimPrefix(ext, ".")))
			case err == nil && ext == ".csv":
				said = append(said, s.guessCSV(f, b))
			}
		}
	}
	if len(s.Results) == 0 && len(s.Logs) == 0 && len(s.Bench) == 0 {
		said = append(said, "no runs found: add a \"results\" entry (JSON, JSON Lines or CSV records) or a \"logs\" glob by hand")
	}
	return s, said, nil
}

func hidden(f string) bool {
	for _, part := range strings.Split(f, "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// guessJSON places one JSON file: llama-bench output, a file of run
// records, or a sidecar of a log.
func (s *Spec) guessJSON(f string, b []byte, files []string, isBench func([]byte) bool) string {
	stem := strings.TrimSuffix(f, path.Ext(f))
	for _, ext := range []string{".log", ".txt"} {
		if slices.Contains(files, stem+ext) {
			return fmt.Sprintf("%s: sidecar of %s", f, stem+ext)
		}
	}
	for _, g := range files {
		if strings.HasPrefix(g, stem+".bench.") {
			return fmt.Sprintf("%s: sidecar of %s (its cmd, exit, duration, binary and inputs are kept)", f, g)
		}
	}
	if isBench(b) {
		s.Bench = append(s.Bench, f)
		return fmt.Sprintf("%s: llama-bench output (json)", f)
	}
	first := b
	if path.Ext(f) == ".jsonl" {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			first = b[:i]
		}
	}
	doc, err := jsontree.ParseDoc(f, first)
	if err != nil {
		return fmt.Sprintf("%s: not placed: %v", f, err)
	}
	runsPath, rec := findRecords(doc.Root, "")
	if path.Ext(f) == ".jsonl" && doc.Root.Kind == 'o' {
		runsPath, rec = "", doc.Root
	}
	if rec == nil {
		return fmt.Sprintf("%s: not placed: no run records (an array of named records, or an object of records keyed by name, each with a command or output key)", f)
	}
	return s.guessRecord(f, runsPath, rec)
}

// guessCSV places a CSV file that is not llama-bench output: run records,
// one a row, when its header has a name-like column; else it says why the
// file is not placed.
func (s *Spec) guessCSV(f string, b []byte) string {
	rows, err := jsontree.ParseCSV(f, b)
	switch {
	case err != nil:
		return fmt.Sprintf("%s: not placed: %v", f, err)
	case len(rows) == 0:
		return fmt.Sprintf("%s: not placed: a header and no rows", f)
	}
	for _, k := range guessKeys["name"] {
		if rows[0].Doc.Root.Get(k) != nil {
			return s.guessRecord(f, "", rows[0].Doc.Root)
		}
	}
	return fmt.Sprintf("%s: not placed: no run records (no column named %s)", f, strings.Join(guessKeys["name"], ", "))
}

// guessRecord adds a results entry for the records of f at runsPath, its
// fields guessed from the keys of rec, the first record.
func (s *Spec) guessRecord(f, runsPath string, rec *jsontree.Node) string {
	r := Results{File: f, Runs: runsPath}
	var got []string
	for _, part := range []struct {
		key string
		dst *string
	}{{"name", &r.Fields.Name}, {"argv", &r.Fields.Argv}, {"env", &r.Fields.Env}, {"exit", &r.Fields.Exit},
		{"duration", &r.Fields.Duration}, {"tail", &r.Fields.Tail}, {"start", &r.Fields.Start}, {"group", &r.Fields.Group}} {
		for _, k := range guessKeys[part.key] {
			if rec.Get(k) != nil {
				*part.dst = k
				got = append(got, part.key+"="+k)
				break
			}
		}
	}
	s.Results = append(s.Results, r)
	where := runsPath
	if where == "" {
		where = "(top level)"
	}
	return fmt.Sprintf("%s: run records at %s; fields %s", f, where, strings.Join(got, ", "))
}

// findRecords finds the first array of objects that have a name-like key,
// breadth first, and returns its dotted path and first record.
func findRecords(n *jsontree.Node, at string) (string, *jsontree.Node) {
	hasName := func(o *jsontree.Node) bool {
		if o.Kind != 'o' {
			return false
		}
		for _, k := range guessKeys["name"] {
			if v := o.Get(k); v != nil && v.Kind == 's' {
				return runLike(o)
			}
		}
		return false
	}
	if n.Kind == 'a' && len(n.Vals) > 0 && hasName(n.Vals[0]) {
		return at, n.Vals[0]
	}
	if n.Kind != 'o' {
		return "", nil
	}
	for i, k := range n.Keys {
		v := n.Vals[i]
		if v.Kind == 'a' && len(v.Vals) > 0 && hasName(v.Vals[0]) && !strings.Contains(k, ".") {
			return join(at, k), v.Vals[0]
		}
		if keyedRecords(v) && !strings.Contains(k, ".") {
			return join(at, k), v.Vals[0]
		}
	}
	for i, k := range n.Keys {
		if n.Vals[i].Kind == 'o' && !strings.Contains(k, ".") {
			if p, r := findRecords(n.Vals[i], join(at, k)); r != nil {
				return p, r
			}
		}
	}
	return "", nil
}

// keyedRecords reports whether n is an object of run records keyed by run
// name: every member an object that is runLike.
func keyedRecords(n *jsontree.Node) bool {
	if n.Kind != 'o' || len(n.Vals) == 0 {
		return false
	}
	for _, v := range n.Vals {
		if v.Kind != 'o' || !runLike(v) {
			return false
		}
	}
	return true
}

// runLike reports whether the object o has a command or an output key: a
// run record, not a row of a table that names its run (a runner's summary
// rows, {"run": "x", "decode_tok_s": 9.51}).
func runLike(o *jsontree.Node) bool {
	for _, k := range append(slices.Clone(guessKeys["argv"]), guessKeys["tail"]...) {
		if o.Get(k) != nil {
			return true
		}
	}
	return false
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// Marshal encodes a spec as an indented spec file, omitting the defaults'
// empty parts.
func (s *Spec) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
