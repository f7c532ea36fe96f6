package facts

import (
	"errors"
	"fmt"
	"github.com/strataspec/strataspec/engine/analysis"
	"strings"

	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/tables"
)

// ResultsDocs are the results files the spec's "results" entries name,
// each parsed as a JSON document (JSON Lines files are not: they hold run
// records only).
type ResultsDocs struct {
	// Files are the files read, in the spec's order; Files[0] is the file
	// a table location without "file" means.
	Files []string
	Docs  map[string]*jsontree.Doc
}

// Results are the parsed results documents, for the rules that read a
// runner's own tables out of them (engine/tables).
var Results = analysis.NewInput("results documents", "the results files as JSON documents", func(p *analysis.Pass) (*ResultsDocs, error) {
	spec := p.Spec
	out := &ResultsDocs{Docs: map[string]*jsontree.Doc{}}
	if p.Snap.FS == nil {
		return out, nil
	}
	for _, rs := range spec.Results {
		files, err := p.Snap.FS.Glob(rs.File)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if strings.HasSuffix(f, ".jsonl") || out.Docs[f] != nil {
				continue
			}
			if doc := p.Snap.Docs[f]; doc != nil { // parsed by the loader
				out.Files = append(out.Files, f)
				out.Docs[f] = doc
				continue
			}
			data, err := p.Snap.FS.ReadFile(f, snapfs.LimitResults)
			if err != nil {
				return nil, err
			}
			doc, err := jsontree.ParseDoc(f, data)
			if err != nil {
				return nil, err
			}
			out.Files = append(out.Files, f)
			out.Docs[f] = doc
		}
	}
	return out, nil
})

// Table reads the table at loc. A location whose file the spec does not
// read, or whose path is not in it, is an error matching ErrAbsent and
// tables.ErrMissing.
func (r *ResultsDocs) Table(loc tables.Loc) (*tables.Table, error) {
	file := loc.File
	if file == "" && len(r.Files) > 0 {
		file = r.Files[0]
	}
	doc := r.Docs[file]
	if doc == nil {
		return nil, fmt.Errorf("%s: not a results file of the spec: %w (%w)", loc, ErrAbsent, tables.ErrMissing)
	}
	t, err := tables.Read(doc, loc.Path)
	if errors.Is(err, tables.ErrMissing) {
		return nil, fmt.Errorf("%w (%w)", err, ErrAbsent)
	}
	return t, err
}
