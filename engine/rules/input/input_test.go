package input_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/rules/input"
	"github.com/strataspec/strataspec/engine/rules/provenance"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// text is everything a finding prints, for "no output holds X" checks.
func text(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s|%s|%s|%s|%s|%s\n", f.File, f.Quote, f.Raw, f.Source, f.Message, f.Fix)
	}
	return b.String()
}

// only returns the one finding of the check in fs, failing the test when
// there is not exactly one; what names the call.
func only(t *testing.T, what string, fs []finding.Finding, check string) finding.Finding {
	t.Helper()
	got := withCheck(fs, check)
	if len(got) != 1 {
		t.Fatalf("%s: %d %s findings; want 1; findings: %v", what, len(got), check, fs)
	}
	return got[0]
}

// wantFinding fails the test unless f has the severity and its message
// contains every one of parts.
func wantFinding(t *testing.T, what string, f finding.Finding, sev finding.Severity, parts ...string) {
	t.Helper()
	if f.Severity != sev {
		t.Fatalf("%s = %s %q; want %s", what, f.Severity, f.Message, sev)
	}
	for _, p := range parts {
		if !strings.Contains(f.Message, p) {
			t.Fatalf("%s = %q; want it to contain %q", what, f.Message, p)
		}
	}
}

// holdsNone fails the test when the findings' text holds any of bad.
func holdsNone(t *testing.T, what, text string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(text, b) {
			t.Fatalf("%s: the findings hold %q; want none of it", what, b)
		}
	}
}

