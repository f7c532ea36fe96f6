package spec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	gatecheck "github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/rules/all"
	planrules "github.com/strataspec/strataspec/engine/rules/plan"
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
	parsed := 0
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
		parsed++
		bad = append(bad, callsOf(fset, f, fileOpeners)...)
		return nil
	})
	if err != nil {
		t.Fatalf("walking engine/: %v", err)
	}
	if parsed == 0 {
		t.Fatal("no package source under engine/ outside the readers: nothing to check")
	}
	for _, b := range bad {
		rel, _ := filepath.Rel(root, b)
		t.Errorf("%s: opens a file outside the readers (engine/snapfs); read it through the facts layer", rel)
	}
}

// callsOf returns the position and name of every call in f of a function
// the table lists by import path.
func callsOf(fset *token.FileSet, f *ast.File, table map[string][]string) []string {
	imports := map[string]string{} // local name → path
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = path
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if fns, ok := table[imports[id.Name]]; ok && slices.Contains(fns, sel.Sel.Name) {
			out = append(out, fset.Position(sel.Pos()).String()+": "+imports[id.Name]+"."+sel.Sel.Name)
		}
		return true
	})
	return out
}

// checkoutFileCalls are the calls a test that reads a checkout may not
// make: every file of a checkout is read (and, for -update, written)
// through engine/snapfs, golden files with golden.AssertFS.
var checkoutFileCalls = map[string][]string{
	"os":            {"Open", "OpenFile", "ReadFile", "ReadDir", "DirFS", "Stat", "Lstat", "WriteFile", "Create", "CreateTemp", "Mkdir", "MkdirAll", "Remove", "RemoveAll", "Rename", "Readlink"},
	"path/filepath": {"Glob", "Walk", "WalkDir", "EvalSymlinks"},
	"io/ioutil":     {"ReadFile", "ReadDir", "WriteFile"},
	"github.com/strataspec/strataspec/engine/golden": {"Assert", "WriteFile"},
}

// TestCheckoutTestsReadThroughSnapfs: a test file in spec/ that reads the
// checkout STRATA_CHECKOUT names (it calls checkoutDir)
// opens, stats and writes nothing by path, so a link or FIFO in a hostile
// checkout meets snapfs, not the os package.
func TestCheckoutTestsReadThroughSnapfs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(snaptest.Root(), "spec", "*_test.go"))
	if err != nil {
		t.Fatalf("filepath.Glob(spec/*_test.go): %v", err)
	}
	fset := token.NewFileSet()
	readers := 0
	for _, p := range files {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parser.ParseFile(%s): %v", p, err)
		}
		reads := false
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "checkoutDir" {
					reads = true
				}
			}
			return !reads
		})
		if !reads {
			continue
		}
		readers++
		for _, b := range callsOf(fset, f, checkoutFileCalls) {
			rel, _ := filepath.Rel(snaptest.Root(), b)
			t.Errorf("%s: a test that reads a checkout touches a file by path; read it through engine/snapfs (golden files: golden.AssertFS)", rel)
		}
	}
	if readers < 2 {
		t.Errorf("%d test files call checkoutDir; want checkout_test.go and live_checkout_test.go at least", readers)
	}
}

// TestRuleFamiliesArePackages: every rule family is its own package under
// engine/rules, named as its rules' id prefix (engine/rules/compare holds
// compare.*), and the legacy one-package registry is gone. Beside the
// families stand only the registry (all) and code two families share
// (internal/...); the rules' test harness is engine/analysis/analysistest.
func TestRuleFamiliesArePackages(t *testing.T) {
	pkgs := goList(t, module+"engine/rules/...")
	if slices.Contains(pkgs, module+"engine/rules") {
		t.Fatalf("go list engine/rules/... = %v; want no %s: the legacy rules package still exists", pkgs, module+"engine/rules")
	}
	families := map[string]bool{}
	for _, a := range all.Analyzers() {
		families[a.Family()] = true
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p, module+"engine/rules/")
		if rel == "all" || strings.HasPrefix(rel, "internal/") {
			continue
		}
		seen[rel] = true
		if !families[rel] {
			t.Errorf("package engine/rules/%s holds no rule family: no analyzer's id is %s or starts with %s.", rel, rel, rel)
		}
	}
	for fam := range families {
		if !seen[fam] {
			t.Errorf("rule family %s has no package engine/rules/%s", fam, fam)
		}
	}
}

// module is the import path prefix of the project's packages.
const module = "github.com/strataspec/strataspec/"

// goList runs go list with args and returns its output's fields.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Fields(string(out))
}

// driverDeps are the project packages the analysis driver may depend on:
// the finding type and the snapshot's data model (as go/analysis imports
// go/ast and go/types: the runs and records, the spec file, the JSON trees
// that give them places, the confined file system they are read through);
// never a parser, and no table the spec file is checked against (the
// loader checks declared units, engine/audit, after the spec is read).
var driverDeps = []string{"engine/archive", "engine/checkout", "engine/finding", "engine/jsontree", "engine/snapfs"}

