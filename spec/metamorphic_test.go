package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// Metamorphic tests: a transformation that changes nothing a rule may
// depend on must leave the audit's verdict and its non-pass findings (rule,
// severity, audit id) as they were. They guard against knowledge of one
// snapshot creeping back into the code: a rule that keys on a run's name, a
// key's position, the formatting of the results file or the lines of a
// source file breaks one of them.

// outcome is what a transformation must preserve.
type outcome struct {
	Verdict string
	Issues  []string // "rule severity id", sorted, with multiplicity
}

func auditOutcome(t *testing.T, root string) outcome {
	t.Helper()
	rep, err := audit.Audit(root, "")
	if err != nil {
		t.Fatalf("audit.Audit(%s) = %v", root, err)
	}
	o := outcome{Verdict: rep.Verdict}
	for _, f := range rep.Findings {
		if f.Severity != finding.Pass {
			o.Issues = append(o.Issues, fmt.Sprintf("%s %s %s", f.Rule, f.Severity, f.ID))
		}
	}
	slices.Sort(o.Issues)
	return o
}

// transform edits a private copy of a snapshot in place.
type transform struct {
	name string
	edit func(t *testing.T, root string)
}

func transforms() []transform {
	return []transform{
		{"runs renamed consistently", renameRuns},
		{"unknown keys everywhere", func(t *testing.T, root string) {
			editResults(t, root, func(doc map[string]any, runs []any) {
				doc["notes"] = []any{"free text the runner added", json.Number("3")}
				for _, r := range runs {
					r.(map[string]any)["host"] = "m5-studio"
				}
			}, true)
		}},
		{"results minified, keys reordered", func(t *testing.T, root string) {
			editResults(t, root, func(map[string]any, []any) {}, false)
		}},
		{"unrelated code appended to every source file", appendCode},
		{"run records under other key names, mapped in the spec", remapKeys},
		{"prose with numbers outside the claim sections", func(t *testing.T, root string) {
			p := filepath.Join(root, "PLAN.md")
			snaptest.Write(t, p, snaptest.Read(t, p)+"\n## Afterword\n\nWritten by 3 people over 2 weeks; thanks to the 4 reviewers.\n")
		}},
		{"snapshot under a path with spaces and non-ASCII", func(t *testing.T, root string) {}}, // see moveTo below
	}
}

// metamorphicFixtures are the snapshots every transformation runs on.
func metamorphicFixtures() []string {
	out := []string{"m5", "m5-v3"}
	if _, err := os.Stat(snaptest.FixturePath("llamacpp")); err == nil {
		out = append(out, "llamacpp")
	}
	return out
}

func TestMetamorphic(t *testing.T) {
	for _, fx := range metamorphicFixtures() {
		base := auditOutcome(t, snaptest.Fixture(t, fx))
		if len(base.Issues) == 0 && fx == "m5-v3" {
			t.Fatalf("fixtures/m5-v3 audits with no issue: the comparison would test nothing")
		}
		for _, tr := range transforms() {
			t.Run(fx+"/"+tr.name, func(t *testing.T) {
				root := snaptest.CopyFixture(t, fx)
				before := treeDigest(t, root)
				moved := strings.Contains(tr.name, "spaces")
				if moved {
					moved := filepath.Join(t.TempDir(), "my snapshot ü", "a b")
					if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(root, moved); err != nil {
						t.Fatal(err)
					}
					root = moved
				}
				tr.edit(t, root)
				if !moved && treeDigest(t, root) == before {
					// The audit of an unchanged copy equals the base by
					// construction: such a subtest would compare the
					// audit with itself.
					if fx == "llamacpp" {
						t.Skipf("%q changes nothing in fixtures/%s (a folder of logs: no results file, no source)", tr.name, fx)
					}
					t.Fatalf("%q changed nothing in fixtures/%s: the comparison would test nothing", tr.name, fx)
				}
				got := auditOutcome(t, root)
				if diff := cmp.Diff(base, got); diff != "" {
					t.Errorf("audit of fixtures/%s after %q changed (-before +after):\n%s", fx, tr.name, diff)
				}
			})
		}
	}
}

