package facts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/strataspec/strataspec/engine/analysis"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/tables"
	"github.com/strataspec/strataspec/engine/tf"
)

// TFSet is the checkout's teacher-forcing data: the vocabulary, the token
// files the manifest (rules.tf) lists with their layouts, and the runs that
// read them.
type TFSet struct {
	Flags tf.Flags // the runs' token-count flags
	// ConfigOf maps a TF run to its configuration in the runner's table the
	// manifest locates (rules.tf.configs); a run it does not list is its
	// own configuration.
	ConfigOf  map[string]string
	Vocab     *gguf.Vocab
	VocabFile string    // relative to the root
	Files     []*TFFile // in path order
	Runs      []*TFRun  // in the order the snapshot lists runs
}

// TFFile is one token file, read and laid out.
type TFFile struct {
	Rel string // relative to the root
	*tf.File
	Layout    tf.Layout
	LayoutErr error  // the file has no TF layout: why
	SHA256    string // of the file's bytes, hex
	Size      int64  // bytes
}

// Line returns the file line of the id at position i (1 if unknown).
func (e *TFFile) Line(i int) int {
	if i >= 0 && i < len(e.IDLine) {
		return e.IDLine[i]
	}
	return 1
}

// TFRun is one run that reads a token file, with the token counts its
// command line gives.
type TFRun struct {
	Run           *archive.Run
	File          *TFFile
	NPrompt, NGen int
	FlagErr       error // the flags are missing or malformed: why
}

// TF reads the manifest's vocabulary and token files and finds the runs
// whose command line names one. A checkout without a manifest has no TF
// data (ErrAbsent); a file the manifest names that cannot be read or
// parsed is an error naming it.
var TF = analysis.NewInput("tf inputs", "the teacher-forcing vocabulary, token files and runs", func(p *analysis.Pass) (*TFSet, error) {
	spec := p.Spec
	var m tf.Manifest
	found, err := spec.Rule("tf", &m)
	if err != nil {
		return nil, err
	}
	if found && m.Manifest != "" {
		if err := readTFManifest(p, &m); err != nil {
			return nil, err
		}
	}
	if !found || len(m.Files) == 0 {
		return nil, &snapfs.Error{File: checkout.File, Msg: "no teacher-forcing files declared (rules.tf.files or rules.tf.manifest)", Err: analysis.ErrNoSettings}
	}
	if m.Vocab == "" {
		return nil, spec.RuleErrorf("tf", "the manifest names no vocabulary (\"vocab\") to decode the token files")
	}
	out := &TFSet{VocabFile: m.Vocab, Flags: tf.DefaultFlags(), ConfigOf: map[string]string{}}
	if c := m.Configs; c != nil {
		docs := Results.Of(p)
		t, err := docs.Table(tables.Loc{File: c.File, Path: c.Path})
		if err != nil {
			return nil, spec.RuleErrorf("tf", "configs: %v", err)
		}
		key := c.RunsKey
		if key == "" {
			key = "runs"
		}
		for _, row := range t.Rows {
			for _, run := range row.Names[key] {
				out.ConfigOf[run] = row.Key
			}
		}
	}
	if m.Flags != nil {
		if m.Flags.Prompt == "" || m.Flags.Gen == "" {
			return nil, spec.RuleErrorf("tf", "flags: give both \"prompt\" and \"gen\"")
		}
		out.Flags = *m.Flags
	}
	vb, err := p.Snap.ReadFile(m.Vocab)
	if err != nil {
		return nil, fmt.Errorf("rules.tf.vocab: %w", err)
	}
	if out.Vocab, err = tf.ReadVocab(m.Vocab, vb); err != nil {
		return nil, err
	}
	byPath := map[string]*TFFile{}
	for i, e := range m.Files {
		rel, err := snapfs.Clean(e.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: rules.tf.files: %w", checkout.File, err)
		}
		// where the file is listed: the manifest's line, else the spec's
		// (rules.tf.files come first, the manifest's entries after them)
		at := finding.Pos{File: checkout.File, Line: p.Spec.Line(fmt.Sprintf("rules.tf.files[%d].path", i))}
		if e.ListedLine > 0 {
			at = finding.Pos{File: m.Manifest, Line: e.ListedLine}
		}
		data, err := readListed(p, rel, at)
		if err != nil {
			return nil, err
		}
		f, err := tf.Parse(rel, data)
		if err != nil {
			return nil, err
		}
		if err := e.Apply(f); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		file := &TFFile{Rel: rel, File: f, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
		file.Layout, file.LayoutErr = tf.Find(f.IDs, out.Vocab)
		byPath[rel] = file
		out.Files = append(out.Files, file)
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Rel < out.Files[j].Rel })
	for _, r := range p.Snap.Runs {
		var file *TFFile
		for _, a := range r.Cmd {
			if rel, ok := p.Snap.Rel(a); ok {
				if f := byPath[path.Clean(rel)]; f != nil {
					file = f
				}
			}
		}
		if file == nil {
			continue
		}
		tr := &TFRun{Run: r, File: file}
		tr.NPrompt, tr.NGen, tr.FlagErr = tfFlags(r.Cmd, out.Flags)
		out.Runs = append(out.Runs, tr)
	}
	return out, nil
}, Results.Analyzer).OwnedBy("tf")

