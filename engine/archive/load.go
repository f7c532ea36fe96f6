package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/num"
)

// Load reads the snapshot rooted at root. Errors are *Error values naming
// the file and place, or wrap the OS error of a file that cannot be read.
func Load(root string) (*Snapshot, error) {
	s := &Snapshot{Root: root}
	data, err := os.ReadFile(s.Path(ResultsFile))
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if err := s.decodeResults(data); err != nil {
		return nil, err
	}
	if err := s.checkFiles(); err != nil {
		return nil, err
	}
	if err := s.loadRecords(); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadResults decodes a results file's bytes without touching the file
// system (no file checks, no records): for tests and fuzzing.
func LoadResults(root string, data []byte) (*Snapshot, error) {
	s := &Snapshot{Root: root}
	if err := s.decodeResults(data); err != nil {
		return nil, err
	}
	return s, nil
}

// decoder turns nodes into typed values, remembering the first error.
type decoder struct {
	p   *parser
	err *Error
}

func (d *decoder) fail(n *node, format string, args ...any) {
	if d.err == nil {
		d.err = d.p.errAt(n.off, n.path, format, args...)
	}
}

func (d *decoder) line(n *node) int {
	l, _ := d.p.lines.pos(n.off)
	return l
}

// object checks that n is an object with exactly the required keys plus
// any of the optional ones.
func (d *decoder) object(n *node, required []string, optional ...string) bool {
	if n.kind != 'o' {
		d.fail(n, "want an object, found %s", kindName(n.kind))
		return false
	}
	for i, k := range n.keys {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			d.fail(n.vals[i], "unknown key %q (known: %s)", k, strings.Join(append(append([]string(nil), required...), optional...), ", "))
			return false
		}
	}
	for _, k := range required {
		if n.get(k) == nil {
			d.fail(n, "missing key %q", k)
			return false
		}
	}
	return true
}

func (d *decoder) str(n *node) string {
	if n.kind != 's' {
		d.fail(n, "want a string, found %s", kindName(n.kind))
		return ""
	}
	return n.str
}

func (d *decoder) number(n *node, name string) Field {
	f := Field{Name: name, Path: n.path, Line: d.line(n)}
	switch n.kind {
	case 'z':
		f.Null = true
		return f
	case 'n':
		v, err := num.Parse(string(n.num))
		if err != nil || math.IsInf(v.Value, 0) {
			d.fail(n, "bad number %s", n.num)
		}
		f.Num = v
		return f
	}
	d.fail(n, "want a number, found %s", kindName(n.kind))
	return f
}

func (d *decoder) integer(n *node) int {
	if n.kind != 'n' {
		d.fail(n, "want an integer, found %s", kindName(n.kind))
		return 0
	}
	i, err := strconv.Atoi(string(n.num))
	if err != nil {
		d.fail(n, "want an integer, found %s", n.num)
	}
	return i
}

func (d *decoder) strings(n *node) []string {
	if n.kind != 'a' {
		d.fail(n, "want an array of strings, found %s", kindName(n.kind))
		return nil
	}
	out := make([]string, 0, len(n.vals))
	for _, v := range n.vals {
		out = append(out, d.str(v))
	}
	return out
}

// dict decodes an object of numbers (or nulls).
func (d *decoder) dict(n *node) *Dict {
	if n.kind != 'o' {
		d.fail(n, "want an object of numbers, found %s", kindName(n.kind))
		return &Dict{Path: n.path}
	}
	dt := &Dict{Path: n.path, Line: d.line(n)}
	for i, k := range n.keys {
		dt.Fields = append(dt.Fields, d.number(n.vals[i], k))
	}
	return dt
}

var topKeys = []string{"schema", "generated_at_utc", "runs", "perf", "summary_comparison", "kld_macros",
	"prev_llama_unpatched", "prev_llama_patched", "llama_cpp_unpatched", "llama_cpp_patched", "provenance"}

