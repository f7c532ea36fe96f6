package code_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/audit/audittest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// padRows is an ordinary helper with a literal divisor and a large literal:
// outside the functions the spec names, it is none of the rule's business.
const padRows = "\nstatic inline int pad_rows(int n) { return (n / 4 + 1024) * 2; }\n"

const (
	runner = "scripts/run_phase0_phase2_m5_validation.py"
	window = "vendor/strata/metal/window.cpp"
)

// sources lists the fixture's source files (the spec's scripts/** and
// vendor/** with a known language).
func sources(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"scripts", "vendor"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch filepath.Ext(p) {
			case ".py", ".cpp", ".metal":
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walking %s: %v", dir, err)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no sources under %s", root)
	}
	return out
}

// wantOne fails the test unless got is one line containing want.
func wantOne(t *testing.T, what string, got []string, want string) {
	t.Helper()
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Fatalf("%s = %q; want one finding containing %q", what, got, want)
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	snaptest.Write(t, path, snaptest.Read(t, path)+text)
}

// nonPass returns "id severity file:line" of every finding that is not a
// pass.
func nonPass(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Severity != finding.Pass {
			out = append(out, f.ID+" "+f.Severity.String()+" "+f.File+": "+f.Message)
		}
	}
	return out
}

// audited runs the rules (all for "") over the snapshot at root.
func audited(t *testing.T, root string, rules ...string) *report.Report {
	t.Helper()
	list := "code"
	if len(rules) > 0 {
		list = strings.Join(rules, ",")
	}
	rep, err := audittest.Audit(root, list)
	if err != nil {
		t.Fatalf("audit.Audit(%s, %q): %v", root, list, err)
	}
	return rep
}

// TestHelperAppended appends pad_rows to every source of both fixtures and
// updates the provenance record's hashes and sizes to match, as a runner
// would: the whole audit's verdict and non-pass findings stay exactly as
// they were (issue 10: it used to turn the fixed snapshot into a
// FALSIFIER HIT with F19 and F20).
func TestHelperAppended(t *testing.T) {
	for _, snap := range []string{"m5", "m5-v3"} {
		t.Run(snap, func(t *testing.T) {
			before := audited(t, snaptest.Fixture(t, snap), "")
			root := snaptest.CopyFixture(t, snap)
			results := filepath.Join(root, snaptest.ResultsFile)
			for _, p := range sources(t, root) {
				old := snaptest.Read(t, p)
				appendTo(t, p, padRows)
				rehash(t, results, old, old+padRows)
			}
			after := audited(t, root, "")
			if after.Verdict != before.Verdict {
				t.Fatalf("audit(%s with pad_rows appended) verdict = %v; want %v, as before", snap, after.Verdict, before.Verdict)
			}
			if diff := cmp.Diff(nonPass(before), nonPass(after)); diff != "" {
				t.Fatalf("audit(%s with pad_rows appended) non-pass findings (-before +after):\n%s", snap, diff)
			}
		})
	}
	if got := audited(t, snaptest.Fixture(t, "m5"), "").Verdict; got != report.VerdictPass {
		t.Fatalf("audit(m5) verdict = %v; want %v", got, report.VerdictPass)
	}
}

// rehash replaces the provenance record of a file's old content (its
// sha256 and size) by the new content's, in the results file at path.
func rehash(t *testing.T, path, old, new string) {
	t.Helper()
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	re := regexp.MustCompile(`"sha256": "` + sum(old) + `",(\s*)"bytes": ` + strconv.Itoa(len(old)) + `\b`)
	text := snaptest.Read(t, path)
	if !re.MatchString(text) {
		return // not a file provenance records
	}
	snaptest.Write(t, path, re.ReplaceAllString(text, `"sha256": "`+sum(new)+`",${1}"bytes": `+strconv.Itoa(len(new))))
}

