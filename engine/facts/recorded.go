package facts

import (
	"errors"
	"fmt"
	"github.com/strataspec/strataspec/engine/analysis"
	"io/fs"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/runconf"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// RecordedFile is a file a run record names — an input on a run's command
// line, a file of the provenance record — as the audit found it. A path
// that leads outside the snapshot is data: it is never opened, and nothing
// of the file it names (size, hash, content) is known.
type RecordedFile struct {
	// Name is the path as recorded ("/tmp/p.txt", "data/p.txt").
	Name string
	// Rel is the snapshot path it maps to ("machine/tmp/p.txt"), "" when
	// the path leads outside the snapshot.
	Rel string
	// Outside is true for a path outside the snapshot (or outside its
	// machine folder, or a link leading out): not read.
	Outside bool
	// Missing is true when the snapshot has no such file.
	Missing bool
	// Size and SHA256 are the file's size and hex sha256, when it was
	// read.
	Size   int64
	SHA256 string
	// Data is the file's content, kept for inputs (prompts, token files,
	// files a command line names); nil for scripts and binaries, whose
	// hash is all a rule needs.
	Data []byte
}

// Read reports whether the file's content is known.
func (f *RecordedFile) Read() bool { return f != nil && !f.Outside && !f.Missing }

// Describe says what the file holds as a finding prints it:
// "(1,600 bytes, sha256 12cd05aa8276…)", or why its content is unknown.
func (f *RecordedFile) Describe() string {
	switch {
	case f == nil:
		return "(not read)"
	case f.Outside:
		return "(outside the snapshot: not read)"
	case f.Missing:
		return "(not in the snapshot)"
	}
	return fmt.Sprintf("(%s bytes, sha256 %s)", num.Format(float64(f.Size), 0), runconf.ShortHash(f.SHA256))
}

// RecordedFiles are the files the run records name, each read once, by the
// name as recorded.
type RecordedFiles map[string]*RecordedFile

// Describe is RecordedFile.Describe by recorded name, for runconf.Of.
func (fs RecordedFiles) Describe(name string) string { return fs[name].Describe() }

// Files holds every file a run's command line names as an input
// (runconf's Files) and every file of the provenance record. A file that
// is missing or outside the snapshot is kept as such; one that exists but
// cannot be read (a FIFO, a directory, over the size limit) is an error
// naming the record that names it: the audit cannot judge an input it
// cannot read.
var Files = analysis.NewInput("recorded files", "the files the run records name", func(p *analysis.Pass) (RecordedFiles, error) {
	out := RecordedFiles{}
	add := func(name, where string, keep bool) error {
		if f, ok := out[name]; ok && (f.Data != nil || !keep || !f.Read()) {
			return nil
		}
		f := &RecordedFile{Name: name}
		out[name] = f
		rel, ok := p.Snap.Rel(name)
		if !ok {
			f.Outside = true
			return nil
		}
		f.Rel = rel
		b, err := p.Snap.ReadFile(name)
		switch {
		case errors.Is(err, snapfs.ErrOutside):
			f.Outside, f.Rel = true, ""
		case errors.Is(err, fs.ErrNotExist):
			f.Missing = true
		case err != nil && rel != name:
			return fmt.Errorf("%s names %s: %w", where, name, err)
		case err != nil:
			return fmt.Errorf("%s: %w", where, err)
		default:
			f.Size, f.SHA256 = int64(len(b)), runconf.SHA256(b)
			if keep {
				f.Data = b
			}
		}
		return nil
	}
	prov := p.Snap.Provenance
	for _, pf := range prov.Prompts {
		if err := add(pf.Path, fmt.Sprintf("%s:%d: %s", p.Snap.ProvenanceFile, pf.Line, pf.JSONPath), true); err != nil {
			return nil, err
		}
	}
	for _, r := range p.Snap.Runs {
		for _, name := range runconf.Of(r, nil, nil).Files {
			if err := add(name, fmt.Sprintf("%s:%d: run %s", r.File, r.Line, r.Name), true); err != nil {
				return nil, err
			}
		}
	}
	// A run whose sidecar lists its inputs holds its model files (and a
	// KL-divergence base) to what it read too: their hashes are read.
	for _, r := range p.Snap.Runs {
		if r.Inputs == nil {
			continue
		}
		for _, name := range runconf.Of(r, nil, nil).Models {
			if err := add(name, fmt.Sprintf("%s:%d: run %s", r.File, r.Line, r.Name), false); err != nil {
				return nil, err
			}
		}
		for _, in := range r.Inputs {
			if err := add(in.Path, fmt.Sprintf("%s:%d: %s", in.File, in.Line, in.JSONPath), false); err != nil {
				return nil, err
			}
		}
	}
	for _, pf := range prov.Files {
		if err := add(pf.Path, fmt.Sprintf("%s:%d: %s", p.Snap.ProvenanceFile, pf.Line, pf.JSONPath), false); err != nil {
			return nil, err
		}
	}
	return out, nil
})