func (s *Snapshot) decodeResults(data []byte) error {
	p := &parser{file: ResultsFile, data: data, lines: newLineIndex(data)}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		// encoding/json would say "invalid character 'ï'".
		return &Error{File: ResultsFile, Line: 1, Col: 1, Msg: "starts with a UTF-8 byte-order mark; JSON does not allow one (save the file without a BOM)"}
	}
	root, perr := parseTree(ResultsFile, data)
	if perr != nil {
		return perr
	}
	if off := firstInvalidUTF8(data); off >= 0 {
		n := innermost(root, off)
		return p.errAt(off, n.path, "invalid UTF-8 (byte 0x%02x)", data[off])
	}
	d := &decoder{p: p}
	if !d.object(root, topKeys) {
		return d.err
	}
	s.Schema = d.str(root.get("schema"))
	gn := root.get("generated_at_utc")
	s.GeneratedAt = Field{Name: "generated_at_utc", Path: gn.path, Line: d.line(gn), Text: d.str(gn)}
	if d.err == nil {
		t, err := time.Parse(time.RFC3339Nano, s.GeneratedAt.Text)
		if err != nil {
			d.fail(gn, "not an RFC 3339 time: %q", s.GeneratedAt.Text)
		}
		s.GeneratedAtUTC = t
	}
	s.decodeRuns(d, root.get("runs"))
	s.decodePerf(d, root.get("perf"))
	s.decodeSummary(d, root.get("summary_comparison"))
	s.decodeMacros(d, root.get("kld_macros"))
	s.PrevLlama = map[string][]*LlamaStep{}
	s.LlamaCpp = map[string]*Dict{}
	for _, side := range []string{"unpatched", "patched"} {
		s.PrevLlama[side] = s.decodeSteps(d, root.get("prev_llama_"+side))
		if n := root.get("llama_cpp_" + side); d.err == nil {
			s.LlamaCpp[side] = d.dict(n)
		}
	}
	s.decodeProvenance(d, root.get("provenance"))
	if d.err != nil {
		return d.err
	}
	return nil
}

var runKeys = []string{"name", "group", "cmd", "env", "exit_code", "duration_s", "output_tail"}

func (s *Snapshot) decodeRuns(d *decoder, n *node) {
	if d.err != nil {
		return
	}
	if n.kind != 'a' {
		d.fail(n, "want an array of runs, found %s", kindName(n.kind))
		return
	}
	seen := map[string]int{}
	for i, rn := range n.vals {
		if !d.object(rn, runKeys) {
			return
		}
		r := &Run{Index: i, Line: d.line(rn)}
		r.Name = d.str(rn.get("name"))
		if d.err == nil && r.Name == "" {
			d.fail(rn.get("name"), "empty run name")
		}
		if j, dup := seen[r.Name]; dup && d.err == nil {
			d.fail(rn.get("name"), "duplicate run name %q (also runs[%d])", r.Name, j)
		}
		seen[r.Name] = i
		r.Group = d.str(rn.get("group"))
		if d.err == nil && !slices.Contains([]string{GroupSpeed, GroupTF, GroupLlamaUnpatched, GroupLlamaPatched}, r.Group) {
			d.fail(rn.get("group"), "unknown group %q", r.Group)
		}
		r.Cmd = d.strings(rn.get("cmd"))
		if d.err == nil && len(r.Cmd) == 0 {
			d.fail(rn.get("cmd"), "empty command")
		}
		switch en := rn.get("env"); en.kind {
		case 'z':
			r.CarriedOver = true
		case 'o':
			r.Env = map[string]string{}
			for j, k := range en.keys {
				r.Env[k] = d.str(en.vals[j])
			}
		default:
			d.fail(en, "want an object or null, found %s", kindName(en.kind))
		}
		r.ExitCode = d.integer(rn.get("exit_code"))
		r.Duration = d.number(rn.get("duration_s"), "duration_s")
		r.DurationS = r.Duration.Value()
		if d.err == nil && (r.Duration.Null || r.DurationS < 0) {
			d.fail(rn.get("duration_s"), "duration must be a number ≥ 0")
		}
		tn := rn.get("output_tail")
		r.Tail = d.str(tn)
		r.Source = ResultsFile + ": " + tn.path
		if d.err != nil {
			return
		}
		s.Runs = append(s.Runs, r)
	}
}