// TestScopedChanges changes the code inside the functions and keys the
// spec names: each change turns the fixed snapshot's pass into a finding.
func TestScopedChanges(t *testing.T) {
	tests := []struct {
		name       string
		file       string
		old, new   string
		id, substr string
	}{
		{"literal divisor in a derivation", runner, `"whole_run_disk0_mb": u2["disk0_mb"],`,
			`"whole_run_disk0_mb": u2["disk0_mb"] / 65.0,`, "F19", "literal divisor 65.0 at " + runner},
		{"quoted number hard-coded in a sizing function", window, "size_t need = 0;",
			"size_t need = 0; const double gb_quoted = 1.36;", "F20", "hard-codes 1.36, a number the plan quotes at 1.36 (PLAN.md:"},
		{"the helper moved into a named function", window, "size_t need = 0;",
			"size_t need = 0; need += (need / 4 + 1024) * 2;", "F19", "literal divisor 4 at " + window},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5")
			snaptest.Edit(t, filepath.Join(root, tt.file), tt.old, tt.new)
			var got []string
			for _, f := range audited(t, root).Findings {
				if f.Severity == finding.Fail && f.ID == tt.id && strings.Contains(f.Message, tt.substr) {
					got = append(got, f.Message)
				}
			}
			if len(got) != 1 {
				t.Fatalf("code(%s) = %q matching fail %s %q; want one; findings: %q", tt.name, got, tt.id, tt.substr, nonPass(audited(t, root)))
			}
		})
	}
}

// TestScopeMissing renames a function the spec names: the rule warns that
// it checks nothing there instead of passing silently.
func TestScopeMissing(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, runner), "def llama_cpp_blocks(", "def llama_cpp_tables(")
	wantOne(t, "code(llama_cpp_blocks renamed)", nonPass(audited(t, root)), `warn `+runner+`: the spec names `+runner+`: llama_cpp_blocks(), which the file does not define`)
}

// TestStaleText puts a stale text back in a source and in a run's tail.
func TestStaleText(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	appendTo(t, filepath.Join(root, window), "// log_info(\"0 arena slots stolen\");\n")
	wantOne(t, "code(stale text in a source)", nonPass(audited(t, root)), `F21 fail `+window+`: the stale text "0 arena slots stolen" is still in the sources`)

	root = snaptest.CopyFixture(t, "m5")
	snaptest.EditNth(t, filepath.Join(root, snaptest.ResultsFile), `expert arena`, `0.00 GB anon expert arena`, 1)
	wantOne(t, "code(stale text in a tail)", nonPass(audited(t, root)), `F21 fail `+snaptest.ResultsFile+`: runs[0].output_tail: the stale text "0.00 GB anon" appears in the tails of strata_q2_0_moce0_short_43tok`)
	// The finding points at the tail's line that holds the text.
	snap, err := archive.Load(root, format.For)
	if err != nil {
		t.Fatalf("archive.Load(%s, format.For): %v", root, err)
	}
	for _, f := range audited(t, root).Findings {
		if f.Severity == finding.Fail {
			lines := strings.Split(snap.Runs[0].Tail, "\n")
			if f.Line < 1 || f.Line > len(lines) {
				t.Fatalf("code(stale text in a tail) points at line %d; want one of the tail's %d lines", f.Line, len(lines))
			}
			if !strings.Contains(lines[f.Line-1], "0.00 GB anon") {
				t.Fatalf("code(stale text in a tail) points at line %d, %q; want the line holding \"0.00 GB anon\"", f.Line, lines[f.Line-1])
			}
		}
	}
}

// TestNotApplicable: without settings the rule says why it did not apply.
func TestNotApplicable(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	spec := filepath.Join(root, "strataspec.json")
	s := snaptest.Read(t, spec)
	i := strings.Index(s, `    "code": {`)
	j := strings.Index(s[i:], "\n    }") + i + len("\n    }")
	snaptest.Write(t, spec, s[:i]+`    "code": {}`+s[j:])
	rep := audited(t, root)
	if len(rep.Findings) != 0 {
		t.Fatalf("code(empty settings) findings = %v; want none", rep.Findings)
	}
	if len(rep.Summary.NotApplied) != 1 {
		t.Fatalf("code(empty settings) not applied = %v; want one", rep.Summary.NotApplied)
	}
	if got, want := rep.Summary.NotApplied[0].Reason, "the spec names no functions or keys"; !strings.Contains(got, want) {
		t.Fatalf("code(empty settings) reason = %q; want it to contain %q", got, want)
	}
}
