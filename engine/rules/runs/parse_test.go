package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// A real llama-cli output from the corpus, whole and cut before its timings.
func corpusLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(snaptest.Root(), "engine", "llamacpp", "testdata", "corpus", "ci-2024-09-b3761-llama-cli.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseFindings(t *testing.T) {
	whole := corpusLog(t)
	i := strings.Index(whole, "llama_perf")
	if i <= 0 {
		t.Fatalf("i = %d; want > 0: the corpus log has its perf lines", i)
	}
	cut := whole[:i]
	tests := []struct {
		name    string
		log     string
		sidecar string
		want    string // "sev check" of the run's finding, "" for none
	}{
		{"whole output", whole, `{"cmd": ["./llama-cli"]}`, ""},
		{"cut before its timings", cut, `{"cmd": ["./llama-cli"]}`, "fail line"},
		{"unknown program", "step 1 done\n", `{"cmd": ["python3", "bench.py"]}`, "warn program"},
		{"no argv, unrecognised output", "hello\n", "", "warn program"},
		{"known program, nothing printed", "", `{"cmd": ["llama-cli"]}`, "fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "runs", "r.log"), []byte(tt.log), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.sidecar != "" {
				if err := os.WriteFile(filepath.Join(dir, "runs", "r.json"), []byte(tt.sidecar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			snap, err := archive.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			res, err := analysis.NewDriver(snap).Run([]*analysis.Analyzer{Parse})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res[0].Findings {
				if f.Severity != finding.Pass {
					got = append(got, f.Severity.String()+" "+f.Check)
					if !strings.Contains(f.Message, "run r") {
						t.Errorf("finding %q does not name the run", f.Message)
					}
					if f.Check == "line" && f.Line <= 1 && strings.Count(tt.log, "\n") > 1 {
						t.Errorf("finding %q points at line %d of the log; want the line it is about", f.Message, f.Line)
					}
				}
			}
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("runs.parse(%s) = %v; want no finding", tt.name, got)
			case tt.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tt.want)):
				t.Errorf("runs.parse(%s) = %v; want one %q finding", tt.name, got, tt.want)
			}
		})
	}
}
