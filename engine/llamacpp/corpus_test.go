package llamacpp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/golden"
	"github.com/strataspec/strataspec/engine/tail"
)

const corpusDir = "testdata/corpus"

// corpusPrograms reads the corpus README's table: file → program.
func corpusPrograms(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, l := range strings.Split(string(b), "\n") {
		cs := strings.Split(l, "|")
		if len(cs) < 4 || !strings.HasPrefix(l, "| ") || strings.TrimSpace(cs[1]) == "file" {
			continue
		}
		file, prog := strings.TrimSpace(cs[1]), strings.TrimSpace(cs[2])
		if !isProgram(prog) {
			t.Errorf("%s/README.md:%d: unknown program %q for %s", corpusDir, i+1, prog, file)
		}
		out[file] = prog
	}
	return out
}

func isProgram(p string) bool {
	for _, q := range Programs() {
		if p == q {
			return true
		}
	}
	return false
}

// formatGolden prints a parse one metric or error a line.
func formatGolden(program string, ms *tail.Metrics) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "program %s: %d metrics, %d errors\n", program, len(ms.List), len(ms.Errors))
	for _, m := range ms.List {
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s", m.Line, m.Name, m.Num.Text, m.Unit)
		if s := m.Samples(); len(s) > 0 {
			fmt.Fprintf(&b, "\tsamples %v", s)
		}
		b.WriteByte('\n')
	}
	for _, e := range ms.Errors {
		fmt.Fprintf(&b, "error\t%d\t%s\n", e.Line, e.Msg)
	}
	return []byte(b.String())
}

// Every corpus file parses to its golden; every file has a README row and
// every row a file.
func TestCorpus(t *testing.T) {
	progs := corpusPrograms(t)
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if name == "README.md" || strings.HasSuffix(name, ".golden") {
			continue
		}
		seen[name] = true
		prog, ok := progs[name]
		if !ok {
			t.Errorf("%s has no row in %s/README.md (source and build)", name, corpusDir)
			continue
		}
		b, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			t.Fatal(err)
		}
		ms := ParseProgram(prog, name, string(b))
		golden.Assert(t, filepath.Join(corpusDir, name+".golden"), formatGolden(prog, ms))
	}
	for f := range progs {
		if !seen[f] {
			t.Errorf("%s/README.md lists %s, which is not in the corpus", corpusDir, f)
		}
	}
	if len(seen) < 25 {
		t.Errorf("corpus holds %d outputs; want at least 25", len(seen))
	}
}