func (s *Snapshot) strataRun(d *decoder, n *node, name string) {
	r := s.Run(name)
	switch {
	case r == nil:
		d.fail(n, "no run named %q in runs", name)
	case !r.Strata():
		d.fail(n, "run %q is a %s run, not a strata run", name, r.Group)
	}
}

func (s *Snapshot) decodePerf(d *decoder, n *node) {
	if d.err != nil {
		return
	}
	if n.kind != 'o' {
		d.fail(n, "want an object, found %s", kindName(n.kind))
		return
	}
	s.Perf = map[string]*Dict{}
	for i, name := range n.keys {
		s.strataRun(d, n.vals[i], name)
		s.Perf[name] = d.dict(n.vals[i])
	}
}

func (s *Snapshot) row(d *decoder, n *node) *Row {
	if n.kind != 'o' {
		d.fail(n, "want an object, found %s", kindName(n.kind))
		return &Row{}
	}
	r := &Row{Dict: Dict{Path: n.path, Line: d.line(n)}}
	for i, k := range n.keys {
		switch k {
		case "run":
			r.Run = d.str(n.vals[i])
			if d.err == nil {
				s.strataRun(d, n.vals[i], r.Run)
			}
		case "config":
			r.Config = d.str(n.vals[i])
		default:
			r.Fields = append(r.Fields, d.number(n.vals[i], k))
		}
	}
	if d.err == nil && (r.Run == "" || r.Config == "") {
		d.fail(n, `a row needs "run" and "config"`)
	}
	return r
}

func (s *Snapshot) rows(d *decoder, n *node) []*Row {
	if n.kind != 'a' {
		d.fail(n, "want an array of rows, found %s", kindName(n.kind))
		return nil
	}
	var out []*Row
	for _, v := range n.vals {
		out = append(out, s.row(d, v))
	}
	return out
}

func (s *Snapshot) decodeSummary(d *decoder, n *node) {
	if d.err != nil || !d.object(n, []string{"speed_43tok", "prefill", "miss_reduction_pct", "kld"}) {
		return
	}
	s.Summary = Summary{Path: n.path, KLD: map[string]*Dict{}}
	s.Summary.Speed43 = s.rows(d, n.get("speed_43tok"))
	s.Summary.Prefill = s.rows(d, n.get("prefill"))
	s.Summary.MissReduction = d.dict(n.get("miss_reduction_pct"))
	kn := n.get("kld")
	if d.err == nil && kn.kind != 'o' {
		d.fail(kn, "want an object, found %s", kindName(kn.kind))
	}
	if d.err == nil {
		for i, k := range kn.keys {
			s.Summary.KLD[k] = d.dict(kn.vals[i])
		}
	}
}

func (s *Snapshot) decodeMacros(d *decoder, n *node) {
	if d.err != nil {
		return
	}
	if n.kind != 'o' {
		d.fail(n, "want an object, found %s", kindName(n.kind))
		return
	}
	s.KLDMacros = map[string]*Macro{}
	for i, cfg := range n.keys {
		mn := n.vals[i]
		if !d.object(mn, []string{"runs", "mean_kld", "top1_pct", "mean_kld_macro", "top1_pct_macro"}) {
			return
		}
		m := &Macro{Config: cfg, Path: mn.path, Line: d.line(mn)}
		m.Runs = d.strings(mn.get("runs"))
		for _, r := range m.Runs {
			if d.err == nil {
				s.strataRun(d, mn.get("runs"), r)
			}
		}
		m.MeanKLD = d.numbers(mn.get("mean_kld"), len(m.Runs))
		m.Top1Pct = d.numbers(mn.get("top1_pct"), len(m.Runs))
		m.MeanKLDMacro = d.number(mn.get("mean_kld_macro"), "mean_kld_macro")
		m.Top1PctMacro = d.number(mn.get("top1_pct_macro"), "top1_pct_macro")
		s.KLDMacros[cfg] = m
	}
}

