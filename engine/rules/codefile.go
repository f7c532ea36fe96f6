package rules

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/source"
)

// codeFile is a source file of the snapshot with, beside each line, the
// same line with its string literals and comments blanked out, so that a
// search for numbers in code does not match text.
type codeFile struct {
	path  string   // relative to the snapshot root
	lines []string // original lines
	blank []string // lines with strings and comments replaced by spaces
	// strs holds, per line, the text of the string literals on it.
	strs [][]string
	src  *source.File
}

// readCode reads a source file relative to the snapshot root.
func readCode(s *archive.Snapshot, rel string) (*codeFile, error) {
	b, err := s.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return parseCode(rel, string(b)), nil
}

// parseCode lexes a source file with engine/source (Python or the C
// family, by extension) for the legacy rules that still read code lines.
func parseCode(rel, src string) *codeFile {
	f := source.Parse(rel, []byte(src), source.LangOf(rel))
	if f.Lang == source.Text {
		f = source.Parse(rel, []byte(src), source.C)
	}
	return &codeFile{path: rel, lines: f.Lines, blank: f.Code, strs: f.Strings, src: f}
}

// numberLiterals returns the decimal literals in s that stand alone.
func numberLiterals(s string) []string { return source.NumberLiterals(s) }

// derivation finds where a results key is derived: the statement that
// names "key" as a string (source.File.Key). It returns the line of the
// first division in the expression (or minus the key's line when there is
// none), and the expression's text. When scope is not "", the search
// starts at the first line that names "scope" as a string (the block the
// key belongs to, e.g. "llama_cpp_patched").
func (f *codeFile) derivation(scope, key string) (int, string) {
	start, end, ok := f.src.Key(scope, key)
	if !ok {
		return 0, ""
	}
	var expr []string
	div := 0
	for j := start - 1; j < end; j++ {
		b := f.blank[j]
		if j == start-1 {
			if k := strings.IndexAny(b, ":="); k >= 0 {
				b = b[k+1:]
			}
		}
		expr = append(expr, strings.TrimSpace(f.lines[j]))
		if div == 0 && strings.Contains(b, "/") {
			div = j + 1
		}
	}
	if div == 0 {
		return -start, strings.Join(expr, " ")
	}
	return div, strings.Join(expr, " ")
}

// String names the file and its length, for test failures.
func (f *codeFile) String() string { return fmt.Sprintf("%s (%d lines)", f.path, len(f.lines)) }
