package facts

import (
	"errors"
	"fmt"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"

	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/strataspec/strataspec/engine/tables"
)

// ResultsDocs are the results files the spec's "results" entries name,
// each parsed as a JSON document (JSON Lines files are not: they hold run
// records only), and any other JSON file of the checkout a table location
// names (the runner's tables beside its runs), parsed when first named.
type ResultsDocs struct {
	// Files are the results files read, in the spec's order; Files[0] is
	// the file a table location without "file" means.
	Files []string
	Docs  map[string]*jsontree.Doc

	snap *archive.Snapshot
}

// Results are the parsed results documents, for the rules that read a
// runner's own tables out of them (engine/tables).
var Results = analysis.NewInput("results documents", "the results files as JSON documents", func(p *analysis.Pass) (*ResultsDocs, error) {
	spec := p.Spec
	out := &ResultsDocs{Docs: map[string]*jsontree.Doc{}, snap: p.Snap}
	if p.Snap.FS == nil {
		return out, nil
	}
	for _, rs := range spec.Results {
		files, err := p.Snap.FS.Glob(rs.File)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if archive.RowsOnly(f) || out.Docs[f] != nil {
				continue
			}
			doc, err := p.Snap.Doc(f) // parsed by the loader
			if err != nil {
				return nil, err
			}
			out.Files = append(out.Files, f)
			out.Docs[f] = doc
		}
	}
	return out, nil
})

// Table reads the table at loc: in the first results file when loc names
// no file, else in the JSON file it names (any file of the checkout). A
// location with no file to read it in, or whose path is not in its file, is
// an error matching ErrAbsent and tables.ErrMissing; a named file that
// cannot be read or is not JSON is an error naming it.
func (r *ResultsDocs) Table(loc tables.Loc) (*tables.Table, error) {
	file := loc.File
	if file == "" && len(r.Files) > 0 {
		file = r.Files[0]
	}
	if file == "" {
		return nil, fmt.Errorf("%s: no results file to read it in (give \"file\"): %w (%w)", loc, ErrAbsent, tables.ErrMissing)
	}
	doc := r.Docs[file]
	if doc == nil {
		if r.snap == nil || r.snap.FS == nil {
			return nil, fmt.Errorf("%s: not read: %w (%w)", loc, ErrAbsent, tables.ErrMissing)
		}
		if archive.RowsOnly(file) {
			return nil, fmt.Errorf("%s: a JSON Lines or CSV file holds run records, not tables", loc)
		}
		var err error
		if doc, err = r.snap.Doc(file); err != nil {
			return nil, err
		}
		r.Docs[file] = doc
	}
	t, err := tables.Read(doc, loc.Path)
	if errors.Is(err, tables.ErrMissing) {
		return nil, fmt.Errorf("%w (%w)", err, ErrAbsent)
	}
	return t, err
}