// treeDigest returns a hash of every name, link target and file content
// under root, so a transformation that edits nothing can be told apart.
func treeDigest(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00%v\x00", filepath.ToSlash(rel), d.Type())
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00", target)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%d\x00", len(b))
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("hashing %s: %v", root, err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// resultsFiles returns the snapshot's results files (JSON with runs).
func resultsFiles(t *testing.T, root string) (*archive.Snapshot, []string) {
	t.Helper()
	snap, err := archive.Load(root, format.For)
	if err != nil {
		t.Fatalf("archive.Load(%s, format.For) = %v", root, err)
	}
	seen := map[string]bool{}
	var files []string
	for _, r := range snap.Runs {
		if strings.HasSuffix(r.File, ".json") && !seen[r.File] && strings.Contains(r.Source, "runs[") {
			seen[r.File] = true
			files = append(files, r.File)
		}
	}
	return snap, files
}

// editResults decodes every results file (numbers kept as written), lets f
// edit it, and writes it back indented or minified; either way keys come out
// sorted, so the order of keys changes too.
func editResults(t *testing.T, root string, f func(doc map[string]any, runs []any), indent bool) {
	t.Helper()
	_, files := resultsFiles(t, root)
	if len(files) == 0 {
		return // a folder of logs: nothing to edit
	}
	for _, rel := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		dec := json.NewDecoder(strings.NewReader(snaptest.Read(t, p)))
		dec.UseNumber()
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("decoding %s: %v", rel, err)
		}
		runs, _ := doc["runs"].([]any)
		f(doc, runs)
		writeJSON(t, p, doc, indent)
	}
}

func writeJSON(t *testing.T, p string, v any, indent bool) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding %s: %v", p, err)
	}
	snaptest.Write(t, p, b.String())
}

var nameToken = regexp.MustCompile(`[A-Za-z0-9_.*-]+`)

