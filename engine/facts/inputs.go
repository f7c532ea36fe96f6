package facts

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// Snapshot is the loaded snapshot: runs, records, the runner's tables.
var Snapshot = NewKey("snapshot", func(s *Set) (*archive.Snapshot, error) { return s.Snap, nil })

// Spec is the checkout's spec (strataspec.json, or the defaults).
var Spec = NewKey("spec", func(s *Set) (*checkout.Spec, error) {
	if s.Snap.Spec == nil {
		return checkout.Default(), nil
	}
	return s.Snap.Spec, nil
})

// ErrAbsent is matched (errors.Is) by the error of a fact whose input the
// snapshot does not have; a rule that needs it does not apply.
var ErrAbsent = errors.New("not in the snapshot")

// read reads a file the spec or a run names, confined to the snapshot; one
// that is not there is ErrAbsent.
func read(s *Set, rel string) ([]byte, error) {
	b, err := s.Snap.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &snapfs.Error{File: rel, Msg: "not in the snapshot", Err: ErrAbsent}
	}
	return b, err
}

// readDeclared reads the plan or the claims table ("plan", "claims"), confined to the
// snapshot. Nothing at its default name is ErrAbsent (the rules that need
// it do not apply); a file the spec file declares is an error when it is
// not there, and so is a link at its name that leads nowhere.
func readDeclared(s *Set, key, rel string) ([]byte, error) {
	spec := s.Snap.Spec
	if s.Snap.FS != nil {
		ok, err := s.Snap.FS.Present(rel)
		switch {
		case err != nil:
			return nil, err
		case !ok && spec != nil && spec.Declared(key):
			return nil, &snapfs.Error{File: rel, Msg: fmt.Sprintf("%s declares it (%q) and it is not in the snapshot", spec.Path, key)}
		case !ok:
			return nil, &snapfs.Error{File: rel, Msg: "not in the snapshot", Err: ErrAbsent}
		}
	}
	b, err := s.Snap.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &snapfs.Error{File: rel, Msg: "not in the snapshot", Err: ErrAbsent}
	}
	return b, err
}

// Plan is the parsed PLAN.md (the spec's "plan").
var Plan = NewKey("plan", func(s *Set) (*plan.Doc, error) {
	spec, err := Get(s, Spec)
	if err != nil {
		return nil, err
	}
	b, err := readDeclared(s, "plan", spec.Plan)
	if err != nil {
		return nil, err
	}
	return plan.Parse(spec.Plan, b), nil
})

// Claims is the parsed claims table (the spec's "claims"). A table with
// errors is an error naming the first, with file and line.
var Claims = NewKey("claims", func(s *Set) (*claims.Table, error) {
	spec, err := Get(s, Spec)
	if err != nil {
		return nil, err
	}
	b, err := readDeclared(s, "claims", spec.Claims)
	if err != nil {
		return nil, err
	}
	t := claims.Parse(spec.Claims, b)
	if err := t.Err(); err != nil {
		return nil, err
	}
	return t, nil
})
