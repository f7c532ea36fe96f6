package facts

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/strataspec/strataspec/engine/analysis"
	"io/fs"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// read reads a file the spec or a run names, confined to the snapshot; one
// that is not there is ErrAbsent.
func read(p *analysis.Pass, rel string) ([]byte, error) {
	b, err := p.Snap.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &snapfs.Error{File: rel, Msg: "not in the snapshot", Err: ErrAbsent}
	}
	return b, err
}

// readDeclared reads the plan or the claims table ("plan", "claims"), confined to the
// snapshot. Nothing at its default name is ErrAbsent (the rules that need
// it do not apply); a file the spec file declares is an error when it is
// not there, and so is a link at its name that leads nowhere.
func readDeclared(p *analysis.Pass, key, rel string) ([]byte, error) {
	spec := p.Spec
	if p.Snap.FS != nil {
		ok, err := p.Snap.FS.Present(rel)
		switch {
		case err != nil:
			return nil, err
		case !ok && spec.Declared(key):
			return nil, &snapfs.Error{File: rel, Msg: fmt.Sprintf("%s declares it (%q) and it is not in the snapshot", spec.Path, key)}
		case !ok:
			return nil, &snapfs.Error{File: rel, Msg: "not in the snapshot", Err: ErrAbsent}
		}
	}
	b, err := p.Snap.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &snapfs.Error{File: rel, Msg: "not in the snapshot", Err: ErrAbsent}
	}
	return b, err
}

// Plan is the parsed PLAN.md (the spec's "plan").
var Plan = analysis.NewInput("plan", "the parsed PLAN.md", func(p *analysis.Pass) (*plan.Doc, error) {
	spec := p.Spec
	b, err := readDeclared(p, "plan", spec.Plan)
	if err != nil {
		return nil, err
	}
	return plan.Parse(spec.Plan, b), nil
}).OwnedBy("plan.unsourced") // an unreadable plan: no number of it is checked

// claimsRows counts the lines of a claims table that can be rows: those
// holding a '|' that do not start with '#'.
func claimsRows(b []byte) int {
	n := 0
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' && bytes.IndexByte(t, '|') >= 0 {
			n++
		}
	}
	return n
}

// Claims is the parsed claims table (the spec's "claims"). A table with
// errors is an error naming the first, with file and line.
var Claims = analysis.NewInput("claims", "the parsed claims table", func(p *analysis.Pass) (*claims.Table, error) {
	spec := p.Spec
	b, err := readDeclared(p, "claims", spec.Claims)
	if err != nil {
		return nil, err
	}
	// Counted before parsing: a row is a line with a '|' that is not a
	// comment, and a table of a million rows stops here.
	if n, lim := claimsRows(b), limits(p).ClaimsRows; n > lim {
		return nil, &snapfs.LimitError{File: spec.Claims, What: "claims rows", Limit: int64(lim), Flag: "-max-claims-rows"}
	}
	t := claims.Parse(spec.Claims, b, eval.Signatures())
	if err := t.Err(); err != nil {
		return nil, err
	}
	return t, nil
}).OwnedBy("plan.stale") // the rule that judges the claims rows