// numbers decodes an array of want numbers.
func (d *decoder) numbers(n *node, want int) []Field {
	if n.kind != 'a' {
		d.fail(n, "want an array of numbers, found %s", kindName(n.kind))
		return nil
	}
	if len(n.vals) != want {
		d.fail(n, "want %d numbers (one per run), found %d", want, len(n.vals))
		return nil
	}
	out := make([]Field, 0, len(n.vals))
	for _, v := range n.vals {
		out = append(out, d.number(v, ""))
	}
	return out
}

func (s *Snapshot) decodeSteps(d *decoder, n *node) []*LlamaStep {
	if d.err != nil {
		return nil
	}
	if n.kind != 'o' {
		d.fail(n, "want an object of steps, found %s", kindName(n.kind))
		return nil
	}
	var out []*LlamaStep
	for i, step := range n.keys {
		sn := n.vals[i]
		if sn.kind != 'o' {
			d.fail(sn, "want an object, found %s", kindName(sn.kind))
			return nil
		}
		st := &LlamaStep{Step: step, Dict: Dict{Path: sn.path, Line: d.line(sn)}}
		for j, k := range sn.keys {
			if k == "run" {
				st.Run = d.str(sn.vals[j])
				if d.err == nil && s.Run(st.Run) == nil {
					d.fail(sn.vals[j], "no run named %q in runs", st.Run)
				}
				continue
			}
			st.Fields = append(st.Fields, d.number(sn.vals[j], k))
		}
		if d.err == nil && st.Run == "" {
			d.fail(sn, `missing key "run"`)
		}
		out = append(out, st)
	}
	return out
}

func (s *Snapshot) decodeProvenance(d *decoder, n *node) {
	if d.err != nil || !d.object(n, []string{"files", "prompts"}) {
		return
	}
	s.Provenance.Files = s.provFiles(d, n.get("files"), true)
	s.Provenance.Prompts = s.provFiles(d, n.get("prompts"), false)
}

