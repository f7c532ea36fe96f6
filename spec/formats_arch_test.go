package spec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// formatNameUses lists the files that may spell a built-in format's name as
// a string, or switch on a run's format, and why: in each the string is
// something else that happens to be spelled the same.
var formatNameUses = map[string]string{
	"engine/llamacpp/program.go":        "llama.cpp's binary names (llama-bench, llama-perplexity, llama-server), which the formats of their output are named after",
	"engine/archive/load.go":            `the argv[0] a llama-bench output file's run is given ("llama-bench"), whose format the registry names`,
	"engine/rules/selftest/selftest.go": `the text "self-test" a runner's source prints on its PASS line`,
}

// formatNameViolations walks the Go files (tests aside) under root/dir
// outside engine/format and returns, for each file not in allowed, every
// string literal equal to a built-in format's name and every switch on, or
// comparison of, a Parser field with anything but "".
func formatNameViolations(t *testing.T, root, dir string, allowed map[string]string) []string {
	t.Helper()
	builtins := format.Builtins()
	fset := token.NewFileSet()
	var out []string
	seen := 0
	err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		seen++
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "engine/format/") {
			return nil
		}
		if _, ok := allowed[rel]; ok {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		say := func(n ast.Node, what string) {
			out = append(out, fset.Position(n.Pos()).String()+": "+what)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && slices.Contains(builtins, s) {
					say(n, "names the format "+n.Value+" by string")
				}
			case *ast.SwitchStmt:
				if isParserField(n.Tag) {
					say(n, "switches on a run's format")
				}
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isParserField(n.X) && !isEmptyString(n.Y) || isParserField(n.Y) && !isEmptyString(n.X)) {
					say(n, "compares a run's format with a name")
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", filepath.Join(root, dir), err)
	}
	if seen == 0 {
		t.Fatalf("walking %s found no Go file to check", filepath.Join(root, dir))
	}
	return out
}

func isParserField(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Parser"
}

func isEmptyString(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && (lit.Value == `""` || lit.Value == "``")
}

// TestFormatsRegisteredOnce: a format has one home, engine/format's
// registry. No other package under engine/ spells a built-in format's name
// or asks which format read a run (beside formatNameUses, each with its
// reason): they ask the registry (Program, Recognize, Strata, LlamaCpp) or
// use its constants.
func TestFormatsRegisteredOnce(t *testing.T) {
	for _, v := range formatNameViolations(t, snaptest.Root(), "engine", formatNameUses) {
		t.Error(v)
	}
	for file := range formatNameUses {
		if _, err := os.Stat(filepath.Join(snaptest.Root(), filepath.FromSlash(file))); err != nil {
			t.Errorf("formatNameUses names %s: %v", file, err)
		}
	}
}

// TestFormatsCheckFindsPlanted: the check above fails on each kind of
// violation, planted in a tree of its own.
func TestFormatsCheckFindsPlanted(t *testing.T) {
	root := t.TempDir()
	src := `package x

type run struct{ Parser string }

func f(r run) bool {
	switch r.Parser {
	case "strata":
	}
	_ = r.Parser == ""
	return r.Parser != name
}

const name = "llama-bench"
`
	for _, rel := range []string{"engine/x/x.go", "engine/format/ok.go", "engine/x/x_test.go"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := formatNameViolations(t, root, "engine", nil)
	want := []string{`x.go:6:2: switches on a run's format`, `x.go:7:7: names the format "strata" by string`,
		`x.go:10:9: compares a run's format with a name`, `x.go:13:14: names the format "llama-bench" by string`}
	if len(got) != len(want) {
		t.Fatalf("violations in the planted tree = %q; want %d: %q", got, len(want), want)
	}
	for i := range want {
		if !strings.HasSuffix(got[i], want[i]) {
			t.Errorf("violation %d = %q; want one ending %q", i, got[i], want[i])
		}
	}
	if got := formatNameViolations(t, root, "engine", map[string]string{"engine/x/x.go": "planted"}); len(got) != 0 {
		t.Errorf("with engine/x/x.go allowed: %q; want none", got)
	}
}