// renameRuns gives every run a new name everywhere the snapshot names it:
// "r-" + the name with "_" turned to "-". A glob that matches run names
// (a claims set) is renamed the same way, so it keeps matching them.
func renameRuns(t *testing.T, root string) {
	t.Helper()
	snap, err := archive.Load(root, format.For)
	if err != nil {
		t.Fatalf("archive.Load(%s, format.For) = %v", root, err)
	}
	names := map[string]bool{}
	for _, r := range snap.Runs {
		names[r.Name] = true
	}
	rename := func(tok string) string {
		if names[tok] {
			return "r-" + strings.ReplaceAll(tok, "_", "-")
		}
		if i := strings.IndexByte(tok, '*'); i > 0 && !strings.ContainsAny(tok, "./") {
			for n := range names {
				if ok, _ := path.Match(tok, n); ok {
					return "r-" + strings.ReplaceAll(tok, "_", "-")
				}
			}
		}
		return tok
	}
	n := 0
	walkText(t, root, func(rel, text string) string {
		out := nameToken.ReplaceAllStringFunc(text, rename)
		if out != text {
			n++
		}
		return out
	})
	// Runs named by their file (logs and their sidecars, llama-bench
	// output): rename the files too.
	for _, r := range snap.Runs {
		if r.File == "" || strings.Contains(r.Source, "runs[") {
			continue
		}
		dir, base := path.Split(r.File)
		if !strings.HasPrefix(base, r.Name+".") {
			continue
		}
		rest := strings.TrimPrefix(base, r.Name)
		moves := []string{rest}
		if path.Ext(rest) != ".json" {
			moves = append(moves, ".json") // a log's sidecar
		}
		for _, ext := range moves {
			old := filepath.Join(root, filepath.FromSlash(dir), r.Name+ext)
			if _, err := os.Stat(old); err == nil {
				if err := os.Rename(old, filepath.Join(root, filepath.FromSlash(dir), rename(r.Name)+ext)); err != nil {
					t.Fatal(err)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatalf("renameRuns renamed nothing in %s", root)
	}
}

// walkText rewrites every text file of the snapshot with f.
func walkText(t *testing.T, root string, f func(rel, text string) string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			return nil // binary
		}
		rel, _ := filepath.Rel(root, p)
		if out := f(filepath.ToSlash(rel), string(b)); out != string(b) {
			return os.WriteFile(p, []byte(out), 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("rewriting the text files of %s: %v", root, err)
	}
}

// appendCode appends an ordinary helper to every source file and records
// the new hashes wherever the snapshot records a file's sha256 and size.
func appendCode(t *testing.T, root string) {
	t.Helper()
	helpers := map[string]string{
		".py":    "\n\ndef pad_rows(n):\n    return (n // 4 + 1024) * 2\n",
		".c":     "\nstatic inline int pad_rows(int n) { return (n / 4 + 1024) * 2; }\n",
		".cpp":   "\nstatic inline int pad_rows(int n) { return (n / 4 + 1024) * 2; }\n",
		".h":     "\nstatic inline int pad_rows(int n) { return (n / 4 + 1024) * 2; }\n",
		".metal": "\nstatic inline int pad_rows(int n) { return (n / 4 + 1024) * 2; }\n",
	}
	changed := map[string][]byte{}
	walkText(t, root, func(rel, text string) string {
		h, ok := helpers[path.Ext(rel)]
		if !ok {
			return text
		}
		changed[rel] = []byte(text + h)
		return text + h
	})
	if len(changed) == 0 {
		return // no sources: nothing to append to
	}
	_, files := resultsFiles(t, root)
	for _, rel := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		dec := json.NewDecoder(strings.NewReader(snaptest.Read(t, p)))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("decoding %s: %v", rel, err)
		}
		if rehash(doc, changed) {
			writeJSON(t, p, doc, true)
		}
	}
}

// rehash updates every {"path", "sha256", "bytes"} record of a changed file.
func rehash(v any, changed map[string][]byte) bool {
	hit := false
	switch v := v.(type) {
	case map[string]any:
		if p, ok := v["path"].(string); ok {
			if b, ok := changed[p]; ok {
				if _, ok := v["sha256"]; ok {
					sum := sha256.Sum256(b)
					v["sha256"] = hex.EncodeToString(sum[:])
					hit = true
				}
				if _, ok := v["bytes"]; ok {
					v["bytes"] = json.Number(fmt.Sprint(len(b)))
				}
			}
		}
		for _, e := range v {
			hit = rehash(e, changed) || hit
		}
	case []any:
		for _, e := range v {
			hit = rehash(e, changed) || hit
		}
	}
	return hit
}

// remapKeys moves every run record's fields to other key names (argv under
// "invocation.argv", the tail under "stdout") and declares the mapping in
// the spec file: the loader must take a run from any key names.
func remapKeys(t *testing.T, root string) {
	t.Helper()
	renames := map[string]string{"cmd": "argv", "output_tail": "stdout", "exit_code": "status", "duration_s": "seconds", "name": "run_id"}
	editResults(t, root, func(doc map[string]any, runs []any) {
		for _, r := range runs {
			rec := r.(map[string]any)
			for from, to := range renames {
				if v, ok := rec[from]; ok {
					delete(rec, from)
					rec[to] = v
				}
			}
			if v, ok := rec["argv"]; ok {
				delete(rec, "argv")
				rec["invocation"] = map[string]any{"argv": v}
			}
		}
	}, true)
	p := filepath.Join(root, "strataspec.json")
	dec := json.NewDecoder(strings.NewReader(snaptest.Read(t, p)))
	dec.UseNumber()
	var spec map[string]any
	if err := dec.Decode(&spec); err != nil {
		t.Fatalf("decoding %s: %v", p, err)
	}
	results, _ := spec["results"].([]any)
	if len(results) == 0 {
		return // a folder of logs: no records to remap
	}
	for _, e := range results {
		e.(map[string]any)["fields"] = map[string]any{"name": "run_id", "argv": "invocation.argv", "tail": "stdout", "exit": "status", "duration": "seconds"}
	}
	writeJSON(t, p, spec, true)
}