// readListed reads a file rules.tf names, listed at at: one that is not
// there is an error at at naming it, never "absent" (which would make the
// TF rules not apply, in silence, for a file the spec says is there).
func readListed(p *analysis.Pass, rel string, at finding.Pos) ([]byte, error) {
	b, err := read(p, rel)
	if errors.Is(err, ErrAbsent) {
		return nil, &listedError{at: at, err: &snapfs.Error{File: rel, Msg: "not in the snapshot, though rules.tf lists it"}}
	}
	return b, err
}

// listedError is the error about a file at the place that lists it.
type listedError struct {
	at  finding.Pos
	err error // naming the file
}

func (e *listedError) Error() string    { return e.at.String() + ": " + e.err.Error() }
func (e *listedError) Pos() finding.Pos { return e.at }
func (e *listedError) Unwrap() error    { return e.err }

// readTFManifest adds the token files of the TOML manifest m names
// (rules.tf.manifest) to m.Files, and its vocabulary when m has none; a
// file listed both there and under rules.tf.files is an error, as is a
// vocabulary that differs from the spec's.
func readTFManifest(p *analysis.Pass, m *tf.Manifest) error {
	// an error about the manifest is at the spec's line naming it (a
	// listedError: its Pos, not the path's, which may be outside)
	at := finding.Pos{File: checkout.File, Line: p.Spec.Line("rules.tf.manifest")}
	rel, err := snapfs.Clean(m.Manifest)
	if err != nil {
		return &listedError{at: at, err: fmt.Errorf("rules.tf.manifest: %w", err)}
	}
	m.Manifest = rel // where its entries are listed
	data, err := readListed(p, rel, at)
	if _, listed := errors.AsType[*listedError](err); err != nil && !listed {
		return &listedError{at: at, err: fmt.Errorf("rules.tf.manifest: %w", err)}
	}
	if err != nil {
		return err
	}
	vocab, entries, err := tf.ReadManifest(rel, data)
	if err != nil {
		return err
	}
	switch {
	case m.Vocab == "":
		m.Vocab = vocab
	case vocab != "" && vocab != m.Vocab:
		return p.Spec.RuleErrorf("tf", "vocab %q, but the manifest %s names %q", m.Vocab, rel, vocab)
	}
	for _, e := range entries {
		for _, f := range m.Files {
			if path.Clean(f.Path) == path.Clean(e.Path) {
				return p.Spec.RuleErrorf("tf", "%s is listed in rules.tf.files and in the manifest %s", e.Path, rel)
			}
		}
	}
	m.Files = append(m.Files, entries...)
	return nil
}

// tfFlags reads the prompt and scored token counts from a command line.
func tfFlags(cmd []string, flags tf.Flags) (nPrompt, nGen int, err error) {
	vals := map[string]int{}
	names := []string{flags.Prompt, flags.Gen}
	for i := 0; i < len(cmd); i++ {
		for _, name := range names {
			var text string
			switch {
			case cmd[i] == name && i+1 < len(cmd):
				text = cmd[i+1]
			case strings.HasPrefix(cmd[i], name+"="):
				text = strings.TrimPrefix(cmd[i], name+"=")
			default:
				continue
			}
			n, perr := strconv.Atoi(text)
			if perr != nil || n <= 0 {
				return 0, 0, fmt.Errorf("%s %q is not a positive integer", name, text)
			}
			vals[name] = n
		}
	}
	for _, name := range names {
		if _, ok := vals[name]; !ok {
			return 0, 0, fmt.Errorf("no %s in the command", name)
		}
	}
	return vals[flags.Prompt], vals[flags.Gen], nil
}
