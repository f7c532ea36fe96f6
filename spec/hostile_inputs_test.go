package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/audit/audittest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// Paths named in run records are data (issue 13): in a copy of fixtures/m5
// whose runs read a file outside the snapshot, the whole audit — every rule,
// every report format — reports the path and holds nothing of the file:
// not its content, not its size, not its hash.
func TestHostileRecordedPaths(t *testing.T) {
	const secret = "SECRET-hunter2 the CI runner's token\n"
	sum := sha256.Sum256([]byte(secret))
	forbidden := []string{"hunter2", hex.EncodeToString(sum[:])[:12], "37 bytes"}
	outsideDir := t.TempDir()
	outside := filepath.Join(outsideDir, "secret.txt")
	if err := os.WriteFile(outside, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		edit func(t *testing.T, root string)
	}{
		{"--prompt-file climbing out", func(t *testing.T, root string) {
			rel, err := filepath.Rel(root, outside)
			if err != nil {
				t.Fatalf("filepath.Rel(%q, %q) = %v", root, outside, err)
			}
			snaptest.EditNth(t, filepath.Join(root, snaptest.ResultsFile), `"data/m5_val_prompts/strata_prompt_1024tok.txt"`, `"`+filepath.ToSlash(rel)+`"`, 1)
		}},
		{"-f through a machine link leading out", func(t *testing.T, root string) {
			p := filepath.Join(root, "machine", "tmp", "m5_prompt_1600tok.txt")
			snaptest.Remove(t, p)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5")
			tt.edit(t, root)
			rep, err := audit.Audit(root, "")
			if err != nil {
				t.Fatalf("audit.Audit(copy of m5, %s) = %v", tt.name, err)
			}
			var outsideFindings int
			for _, f := range rep.Findings {
				if f.Rule == "input.archive" && f.Check == "outside" && f.Severity == finding.Fail {
					outsideFindings++
					if !strings.Contains(f.Message, "read a file outside the snapshot") {
						t.Errorf("input.archive outside fail %q; want it to say the run read a file outside the snapshot", f.Message)
					}
				}
			}
			if outsideFindings != 1 {
				t.Errorf("audit with %s: %d input.archive outside fails; want 1", tt.name, outsideFindings)
			}
			for _, format := range []string{"text", "markdown", "json", "github", "sarif", "junit", "html"} {
				var buf bytes.Buffer
				if err := rep.Write(&buf, format); err != nil {
					t.Fatalf("Write(%q) = %v", format, err)
				}
				for _, bad := range forbidden {
					if strings.Contains(buf.String(), bad) {
						t.Errorf("%s report holds %q of the file outside the snapshot", format, bad)
					}
				}
			}
		})
	}
}

// TestDeclaredPlanMustExist: a plan the spec names that is not there is a
// fail finding naming it (exit 1 in tools/strataspec), never a pass with the
// plan rules not applied.
func TestDeclaredPlanMustExist(t *testing.T) {
	root := snaptest.CopyFixture(t, "llamacpp")
	p := filepath.Join(root, "strataspec.json")
	snaptest.Edit(t, p, `"plan": "PLAN.md"`, `"plan": "PLAM.md"`)
	_, err := audittest.Audit(root, "")
	if err == nil || !strings.Contains(err.Error(), "PLAM.md") {
		t.Errorf("audit with a declared plan missing = %v; want a bad-input finding naming PLAM.md", err)
	}
}
