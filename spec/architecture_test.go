package spec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/strataspec/strataspec/engine/snaptest"
)

// fileOpeners are the calls that read a file or a directory by path.
var fileOpeners = map[string][]string{
	"os":            {"Open", "OpenFile", "ReadFile", "ReadDir", "OpenRoot", "DirFS"},
	"path/filepath": {"Glob", "Walk", "WalkDir"},
	"io/ioutil":     {"ReadFile", "ReadDir"},
}

// mayOpen lists the packages under engine/ allowed to open files, and why.
// Everything a snapshot holds is read through engine/snapfs; the others
// open files that are not the snapshot's.
var mayOpen = map[string]string{
	"engine/snapfs":                  "the one reader of snapshot files, confined to the root",
	"engine/golden":                  "golden files of this repository",
	"engine/snaptest":                "test helper: copies of fixtures",
	"engine/pagecache":               "the user's files and /proc for residency, never a snapshot's",
	"engine/pagecache/pagecachetest": "test helper: the files it makes for page-cache tests",
	"engine/live":                    "runs the engine in a checkout on a Mac",
	"engine/live/livetest":           "builds the fake engine for tests",
	"engine/metal":                   "the Metal framework",
	"engine/rusage":                  "libSystem",
}

// TestOnlyReadersOpenFiles: no package under engine/ but the readers opens a
// file by path, so no rule can read outside the snapshot root or read an
// input a second way.
func TestOnlyReadersOpenFiles(t *testing.T) {
	root := snaptest.Root()
	fset := token.NewFileSet()
	var bad []string
	err := filepath.WalkDir(filepath.Join(root, "engine"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		if _, ok := mayOpen[pkg]; ok {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		imports := map[string]string{} // local name → path
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = path
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if fns, ok := fileOpeners[imports[id.Name]]; ok && slices.Contains(fns, sel.Sel.Name) {
				bad = append(bad, fset.Position(sel.Pos()).String()+": "+imports[id.Name]+"."+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	for _, b := range bad {
		rel, _ := filepath.Rel(root, b)
		t.Errorf("%s: opens a file outside the readers (engine/snapfs); read it through the facts layer", rel)
	}
}

// TestRuleFamiliesArePackages: every rule family is its own package under
// engine/rules, and the legacy one-package registry is gone.
func TestRuleFamiliesArePackages(t *testing.T) {
	out, err := exec.Command("go", "list", "github.com/strataspec/strataspec/engine/rules/...").Output()
	require.NoError(t, err)
	pkgs := strings.Fields(string(out))
	require.NotContains(t, pkgs, "github.com/strataspec/strataspec/engine/rules", "the legacy rules package still exists")
	if len(pkgs) < 5 {
		t.Errorf("go list ./engine/rules/... = %v; want the rule families as packages", pkgs)
	}
}