// TestDriverImportsNoParser: engine/analysis depends on the data model
// alone; inputs that need a parser are input analyzers in engine/facts.
func TestDriverImportsNoParser(t *testing.T) {
	for _, dep := range goList(t, "-deps", module+"engine/analysis") {
		rel, ok := strings.CutPrefix(dep, module)
		if !ok || rel == "engine/analysis" {
			continue
		}
		if !slices.Contains(driverDeps, rel) {
			t.Errorf("engine/analysis depends on %s; want only %v", rel, driverDeps)
		}
	}
}

// TestRulesImportNoReader: a rule package reads its inputs from the pass
// (its fields and the input analyzers it requires), never through the
// snapshot's file system.
func TestRulesImportNoReader(t *testing.T) {
	lines := goList(t, "-f", "{{.ImportPath}}:{{join .Imports \",\"}}", module+"engine/rules/...")
	if len(lines) == 0 {
		t.Fatal("go list engine/rules/... lists no package: nothing to check")
	}
	for _, l := range lines {
		pkg, imports, _ := strings.Cut(l, ":")
		for _, imp := range strings.Split(imports, ",") {
			if imp == module+"engine/snapfs" {
				t.Errorf("%s imports %s; a rule reads its inputs from its pass", strings.TrimPrefix(pkg, module), strings.TrimPrefix(imp, module))
			}
		}
	}
}

// ruleReads are the rule files that read a snapshot file themselves, and
// why: none reads one the loader or an input analyzer read (the spec file,
// a source, a run's log), which the pass holds.
var ruleReads = map[string]string{
	"engine/rules/cache/cache.go": "the residency records the cache probe's settings name, which no loader reads",
}

