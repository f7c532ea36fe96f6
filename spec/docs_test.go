package spec

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
)

// docFiles are the documents a clone must be able to read through: the
// README, docs/ and the fixtures' READMEs.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"../README.md"}
	for _, glob := range []string{"../docs/*.md", "../fixtures/*/README.md", "../fixtures/*/*/README.md"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

var mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)

// TestDocsStayInRepository: no document points outside the repository
// (../shared was the authors' folder, which a clone does not have), and
// every relative link names a file that exists.
func TestDocsStayInRepository(t *testing.T) {
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.Contains(text, "../shared") {
			t.Errorf("%s points at ../shared, outside the repository", f)
		}
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p := filepath.Join(filepath.Dir(f), filepath.FromSlash(target))
			rel, err := filepath.Rel("..", p)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s: link %q leads out of the repository", f, target)
				continue
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: link %q names no file: %v", f, target, err)
			}
		}
	}
}

// TestFindingsCatalogue: docs/findings.md lists every id of seedFindings
// once, in order, with the severities the reports are held to.
func TestFindingsCatalogue(t *testing.T) {
	b, err := os.ReadFile("../docs/findings.md")
	if err != nil {
		t.Fatal(err)
	}
	sev := map[string]finding.Severity{"pass": pass, "warn": warn, "fail": fail}
	var rows [][]string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| F") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) != len(seedFindings) {
		t.Fatalf("docs/findings.md has %d finding rows; want %d", len(rows), len(seedFindings))
	}
	for i, sf := range seedFindings {
		row := rows[i]
		if len(row) != 6 {
			t.Errorf("docs/findings.md row %d = %q; want 6 cells", i+1, row)
			continue
		}
		v3, ok3 := sev[row[4]]
		m5, ok5 := sev[strings.Fields(row[5])[0]]
		if row[0] != sf.id || !ok3 || !ok5 || v3 != sf.v3 || m5 != sf.fix {
			t.Errorf("docs/findings.md row %d = %s %s/%s; want %s %v/%v", i+1, row[0], row[4], row[5], sf.id, sf.v3, sf.fix)
		}
	}
}
