package spec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// concurrent reports whether the package in dir starts a goroutine or
// imports sync or sync/atomic in its non-test files, and whether it has
// tests of its own.
func concurrent(t *testing.T, dir string) (conc, tests bool) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		if strings.HasSuffix(name, "_test.go") {
			tests = true
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "sync" || p == "sync/atomic" {
				conc = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.GoStmt); ok {
				conc = true
			}
			return !conc
		})
	}
	return conc, tests
}

// TestRacePackagesListed: make test runs the race detector on the packages
// of the Makefile's RACE_PKGS and every other test without it, so a
// package that starts goroutines or takes locks must be listed there (or
// be a test helper whose importer is).
func TestRacePackagesListed(t *testing.T) {
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RACE_PKGS := (.+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("Makefile has no RACE_PKGS line")
	}
	listed := strings.Fields(string(m[1]))
	for _, root := range []string{"../engine", "../tools"} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case !d.IsDir():
				return nil
			case d.Name() == "testdata":
				return filepath.SkipDir
			}
			conc, tests := concurrent(t, p)
			rel := filepath.ToSlash(strings.TrimPrefix(p, "../"))
			covered := slices.ContainsFunc(listed, func(l string) bool { return rel == l || strings.HasPrefix(rel, l+"/") })
			if conc && tests && !covered {
				t.Errorf("%s starts goroutines or takes locks and has tests, but the Makefile's RACE_PKGS does not list it: its tests would run without the race detector", rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range listed {
		if conc, _ := concurrent(t, "../"+l); !conc {
			t.Errorf("RACE_PKGS lists %s, which neither starts a goroutine nor takes a lock", l)
		}
	}
}

// TestActionBuildsTheProgram: the composite action (action.yml) builds a
// main program that exists, and the CI workflow uses the action (uses: ./),
// so that make test's actionlint checks its inputs.
func TestActionBuildsTheProgram(t *testing.T) {
	action, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`go build -o "\$RUNNER_TEMP/strataspec" (\./tools/\w+)`).FindSubmatch(action)
	if m == nil {
		t.Fatal("action.yml builds no ./tools/NAME program")
	}
	if _, err := os.Stat(filepath.Join("..", string(m[1]), "main.go")); err != nil {
		t.Errorf("action.yml builds %s: %v", m[1], err)
	}
	ci, err := os.ReadFile("../.github/workflows/ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s+- uses: \./\s*$`).Match(ci) {
		t.Error("the CI workflow does not use the action (uses: ./): actionlint would not check it")
	}
}

// makeRecipes returns the recipe lines of the Makefile's target and of the
// targets its recipe runs through $(MAKE), keyed by target.
func makeRecipes(t *testing.T, mk, target string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	todo := []string{target}
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		if _, ok := out[name]; ok {
			continue
		}
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `:.*\n((?:\t.*\n)+)`).FindStringSubmatch(mk)
		if m == nil {
			t.Fatalf("Makefile has no target %q", name)
		}
		lines := strings.Split(strings.TrimSuffix(m[1], "\n"), "\n")
		out[name] = lines
		for _, l := range lines {
			if rest, ok := strings.CutPrefix(strings.TrimLeft(l, "\t@"), "$(MAKE) "); ok {
				for _, f := range strings.Fields(rest) {
					if !strings.HasPrefix(f, "-") {
						todo = append(todo, f)
					}
				}
			}
		}
	}
	return out
}

// makeRuns reports whether the Makefile's target, or a target its recipe
// runs through $(MAKE), has the recipe line line.
func makeRuns(t *testing.T, mk, target, line string) bool {
	t.Helper()
	for _, lines := range makeRecipes(t, mk, target) {
		if slices.Contains(lines, line) {
			return true
		}
	}
	return false
}

// TestVetOffOnlyBesideGoVet: make test's go test steps pass -vet=off, which
// drops go test's own vet pass (eleven analyzers, run again per build
// configuration), only because the same make test runs go vet ./... with
// every analyzer, for linux and for darwin/arm64. Removing either go vet
// step while a test step keeps -vet=off would leave the code unvetted.
func TestVetOffOnlyBesideGoVet(t *testing.T) {
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	recipes := makeRecipes(t, string(b), "test")
	vetOff := 0
	found := map[string]bool{}
	linux := regexp.MustCompile(`^\t\$\(GO\) vet \./\.\.\.$`)
	darwin := regexp.MustCompile(`^\t(nice -n \d+ )?(env )?\$\(DARWIN\) \$\(GO\) vet \./\.\.\.$`)
	for _, lines := range recipes {
		for _, l := range lines {
			if strings.Contains(l, "-vet=off") {
				vetOff++
			}
			found["linux"] = found["linux"] || linux.MatchString(l)
			found["darwin"] = found["darwin"] || darwin.MatchString(l)
		}
	}
	if vetOff == 0 {
		t.Skip("no test step passes -vet=off")
	}
	for _, goos := range []string{"linux", "darwin"} {
		if !found[goos] {
			t.Errorf("make test runs %d test steps with -vet=off but no go vet ./... for %s (targets %v)", vetOff, goos, slices.Sorted(maps.Keys(recipes)))
		}
	}
}