// TestRulesReadNoLoadedFile: no rule package calls ReadFile (of the
// snapshot or its file system) but where ruleReads says why.
func TestRulesReadNoLoadedFile(t *testing.T) {
	root := snaptest.Root()
	fset := token.NewFileSet()
	parsed := 0
	err := filepath.WalkDir(filepath.Join(root, "engine", "rules"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if _, ok := ruleReads[rel]; ok {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		parsed++
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "ReadFile" {
					t.Errorf("%s: a rule calls ReadFile; read the input through the pass (Pass.Snap, Pass.Spec, an input analyzer)", fset.Position(c.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatalf("walking engine/rules: %v", err)
	}
	if parsed == 0 {
		t.Fatal("no rule source under engine/rules: nothing to check")
	}
}

// claimsLayers are the claims gate's packages, after text/template's split
// of parse from exec, and the project packages each may not depend on: the
// grammar knows no evaluation, the evaluation no check, and neither the
// driver nor an input analyzer.
var claimsLayers = []struct {
	pkg    string
	denied []string
}{
	{"engine/claims", []string{"engine/claims/eval", "engine/gate", "engine/analysis", "engine/facts"}},
	{"engine/claims/eval", []string{"engine/gate", "engine/analysis", "engine/facts"}},
}

// TestClaimsLayers: the claims table's grammar (engine/claims), its
// evaluation (engine/claims/eval) and the gate's check (engine/gate) depend
// on each other one way only.
func TestClaimsLayers(t *testing.T) {
	for _, l := range claimsLayers {
		for _, dep := range goList(t, "-deps", module+l.pkg) {
			if rel, ok := strings.CutPrefix(dep, module); ok && slices.Contains(l.denied, rel) {
				t.Errorf("%s depends on %s; want none of %v", l.pkg, rel, l.denied)
			}
		}
	}
}

// TestClaimsNoInit: the claims packages keep no state of their own: no
// init function (the derivation table is built by a function) and no
// package-level variable but compiled regular expressions and the gate's
// Analyzer (declared once, as go/analysis declares its analyzers).
func TestClaimsNoInit(t *testing.T) {
	root := snaptest.Root()
	fset := token.NewFileSet()
	for _, dir := range []string{"engine/claims", "engine/claims/eval", "engine/gate"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("%s holds no Go file; want the claims package there", dir)
		}
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name == "init" {
						t.Errorf("%s: func init; build tables in a function", fset.Position(d.Pos()))
					}
				case *ast.GenDecl:
					if d.Tok != token.VAR {
						continue
					}
					for _, s := range d.Specs {
						for i, v := range s.(*ast.ValueSpec).Values {
							if c, ok := v.(*ast.CallExpr); ok && isRegexpMust(c) || s.(*ast.ValueSpec).Names[i].Name == "Analyzer" {
								continue
							}
							t.Errorf("%s: package-level variable %s; want no state outside a value", fset.Position(s.Pos()), s.(*ast.ValueSpec).Names[i])
						}
					}
				}
			}
		}
	}
}

// isRegexpMust reports whether c is regexp.MustCompile(…).
func isRegexpMust(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "regexp" && sel.Sel.Name == "MustCompile"
}

// TestPlanRulesRequireGate: the plan rules read the gate's typed result
// (gate.Analyzer), which they require: none runs without it.
func TestPlanRulesRequireGate(t *testing.T) {
	as := planrules.Analyzers()
	if len(as) != 5 {
		t.Errorf("plan.Analyzers() = %d rules; want the five plan rules", len(as))
	}
	for _, a := range as {
		if !slices.Contains(a.Requires, gatecheck.Analyzer.Analyzer) {
			t.Errorf("%s requires %v; want the gate (gate.Analyzer) among them", a.Name, a.Requires)
		}
	}
}

// TestSuggestBesideProgram: -suggest's rows are proposed beside the program
// that prints them (tools/strataspec/suggest), never by the engine: no
// package under engine/ depends on a tool.
func TestSuggestBesideProgram(t *testing.T) {
	for _, l := range goList(t, "-f", "{{.ImportPath}}:{{join .Deps \",\"}}", module+"engine/...") {
		pkg, deps, _ := strings.Cut(l, ":")
		for _, dep := range strings.Split(deps, ",") {
			if strings.HasPrefix(dep, module+"tools/") {
				t.Errorf("%s depends on %s; the engine imports no tool", strings.TrimPrefix(pkg, module), strings.TrimPrefix(dep, module))
			}
		}
	}
	if deps := goList(t, "-deps", module+"tools/strataspec"); !slices.Contains(deps, module+"tools/strataspec/suggest") {
		t.Errorf("tools/strataspec does not import tools/strataspec/suggest; -suggest's rows are proposed there")
	}
}

// TestNoTestify: the repository's tests assert in one style, the standard
// library's (if got != want { t.Errorf("f(%q) = %v; want %v", ...) },
// go-cmp's cmp.Diff for structures, t.Fatalf for setup): no Go file imports
// github.com/stretchr/testify, and go.mod does not require it.
func TestNoTestify(t *testing.T) {
	root := snaptest.Root()
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if path != "github.com/stretchr/testify" && !strings.HasPrefix(path, "github.com/stretchr/testify/") {
				continue
			}
			t.Errorf("%s:%d: imports %s; assert in the standard library's style (t.Errorf with got and want, cmp.Diff, t.Fatalf for setup)", rel, fset.Position(im.Pos()).Line, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	if files == 0 {
		t.Fatalf("walking %s found no Go file; want the repository's", root)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatalf("reading go.mod: %v", err)
	}
	if strings.Contains(string(mod), "github.com/stretchr/testify") {
		t.Errorf("go.mod names github.com/stretchr/testify, which no Go file imports; run go mod tidy")
	}
}

// TestRuleFamiliesHaveWantCases: every rule family has rule-level cases in
// the one harness (analysistest.RunCases over its testdata): a case that
// fails (a .want with a fail line) and one that passes (a .want with no
// fail, error or not-applied line), a case for each of its analyzers (named
// by a "rule NAME" line where the family has more than one), and a test of
// the package that runs them.
func TestRuleFamiliesHaveWantCases(t *testing.T) {
	root := snaptest.Root()
	families := map[string][]string{} // family → its analyzers' names
	for _, a := range all.Analyzers() {
		families[a.Family()] = append(families[a.Family()], a.Name)
	}
	ruleLine := regexp.MustCompile(`(?m)^rule ([^ \n]+)\s*$`)
	for _, fam := range slices.Sorted(maps.Keys(families)) {
		dir := filepath.Join(root, "engine", "rules", fam)
		wants, err := filepath.Glob(filepath.Join(dir, "testdata", "*.want"))
		if err != nil {
			t.Fatalf("filepath.Glob(%s/testdata/*.want): %v", fam, err)
		}
		failing, passing := 0, 0
		named := map[string]bool{}
		for _, w := range wants {
			b, err := os.ReadFile(w)
			if err != nil {
				t.Fatalf("reading %s: %v", w, err)
			}
			for _, m := range ruleLine.FindAllSubmatch(b, -1) {
				named[string(m[1])] = true
			}
			switch {
			case regexp.MustCompile(`(?m)^fail[/ ]`).Match(b):
				failing++
			case !regexp.MustCompile(`(?m)^(error|not-applied) `).Match(b):
				passing++
			}
		}
		if failing == 0 || passing == 0 {
			t.Errorf("rule family %s: %d failing and %d passing cases in engine/rules/%s/testdata; want at least one of each (CASE.want beside CASE, analysistest.RunCases)", fam, failing, passing, fam)
		}
		for _, name := range families[fam] {
			if len(families[fam]) > 1 && !named[name] {
				t.Errorf("rule %s: no case in engine/rules/%s/testdata names it (a \"rule %s\" line in a .want)", name, fam, name)
			}
		}
		tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatalf("filepath.Glob(%s/*_test.go): %v", fam, err)
		}
		runs := false
		for _, f := range tests {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatalf("reading %s: %v", f, err)
			}
			runs = runs || strings.Contains(string(b), "analysistest.RunCases(")
		}
		if len(wants) > 0 && !runs {
			t.Errorf("rule family %s: no test in engine/rules/%s calls analysistest.RunCases, so its cases do not run", fam, fam)
		}
	}
}
