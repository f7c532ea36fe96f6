package spec

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/checkout"
)

// readmeSection returns the README's text from the heading that starts
// with head to the next heading of the same or a higher level.
func readmeSection(t *testing.T, head string) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatalf("reading README.md: %v", err)
	}
	readme := string(b)
	start := strings.Index(readme, "\n"+head)
	if start < 0 {
		t.Fatalf("README.md has no heading %q", head)
	}
	level := strings.Index(head, " ") // the heading's #s
	body := readme[start+1+len(head):]
	for i := 0; i < len(body); {
		nl := strings.IndexByte(body[i:], '\n')
		if nl < 0 {
			break
		}
		line := body[i+nl+1:]
		if n := len(line) - len(strings.TrimLeft(line, "#")); n > 0 && n <= level && strings.HasPrefix(line[n:], " ") {
			return body[:i+nl+1]
		}
		i += nl + 1
	}
	return body
}

// specKeys returns the keys checkout.Spec decodes from a spec file: the
// JSON names of its fields.
func specKeys() []string {
	var keys []string
	typ := reflect.TypeFor[checkout.Spec]()
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		keys = append(keys, name)
	}
	slices.Sort(keys)
	return keys
}

// TestREADMESpecKeys keeps the README's spec-file table and the keys
// checkout.Spec decodes equal: a key added to the decoder without a row,
// or a row for a key it no longer reads, fails here.
func TestREADMESpecKeys(t *testing.T) {
	section := readmeSection(t, "### The spec file: `strataspec.json`")
	cell := regexp.MustCompile("`([a-z_]+)`")
	var rows []string
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(line[1:], "|")
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			rows = append(rows, m[1])
		}
	}
	slices.Sort(rows)
	want := specKeys()
	if len(want) < 10 {
		t.Fatalf("checkout.Spec decodes %d keys (%v); want the dozen the spec file has", len(want), want)
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("README.md's spec-file table against checkout.Spec's keys (-decoded +table):\n%s", diff)
	}
}

// TestCheckoutDocSpecKeys keeps the example spec file in engine/checkout's
// package doc, which README calls the full format, giving every key
// checkout.Spec decodes, each once.
func TestCheckoutDocSpecKeys(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../engine/checkout/checkout.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatalf("parsing engine/checkout/checkout.go: %v", err)
	}
	if f.Doc == nil {
		t.Fatal("engine/checkout/checkout.go has no package doc")
	}
	var keys []string
	for _, m := range regexp.MustCompile(`(?m)^\t  "([a-z_]+)":`).FindAllStringSubmatch(f.Doc.Text(), -1) {
		keys = append(keys, m[1])
	}
	slices.Sort(keys)
	if diff := cmp.Diff(specKeys(), keys); diff != "" {
		t.Errorf("engine/checkout's package doc example against checkout.Spec's keys (-decoded +doc):\n%s", diff)
	}
}

// TestREADMELayoutNamesPackages checks that the README's Layout section
// names every package under engine/ (by its path below engine/, in
// backquotes), so a package added is given a role there. The rule
// families are named together in the diagram and held to their packages
// by spec/architecture_test.go; this test names the rest.
func TestREADMELayoutNamesPackages(t *testing.T) {
	section := readmeSection(t, "## Layout")
	var pkgs []string
	err := filepath.WalkDir("../engine", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel("../engine", filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !slices.Contains(pkgs, rel) {
			pkgs = append(pkgs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking engine/: %v", err)
	}
	if len(pkgs) < 30 {
		t.Fatalf("found %d packages under engine/ (%v); want the thirty and more it has", len(pkgs), pkgs)
	}
	for _, p := range pkgs {
		if strings.HasPrefix(p, "rules/") && p != "rules/all" && !strings.HasPrefix(p, "rules/internal/") {
			continue // a rule family: named in the diagram's list of families
		}
		if !strings.Contains(section, "`"+p+"`") && !strings.Contains(section, "`"+p+" ") {
			t.Errorf("README.md's Layout section does not name engine/%s (want `%s` with its role)", p, p)
		}
	}
}
