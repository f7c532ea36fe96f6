package input_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/rules/input"
	"github.com/strataspec/strataspec/engine/rules/provenance"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/stretchr/testify/require"
)

// text is everything a finding prints, for "no output holds X" checks.
func text(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s|%s|%s|%s|%s|%s\n", f.File, f.Quote, f.Raw, f.Source, f.Message, f.Fix)
	}
	return b.String()
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
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	h := sha256.Sum256([]byte(content))
	hx := hex.EncodeToString(h[:])
	return p, []string{"hunter2", hx[:12], num.Format(float64(len(content)), 0) + " bytes"}
}

// replaceAll replaces every occurrence of old in the file and fails unless
// there are exactly n.
func replaceAll(t *testing.T, path, old, new string, n int) {
	t.Helper()
	s := snaptest.Read(t, path)
	require.Equal(t, n, strings.Count(s, old), "occurrences of %q in %s", old, path)
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
			require.NoError(t, err)
			replaceAll(t, filepath.Join(root, results), `"`+machTmp+`"`, `"`+filepath.ToSlash(rel)+`"`, 8)
		}},
		{"absolute path, no machine folder declared", func(t *testing.T, root, outside string) {
			snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"machine": "machine",`, "")
		}},
		{"machine-folder link leading out", func(t *testing.T, root, outside string) {
			p := filepath.Join(root, "machine", "tmp", "m5_prompt_1600tok.txt")
			snaptest.Remove(t, p)
			require.NoError(t, os.Symlink(outside, p))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5")
			outside, forbidden := secret(t, content)
			tt.edit(t, root, outside)
			fs := analysistest.Findings(t, root, input.Archive)
			out := withCheck(fs, "outside")
			require.Len(t, out, 1, "findings: %v", fs)
			require.Equal(t, finding.Fail, out[0].Severity)
			require.Contains(t, out[0].Message, "runs llama_patched_step1_ngl99_cmoe_ub512, llama_patched_step2_ngl99_cmoe_ub1024, llama_patched_step3_ngl99_cmoe_ub2048 and 5 more runs read a file outside the snapshot")
			require.Contains(t, out[0].Message, "not archived, not read")
			require.Empty(t, withCheck(fs, "echo"), "an echo checked against a file outside")
			all := text(fs)
			for _, bad := range forbidden {
				require.NotContains(t, all, bad)
			}
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
	machine := withCheck(fs, "machine")
	require.Len(t, machine, 1, "findings: %v", fs)
	require.Equal(t, finding.Warn, machine[0].Severity)
	require.Contains(t, machine[0].Message, "/../../../../etc/passwd, read by")
	require.Contains(t, machine[0].Message, "is not on this machine any more")
	require.NotContains(t, text(fs), "root:")
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
		require.NoError(t, err)
		replaceAll(t, filepath.Join(root, results), `"`+machTmp+`"`, `"`+filepath.ToSlash(rel)+`"`, 8)
		fs := analysistest.Findings(t, root, input.Archive)
		reports = append(reports, strings.ReplaceAll(text(fs), filepath.ToSlash(rel), "OUTSIDE"))
	}
	require.Equal(t, reports[0], reports[1], "findings differ with the outside file's content")
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
			require.NotNil(t, got, "no finding on %s: %v", tt.edit, fs)
			require.Equal(t, tt.sev, got.Severity)
			require.Contains(t, got.Message, tt.want)
			require.NotContains(t, text(fs), "no archived copy")
			require.NotContains(t, text(fs), "sha256 )")
			require.NotContains(t, text(fs), "(0 bytes")
		})
	}
}

// A run whose duration_s is 0 while its tail logs seconds of work is a
// provenance finding, though 0 s fits any window.
func TestProvenanceZeroDurations(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	p := filepath.Join(root, results)
	s := snaptest.Read(t, p)
	n := strings.Count(s, `"duration_s": `)
	require.Equal(t, 22, n)
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
	d := withCheck(fs, "durations")
	require.Len(t, d, 1, "findings: %v", fs)
	require.Equal(t, finding.Fail, d[0].Severity)
	require.Contains(t, d[0].Message, "18 of 18 runs record a duration_s shorter than the work their own tails log")
	require.Contains(t, d[0].Message, "strata_q2_0_moce0_short_43tok (duration_s 0, tail line")
	// Untouched, the fixture's durations cover their tails.
	ok := withCheck(analysistest.Findings(t, snaptest.Fixture(t, "m5"), provenance.Provenance), "durations")
	require.Len(t, ok, 1)
	require.Equal(t, finding.Pass, ok[0].Severity)
}

// An archived prompt that is not a regular file is unreadable input (exit
// 2), not a fail finding: a directory is refused when the snapshot loads.
func TestArchivedPromptDirectory(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	p := filepath.Join(root, "data", "m5_val_prompts", "strata_prompt_43tok.txt")
	snaptest.Remove(t, p)
	require.NoError(t, os.Mkdir(p, 0o755))
	_, err := archive.Load(root)
	require.Error(t, err)
	require.Contains(t, err.Error(), "data/m5_val_prompts/strata_prompt_43tok.txt is a directory")
}

// Without a provenance role for the runner the mtime order is not checked;
// the hashes still are.
func TestProvenanceWithoutRoles(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"provenance": {"runner": "runner", "builds": ["patch", "moe_metal", "route_parity", "strata_window_cli"]}`, `"provenance": {}`)
	fs := analysistest.Findings(t, root, provenance.Provenance)
	require.Empty(t, withCheck(fs, "order"))
	require.Empty(t, withCheck(fs, "window"))
	require.Len(t, withCheck(fs, "hashes"), 1)
}

