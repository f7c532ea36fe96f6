package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
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
}

// readCode reads a source file relative to the snapshot root.
func readCode(s *archive.Snapshot, rel string) (*codeFile, error) {
	b, err := s.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return parseCode(rel, string(b)), nil
}

// parseCode splits src into lines and blanks strings and comments with the
// lexical rules of the file's language: Python ("#" comments, '…', "…" and
// triple-quoted strings) or the C family (//, /* */, "…", '…').
func parseCode(rel, src string) *codeFile {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	py := strings.HasSuffix(rel, ".py")
	blank := []byte(src)
	strs := map[int][]string{}
	line := 0
	lineOf := func(i int) int { return line }
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case py && c == '#', !py && strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				blank[i] = ' '
				i++
			}
		case !py && strings.HasPrefix(src[i:], "/*"):
			for i < len(src) && !strings.HasPrefix(src[i:], "*/") {
				if src[i] == '\n' {
					line++
				} else {
					blank[i] = ' '
				}
				i++
			}
			for j := 0; j < 2 && i < len(src); j++ {
				blank[i] = ' '
				i++
			}
		case c == '"' || c == '\'':
			q := string(c)
			if py && (strings.HasPrefix(src[i:], `"""`) || strings.HasPrefix(src[i:], `'''`)) {
				q = src[i : i+3]
			}
			start := lineOf(i)
			var lit strings.Builder
			for k := 0; k < len(q); k++ {
				blank[i] = ' '
				i++
			}
			for i < len(src) && !strings.HasPrefix(src[i:], q) {
				if src[i] == '\\' && i+1 < len(src) {
					lit.WriteByte(src[i])
					blank[i] = ' '
					i++
				}
				if src[i] == '\n' {
					if len(q) == 1 {
						break // unterminated single-line string
					}
					line++
				} else {
					blank[i] = ' '
				}
				lit.WriteByte(src[i])
				i++
			}
			for k := 0; k < len(q) && i < len(src) && src[i] != '\n'; k++ {
				blank[i] = ' '
				i++
			}
			strs[start] = append(strs[start], lit.String())
		default:
			i++
		}
	}
	f := &codeFile{path: rel, lines: strings.Split(src, "\n"), blank: strings.Split(string(blank), "\n")}
	f.strs = make([][]string, len(f.lines))
	for l, ss := range strs {
		if l < len(f.strs) {
			f.strs[l] = ss
		}
	}
	return f
}

// derivation finds where a results key is derived: the line that names
// "key" as a string, through the end of its expression (brackets balanced,
// up to a line ending in "," or the closing bracket). It returns the line
// of the first division in the expression (or minus the key's line when
// there is none), and the expression's text.
//
// When scope is not "", the search starts after the first line that names
// "scope" as a string (the block the key belongs to, e.g.
// "llama_cpp_patched").
func (f *codeFile) derivation(scope, key string) (int, string) {
	q1, q2 := `"`+key+`"`, `'`+key+`'`
	from := 0
	if scope != "" {
		from = -1
		for i, l := range f.lines {
			if strings.Contains(l, `"`+scope+`"`) || strings.Contains(l, `'`+scope+`'`) {
				from = i
				break
			}
		}
		if from < 0 {
			return 0, ""
		}
	}
	for i := from; i < len(f.lines); i++ {
		l := f.lines[i]
		if !strings.Contains(l, q1) && !strings.Contains(l, q2) {
			continue
		}
		depth := 0
		var expr []string
		div := 0
		for j := i; j < len(f.lines) && j < i+8; j++ {
			b := f.blank[j]
			if j == i {
				if k := strings.IndexAny(b, ":="); k >= 0 {
					b = b[k+1:]
				}
			}
			expr = append(expr, strings.TrimSpace(f.lines[j]))
			if div == 0 && strings.Contains(b, "/") {
				div = j + 1
			}
			depth += strings.Count(b, "(") + strings.Count(b, "[") + strings.Count(b, "{") -
				strings.Count(b, ")") - strings.Count(b, "]") - strings.Count(b, "}")
			t := strings.TrimSpace(b)
			if depth <= 0 && (strings.HasSuffix(t, ",") || j > i && t != "") {
				break
			}
		}
		if div == 0 {
			return -(i + 1), strings.Join(expr, " ")
		}
		return div, strings.Join(expr, " ")
	}
	return 0, ""
}

// sourceFiles lists the snapshot's source files: the provenance record's
// scripts and text sources, and every source under scripts/ and vendor/.
func sourceFiles(s *archive.Snapshot) []string {
	seen := map[string]bool{}
	var out []string
	add := func(rel string) {
		if seen[rel] || !isSource(rel) {
			return
		}
		seen[rel] = true
		out = append(out, rel)
	}
	for _, p := range s.Provenance.Files {
		add(p.Path)
	}
	for _, dir := range []string{"scripts", "vendor"} {
		walkFiles(s, dir, add)
	}
	return out
}

func isSource(rel string) bool {
	switch path.Ext(rel) {
	case ".py", ".cpp", ".cc", ".c", ".h", ".hpp", ".mm", ".m", ".metal":
		return true
	}
	return false
}

// walkFiles calls f with every file under dir (relative to the snapshot
// root), in lexical order.
func walkFiles(s *archive.Snapshot, dir string, f func(rel string)) {
	if s.FS == nil {
		return
	}
	files, err := s.FS.Glob(dir + "/**")
	if err != nil {
		return
	}
	for _, rel := range files {
		f(rel)
	}
}

// String names the file and its length, for test failures.
func (f *codeFile) String() string { return fmt.Sprintf("%s (%d lines)", f.path, len(f.lines)) }