// noErr fails the test on a setup error.
func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func withCheck(fs []finding.Finding, check string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

// secret writes a file outside any snapshot and returns its path, and what
// an output must never hold of it: content, size and hash.
func secret(t *testing.T, content string) (path string, forbidden []string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret.txt")
	noErr(t, "writing the secret", os.WriteFile(p, []byte(content), 0o644))
	h := sha256.Sum256([]byte(content))
	hx := hex.EncodeToString(h[:])
	return p, []string{"hunter2", hx[:12], num.Format(float64(len(content)), 0) + " bytes"}
}

// replaceAll replaces every occurrence of old in the file and fails unless
// there are exactly n.
func replaceAll(t *testing.T, path, old, new string, n int) {
	t.Helper()
	s := snaptest.Read(t, path)
	if got := strings.Count(s, old); got != n {
		t.Fatalf("%s holds %q %d times; want %d", path, old, got, n)
	}
	snaptest.Write(t, path, strings.ReplaceAll(s, old, new))
}

const (
	results = snaptest.ResultsFile
	machTmp = "/tmp/m5_prompt_1600tok.txt"
)

// A path a run recorded that leads outside the snapshot is a finding, never
// read: relative paths that climb out, an absolute path with no machine
// folder, and a machine-folder link that leads out. No output holds the
// outside file's content, size or hash.
func TestInputOutsideSnapshot(t *testing.T) {
	const content = "SECRET-hunter2: the runner's token, 38 bytes\n"
	tests := []struct {
		name string
		edit func(t *testing.T, root, outside string)
	}{
		{"relative path climbing out", func(t *testing.T, root, outside string) {
			rel, err := filepath.Rel(root, outside)
			noErr(t, "filepath.Rel", err)
			replaceAll(t, filepath.Join(root, results), `"`+machTmp+`"`, `"`+filepath.ToSlash(rel)+`"`, 8)
		}},
		{"absolute path, no machine folder declared", func(t *testing.T, root, outside string) {
			snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"machine": "machine",`, "")
		}},
		{"machine-folder link leading out", func(t *testing.T, root, outside string) {
			p := filepath.Join(root, "machine", "tmp", "m5_prompt_1600tok.txt")
			snaptest.Remove(t, p)
			noErr(t, "os.Symlink", os.Symlink(outside, p))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5")
			outside, forbidden := secret(t, content)
			tt.edit(t, root, outside)
			fs := analysistest.Findings(t, root, input.Archive)
			what := "input.archive(" + tt.name + ")"
			wantFinding(t, what, only(t, what, fs, "outside"), finding.Fail,
				"runs llama_patched_step1_ngl99_cmoe_ub512, llama_patched_step2_ngl99_cmoe_ub1024, llama_patched_step3_ngl99_cmoe_ub2048 and 5 more runs read a file outside the snapshot",
				"not archived, not read")
			if echo := withCheck(fs, "echo"); len(echo) != 0 {
				t.Fatalf("%s: echo findings %v; want none: an echo checked against a file outside", what, echo)
			}
			holdsNone(t, what, text(fs), forbidden...)
		})
	}
}

// "/../../../../etc/passwd" cleans to the machine folder's etc/passwd: it
// stays inside the snapshot, where the audited machine's file is not
// archived. Nothing outside is read.
func TestInputRootedDotDotStaysInMachine(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	replaceAll(t, filepath.Join(root, results), `"`+machTmp+`"`, `"/../../../../etc/passwd"`, 8)
	fs := analysistest.Findings(t, root, input.Archive)
	const what = "input.archive(/../../../../etc/passwd)"
	wantFinding(t, what, only(t, what, fs, "machine"), finding.Warn, "/../../../../etc/passwd, read by", "is not on this machine any more")
	holdsNone(t, what, text(fs), "root:")
}

// The prompt echo check never confirms guessed content of a file outside:
// the findings are the same whether the tail's echo is the outside file's
// content or not.
func TestInputEchoOutsideConfirmsNothing(t *testing.T) {
	real := snaptest.Read(t, filepath.Join(snaptest.Fixture(t, "m5"), "machine", "tmp", "m5_prompt_1600tok.txt"))
	var reports []string
	for _, content := range []string{real, "SECRET-hunter2 something else entirely\n"} {
		root := snaptest.CopyFixture(t, "m5")
		outside, _ := secret(t, content)
		rel, err := filepath.Rel(root, outside)
		noErr(t, "filepath.Rel", err)
		replaceAll(t, filepath.Join(root, results), `"`+machTmp+`"`, `"`+filepath.ToSlash(rel)+`"`, 8)
		fs := analysistest.Findings(t, root, input.Archive)
		reports = append(reports, strings.ReplaceAll(text(fs), filepath.ToSlash(rel), "OUTSIDE"))
	}
	if diff := cmp.Diff(reports[0], reports[1]); diff != "" {
		t.Fatalf("input.archive findings differ with the outside file's content (-real +other):\n%s", diff)
	}
}

// An input inside the snapshot that the provenance record does not hold is
// archived but not hashed (a warning, never "no archived copy"), named with
// its hash, never as "(0 bytes, sha256 )"; a missing one fails and says so.
func TestInputNotArchived(t *testing.T) {
	tests := []struct {
		name, edit, check string
		sev               finding.Severity
		want              string
	}{
		{"in the snapshot, not recorded", "data/extra_prompt.txt", "hashed", finding.Warn, "is archived but not hashed"},
		{"missing", "data/none.txt", "archived", finding.Fail, "data/none.txt, read by strata_iq3_s_short_43tok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5")
			snaptest.Write(t, filepath.Join(root, "data", "extra_prompt.txt"), "an unrecorded prompt\n")
			replaceAll(t, filepath.Join(root, results), `"--prompt-file",
        "data/m5_val_prompts/strata_prompt_43tok.txt"`, `"--prompt-file",
        "`+tt.edit+`"`, 3)
			fs := analysistest.Findings(t, root, input.Archive)
			var got *finding.Finding
			for i := range fs {
				if fs[i].File == tt.edit && fs[i].Check == tt.check {
					got = &fs[i]
				}
			}
			what := "input.archive(" + tt.name + ")"
			if got == nil {
				t.Fatalf("%s: no %s finding on %s: %v", what, tt.check, tt.edit, fs)
			}
			wantFinding(t, what, *got, tt.sev, tt.want)
			holdsNone(t, what, text(fs), "no archived copy", "sha256 )", "(0 bytes")
		})
	}
}

// A run whose duration_s is 0 while its tail logs seconds of work is a
// provenance finding, though 0 s fits any window.
func TestProvenanceZeroDurations(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	p := filepath.Join(root, results)
	s := snaptest.Read(t, p)
	if n := strings.Count(s, `"duration_s": `); n != 22 {
		t.Fatalf("%s holds %d durations; want 22", p, n)
	}
	var b strings.Builder
	for i, part := range strings.Split(s, `"duration_s": `) {
		if i > 0 {
			b.WriteString(`"duration_s": 0`)
			part = part[strings.IndexAny(part, ",\n}"):]
		}
		b.WriteString(part)
	}
	snaptest.Write(t, p, b.String())

	fs := analysistest.Findings(t, root, provenance.Provenance)
	const what = "provenance(durations 0)"
	wantFinding(t, what, only(t, what, fs, "durations"), finding.Fail,
		"18 of 18 runs record a duration_s shorter than the work their own tails log",
		"strata_q2_0_moce0_short_43tok (duration_s 0, tail line")
	// Untouched, the fixture's durations cover their tails.
	fs = analysistest.Findings(t, snaptest.Fixture(t, "m5"), provenance.Provenance)
	wantFinding(t, "provenance(m5)", only(t, "provenance(m5)", fs, "durations"), finding.Pass)
}

// An archived prompt that is not a regular file is unreadable input (exit
// 2), not a fail finding: a directory is refused when the snapshot loads.
func TestArchivedPromptDirectory(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	p := filepath.Join(root, "data", "m5_val_prompts", "strata_prompt_43tok.txt")
	snaptest.Remove(t, p)
	noErr(t, "os.Mkdir", os.Mkdir(p, 0o755))
	_, err := archive.Load(root, format.For)
	if want := "data/m5_val_prompts/strata_prompt_43tok.txt is a directory"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("archive.Load(a prompt that is a directory, format.For) error = %v; want one containing %q", err, want)
	}
}

// Without a provenance role for the runner the mtime order is not checked;
// the hashes still are.
func TestProvenanceWithoutRoles(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"provenance": {"runner": "runner", "builds": ["patch", "moe_metal", "route_parity", "strata_window_cli"]}`, `"provenance": {}`)
	fs := analysistest.Findings(t, root, provenance.Provenance)
	for _, check := range []string{"order", "window"} {
		if got := withCheck(fs, check); len(got) != 0 {
			t.Fatalf("provenance(no roles) %s findings = %v; want none", check, got)
		}
	}
	only(t, "provenance(no roles)", fs, "hashes")
}

// The case as written: a strata run's --prompt-file set to
// ../../../../etc/passwd is reported outside the snapshot and not read.
func TestInputPromptFileEtcPasswd(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	replaceAll(t, filepath.Join(root, results), `"--prompt-file",
        "data/m5_val_prompts/strata_prompt_1024tok.txt"`, `"--prompt-file",
        "../../../../../../../../etc/passwd"`, 1)
	fs := analysistest.Findings(t, root, input.Archive)
	const what = "input.archive(--prompt-file ../../../../etc/passwd)"
	out := only(t, what, fs, "outside")
	const want = "run strata_q2_0_moce085_prefill_1024tok read a file outside the snapshot (../../../../../../../../etc/passwd): not archived, not read"
	if out.Message != want || out.Raw != "not read" {
		t.Fatalf("%s = %q, raw %q; want %q, raw \"not read\"", what, out.Message, out.Raw, want)
	}
	holdsNone(t, what, text(fs), "root:")
	if b, err := os.ReadFile("/etc/passwd"); err == nil {
		holdsNone(t, what, text(fs), num.Format(float64(len(b)), 0)+" bytes")
	}
}

// A provenance record that names a path outside the snapshot is data: both
// rules report it, and nothing of the file is read or printed.
func TestProvenancePathOutside(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	outside, forbidden := secret(t, "SECRET-hunter2 recorded as a prompt\n")
	rel, err := filepath.Rel(root, outside)
	noErr(t, "filepath.Rel", err)
	p := filepath.Join(root, results)
	snaptest.EditNth(t, p, `"path": "data/m5_val_prompts/strata_prompt_43tok.txt"`, `"path": "`+filepath.ToSlash(rel)+`"`, 1)

	prov := analysistest.Findings(t, root, provenance.Provenance)
	var named int
	for _, f := range withCheck(prov, "hashes") {
		if f.File == filepath.ToSlash(rel) {
			named++
			if want := "prompt file " + filepath.ToSlash(rel) + " in the provenance record is outside the snapshot: not archived, not read"; f.Severity != finding.Fail || f.Message != want {
				t.Fatalf("provenance(a recorded path outside) = %s %q; want fail %q", f.Severity, f.Message, want)
			}
		}
	}
	if named != 1 {
		t.Fatalf("provenance(a recorded path outside): %d hashes findings on it; want 1; findings: %v", named, prov)
	}
	arch := analysistest.Findings(t, root, input.Archive)
	out := withCheck(arch, "provenance")
	if len(out) == 0 {
		t.Fatalf("input.archive(a recorded path outside): no provenance finding; findings: %v", arch)
	}
	if want := "a path outside the snapshot: not archived, not read"; !strings.Contains(out[0].Message, want) {
		t.Fatalf("input.archive(a recorded path outside) = %q; want it to contain %q", out[0].Message, want)
	}
	holdsNone(t, "a recorded path outside", text(prov)+text(arch), forbidden...)
}

// The provenance record is read where the spec's results entry says: a
// runner that writes it under another key declares that key, and the
// record is checked as before; undeclared, the key is only noted.
func TestProvenanceRecordWhereTheSpecSays(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, results), `"provenance": {`, `"files_used": {`)
	fs, notApplied, err := analysistest.Run(t, root, provenance.Provenance)
	noErr(t, "provenance(files_used)", err)
	if notApplied != "" {
		t.Fatalf("provenance(files_used) did not apply: %s", notApplied)
	}
	if h := withCheck(fs, "hashes"); len(h) != 0 {
		t.Fatalf("provenance(files_used, undeclared) hashes findings = %v; want none: a record read from an undeclared key", h)
	}
	snap, err := archive.Load(root, format.For)
	noErr(t, "archive.Load", err)
	var noted bool
	for _, n := range snap.Notes {
		noted = noted || n.Path == "files_used"
	}
	if !noted {
		t.Fatalf("archive.Load(files_used, undeclared, format.For) notes = %v; want one on files_used", snap.Notes)
	}

	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"runs": "runs"}`, `"runs": "runs", "provenance": "files_used"}`)
	const what = "provenance(files_used, declared)"
	h := only(t, what, analysistest.Findings(t, root, provenance.Provenance), "hashes")
	if want := "5 script/binary and 7 prompt sha256s match the files on disk"; h.Severity != finding.Pass || h.Message != want {
		t.Fatalf("%s = %s %q; want pass %q", what, h.Severity, h.Message, want)
	}
}
