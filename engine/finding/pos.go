package finding

import (
	"errors"
	"strconv"
)

// Pos is a place in a snapshot's file: the file, and where known the line,
// the column and the JSON path. Every reader's error names its place as a
// Pos (its Pos method), whatever the format: the spec file and results
// JSON (line, column, path), the plan and claims table (line), a tail
// (line), a file the confined file system refused (the file alone).
type Pos struct {
	File string // relative to the snapshot root, slash-separated
	Line int    // 1-based; 0 when the place is the whole file
	Col  int    // 1-based byte column; 0 when unknown
	Path string // JSON path, e.g. "runs[3].name"; "" outside JSON or at its top
}

// String formats the position as file:line:col: path, leaving out the
// parts it does not have.
func (p Pos) String() string {
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
		if p.Col > 0 {
			s += ":" + strconv.Itoa(p.Col)
		}
	}
	if p.Path != "" {
		s += ": " + p.Path
	}
	return s
}

// Positioned is an error that names its place: the errors of every reader
// of a snapshot implement it.
type Positioned interface {
	error
	Pos() Pos
}

// PosOf returns the place of the first error in err's chain that names
// one (see errors.As), and false when none does.
func PosOf(err error) (Pos, bool) {
	if p, ok := errors.AsType[Positioned](err); ok {
		return p.Pos(), true
	}
	return Pos{}, false
}
