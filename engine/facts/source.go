package facts

import (
	"errors"
	"fmt"
	"github.com/strataspec/strataspec/engine/analysis"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/source"
)

// SourceSet is the checkout's source files, each read and lexed once, on
// first use: the rules that read code (code, scratch, selftest, cache) ask
// it for the files their settings name, and never open or lex a file
// themselves.
type SourceSet struct {
	snap  *archive.Snapshot
	paths []string               // the declared sources, in order
	langs map[string]source.Lang // language by declared path

	mu    sync.Mutex
	files map[string]*sourceEntry // files read, by path
}

type sourceEntry struct {
	once sync.Once
	f    *source.File
	err  error
}

// Sources lists the checkout's source files: the spec's "sources" globs, or
// without them the scripts and sources the provenance record hashes.
var Sources = analysis.NewInput("sources", "the checkout's source files", func(p *analysis.Pass) (*SourceSet, error) {
	spec := p.Spec
	ss := &SourceSet{snap: p.Snap, langs: map[string]source.Lang{}, files: map[string]*sourceEntry{}}
	add := func(rel string, lang source.Lang) {
		if lang == source.Text {
			lang = source.LangOf(rel)
		}
		if lang == source.Text {
			return
		}
		if _, dup := ss.langs[rel]; dup {
			return
		}
		ss.langs[rel] = lang
		ss.paths = append(ss.paths, rel)
	}
	if len(spec.Sources) == 0 {
		for _, pf := range p.Snap.Provenance.Files {
			if rel, ok := p.Snap.Rel(pf.Path); ok {
				add(rel, source.Text)
			}
		}
		return ss, nil
	}
	if p.Snap.FS == nil {
		return nil, fmt.Errorf("sources: the snapshot has no file system to glob")
	}
	for _, g := range spec.Sources {
		m, err := p.Snap.FS.Glob(g.Glob)
		if err != nil {
			return nil, fmt.Errorf("%s: sources: %w", spec.Path, err)
		}
		for _, rel := range m {
			add(rel, source.Lang(g.Language))
		}
	}
	return ss, nil
})

// Paths returns the declared source files, in the order declared.
func (ss *SourceSet) Paths() []string { return slices.Clone(ss.paths) }

// File reads and lexes one source file (declared or not; its language by
// extension unless declared), once. A file the snapshot does not have is
// an error wrapping ErrAbsent; an unreadable one names the file.
func (ss *SourceSet) File(rel string) (*source.File, error) {
	ss.mu.Lock()
	e, ok := ss.files[rel]
	if !ok {
		e = &sourceEntry{}
		ss.files[rel] = e
	}
	ss.mu.Unlock()
	e.once.Do(func() {
		b, err := ss.snap.ReadFile(rel)
		if errors.Is(err, fs.ErrNotExist) {
			e.err = &snapfs.Error{File: rel, Msg: "not in the snapshot", Err: ErrAbsent}
			return
		}
		if err != nil {
			e.err = err
			return
		}
		lang, ok := ss.langs[rel]
		if !ok {
			lang = source.LangOf(rel)
		}
		e.f = source.Parse(rel, b, lang)
	})
	return e.f, e.err
}

// All reads every declared source file that the snapshot has, in order;
// missing ones are left out (the provenance rule reports them).
func (ss *SourceSet) All() ([]*source.File, error) {
	var out []*source.File
	for _, rel := range ss.paths {
		f, err := ss.File(rel)
		if errors.Is(err, ErrAbsent) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// TailIndex finds texts in the runs' outputs, for rules that look for what
// the runs printed (a stale log line) without reading tails themselves. It
// reads each output when asked (Run.Text) rather than holding them all.
type TailIndex struct {
	runs []*archive.Run
}

// Mention is a text found in a run's output.
type Mention struct {
	Run    string
	Source string // the tail, as findings name it
	Line   int    // 1-based line in the tail
}

// Tails indexes the runs' outputs.
var Tails = analysis.NewInput("tails", "an index of the runs' outputs", func(p *analysis.Pass) (*TailIndex, error) {
	return &TailIndex{runs: p.Snap.Runs}, nil
})

// Find returns where text occurs in the runs' outputs: the first line of
// each run that holds it, in run order.
func (x *TailIndex) Find(text string) []Mention {
	var out []Mention
	for _, r := range x.runs {
		t, err := r.Text()
		if err != nil {
			continue // runs.parse reports an output that cannot be read
		}
		for n, l := range strings.Split(t, "\n") {
			if strings.Contains(l, text) {
				out = append(out, Mention{Run: r.Name, Source: r.Source, Line: n + 1})
				break
			}
		}
	}
	return out
}