func (s *Snapshot) provFiles(d *decoder, n *node, withMeta bool) []*ProvFile {
	if d.err != nil {
		return nil
	}
	if n.kind != 'a' {
		d.fail(n, "want an array, found %s", kindName(n.kind))
		return nil
	}
	var out []*ProvFile
	seen := map[string]bool{}
	for _, fn := range n.vals {
		var ok bool
		if withMeta {
			ok = d.object(fn, []string{"role", "path", "sha256", "bytes", "mtime_local"})
		} else {
			ok = d.object(fn, []string{"path", "sha256", "bytes"})
		}
		if !ok {
			return nil
		}
		f := &ProvFile{JSONPath: fn.path, Line: d.line(fn)}
		f.Path = d.str(fn.get("path"))
		f.SHA256 = d.str(fn.get("sha256"))
		f.Bytes = int64(d.integer(fn.get("bytes")))
		if withMeta {
			f.Role = d.str(fn.get("role"))
			f.MtimeText = d.str(fn.get("mtime_local"))
			if d.err == nil {
				t, err := time.Parse(time.RFC3339Nano, f.MtimeText)
				if err != nil {
					d.fail(fn.get("mtime_local"), "not an RFC 3339 time: %q", f.MtimeText)
				}
				f.Mtime = t
			}
		}
		if d.err == nil && !validHex(f.SHA256, 64) {
			d.fail(fn.get("sha256"), "not a sha256 in hex: %q", f.SHA256)
		}
		if d.err == nil && (f.Path == "" || path.IsAbs(f.Path) || strings.Contains(f.Path, "..")) {
			d.fail(fn.get("path"), "path must be relative to the snapshot root: %q", f.Path)
		}
		if d.err == nil && seen[f.Path] {
			d.fail(fn.get("path"), "duplicate provenance path %q", f.Path)
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

// checkFiles reports the first referenced file that does not exist.
func (s *Snapshot) checkFiles() error {
	for _, f := range append(append([]*ProvFile(nil), s.Provenance.Files...), s.Provenance.Prompts...) {
		st, err := os.Stat(s.Path(f.Path))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return &Error{File: ResultsFile, Line: f.Line, Path: f.JSONPath + ".path", Msg: fmt.Sprintf("referenced file %s does not exist", f.Path)}
		case err != nil:
			return &Error{File: ResultsFile, Line: f.Line, Path: f.JSONPath + ".path", Msg: err.Error()}
		case st.IsDir():
			return &Error{File: ResultsFile, Line: f.Line, Path: f.JSONPath + ".path", Msg: fmt.Sprintf("referenced file %s is a directory", f.Path)}
		}
	}
	return nil
}

// loadRecords reads the route_parity logs, the self-test output and the
// recorded mtimes, each optional.
func (s *Snapshot) loadRecords() error {
	logs, err := filepath.Glob(filepath.Join(s.Path(ParityDir), "*.log"))
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	sort.Strings(logs)
	for _, l := range logs {
		rel := ParityDir + "/" + filepath.Base(l)
		rec, err := s.readRecord(rel)
		if err != nil {
			return err
		}
		s.Parity = append(s.Parity, rec)
	}
	if _, err := os.Stat(s.Path(SelfTestFile)); err == nil {
		rec, err := s.readRecord(SelfTestFile)
		if err != nil {
			return err
		}
		s.SelfTest = rec
	}
	data, err := os.ReadFile(s.Path(MtimesFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("archive: %w", err)
	}
	m, err := decodeMtimes(data)
	if err != nil {
		return err
	}
	s.Mtimes = m
	return nil
}

func decodeMtimes(data []byte) (map[string]Mtime, error) {
	p := &parser{file: MtimesFile, data: data, lines: newLineIndex(data)}
	root, perr := parseTree(MtimesFile, data)
	if perr != nil {
		return nil, perr
	}
	if off := firstInvalidUTF8(data); off >= 0 {
		return nil, p.errAt(off, innermost(root, off).path, "invalid UTF-8")
	}
	d := &decoder{p: p}
	if !d.object(root, []string{"tz", "files"}) {
		return nil, d.err
	}
	d.str(root.get("tz"))
	fn := root.get("files")
	if fn.kind != 'o' {
		d.fail(fn, "want an object, found %s", kindName(fn.kind))
		return nil, d.err
	}
	out := map[string]Mtime{}
	for i, k := range fn.keys {
		text := d.str(fn.vals[i])
		if d.err != nil {
			return nil, d.err
		}
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			d.fail(fn.vals[i], "not an RFC 3339 time: %q", text)
			return nil, d.err
		}
		out[k] = Mtime{Time: t, Text: text}
	}
	if d.err != nil {
		return nil, d.err
	}
	return out, nil
}

// readRecord reads a text record and its "# cmd/env/exit" header.
func (s *Snapshot) readRecord(rel string) (*Record, error) {
	data, err := os.ReadFile(s.Path(rel))
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return parseRecord(rel, data)
}

// parseRecord parses the bytes of the text record at rel (relative to the
// snapshot root): its "# cmd:", "# env:" and "# exit:" header lines, the
// first lines of the file. "# cmd:" and "# exit:" are required.
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
			rec.Exit = n
		}
	}
	if !seen["cmd"] || !seen["exit"] {
		return nil, &Error{File: rel, Line: 1, Msg: `missing "# cmd:" or "# exit:" header`}
	}
	if rec.Env == nil {
		rec.Env = map[string]string{}
	}
	return rec, nil
}