// A setting the spec misspells is an error naming the spec file and line.
func TestProvenanceBadSettings(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"provenance": {"runner"`, `"provenance": {"runer"`)
	_, _, err := analysistest.Run(t, root, provenance.Provenance)
	require.Error(t, err)
	require.Regexp(t, `^strataspec\.json:\d+: rules\.provenance: unknown key "runer"`, err.Error())
}

// The case as written: a strata run's --prompt-file set to
// ../../../../etc/passwd is reported outside the snapshot and not read.
func TestInputPromptFileEtcPasswd(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	replaceAll(t, filepath.Join(root, results), `"--prompt-file",
        "data/m5_val_prompts/strata_prompt_1024tok.txt"`, `"--prompt-file",
        "../../../../../../../../etc/passwd"`, 1)
	fs := analysistest.Findings(t, root, input.Archive)
	out := withCheck(fs, "outside")
	require.Len(t, out, 1, "findings: %v", fs)
	require.Equal(t, "run strata_q2_0_moce085_prefill_1024tok read a file outside the snapshot (../../../../../../../../etc/passwd): not archived, not read", out[0].Message)
	require.Equal(t, "not read", out[0].Raw)
	require.NotContains(t, text(fs), "root:")
	if b, err := os.ReadFile("/etc/passwd"); err == nil {
		require.NotContains(t, text(fs), num.Format(float64(len(b)), 0)+" bytes")
	}
}

// A folder of logs with no provenance record and no recorded durations
// gives provenance nothing to check: it says so instead of passing.
func TestProvenanceNotApplied(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "runs"), 0o755))
	snaptest.Write(t, filepath.Join(root, "runs", "decode.log"),
		"llama_perf_context_print:        eval time =    6832.30 ms /    22 runs   (  310.56 ms per token,     3.22 tokens per second)\n")
	snaptest.Write(t, filepath.Join(root, "runs", "decode.json"), `{"cmd": ["llama-completion", "-n", "22"]}`)
	fs, notApplied, err := analysistest.Run(t, root, provenance.Provenance)
	require.NoError(t, err)
	require.Empty(t, fs)
	require.Contains(t, notApplied, "no provenance record, no run with a recorded duration")

	// With a duration recorded, it is checked against the tail.
	snaptest.Write(t, filepath.Join(root, "runs", "decode.json"), `{"cmd": ["llama-completion", "-n", "22"], "duration_s": 2.5}`)
	d := withCheck(analysistest.Findings(t, root, provenance.Provenance), "durations")
	require.Len(t, d, 1)
	require.Equal(t, finding.Fail, d[0].Severity)
	require.Contains(t, d[0].Message, "decode (duration_s 2.5, tail line 1 logs eval_ms 6832.30 ms)")
}

// A provenance record that names a path outside the snapshot is data: both
// rules report it, and nothing of the file is read or printed.
func TestProvenancePathOutside(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	outside, forbidden := secret(t, "SECRET-hunter2 recorded as a prompt\n")
	rel, err := filepath.Rel(root, outside)
	require.NoError(t, err)
	p := filepath.Join(root, results)
	snaptest.EditNth(t, p, `"path": "data/m5_val_prompts/strata_prompt_43tok.txt"`, `"path": "`+filepath.ToSlash(rel)+`"`, 1)

	prov := analysistest.Findings(t, root, provenance.Provenance)
	var named int
	for _, f := range withCheck(prov, "hashes") {
		if f.File == filepath.ToSlash(rel) {
			named++
			require.Equal(t, finding.Fail, f.Severity)
			require.Equal(t, "prompt file "+filepath.ToSlash(rel)+" in the provenance record is outside the snapshot: not archived, not read", f.Message)
		}
	}
	require.Equal(t, 1, named, "findings: %v", prov)
	arch := analysistest.Findings(t, root, input.Archive)
	out := withCheck(arch, "provenance")
	require.NotEmpty(t, out)
	require.Contains(t, out[0].Message, "a path outside the snapshot: not archived, not read")
	for _, bad := range forbidden {
		require.NotContains(t, text(prov)+text(arch), bad)
	}
}

// The provenance record is read where the spec's results entry says: a
// runner that writes it under another key declares that key, and the
// record is checked as before; undeclared, the key is only noted.
func TestProvenanceRecordWhereTheSpecSays(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	snaptest.Edit(t, filepath.Join(root, results), `"provenance": {`, `"files_used": {`)
	fs, notApplied, err := analysistest.Run(t, root, provenance.Provenance)
	require.NoError(t, err)
	require.Empty(t, notApplied)
	require.Empty(t, withCheck(fs, "hashes"), "a record read from an undeclared key")
	snap, err := archive.Load(root)
	require.NoError(t, err)
	var noted bool
	for _, n := range snap.Notes {
		noted = noted || n.Path == "files_used"
	}
	require.True(t, noted, "the undeclared record's key is not noted: %v", snap.Notes)

	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"runs": "runs"}`, `"runs": "runs", "provenance": "files_used"}`)
	h := withCheck(analysistest.Findings(t, root, provenance.Provenance), "hashes")
	require.Len(t, h, 1)
	require.Equal(t, finding.Pass, h[0].Severity)
	require.Equal(t, "5 script/binary and 7 prompt sha256s match the files on disk", h[0].Message)
}
