package spec

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/engine/tf"
)

// The teacher-forcing files and KLD sample size (audit §3, F32–F37): on the
// audited snapshot the layout passes and the content caveats are raised; on
// the fixed snapshot, which states the caveats in PLAN, only the missing
// newline after <think> stays a warning.
func TestTFAndKLD(t *testing.T) {
	tests := []struct {
		snap string
		want map[string]finding.Severity // worst severity per finding id
	}{
		{"m5-v3", map[string]finding.Severity{"F32": finding.Pass, "F33": finding.Warn, "F34": finding.Warn,
			"F35": finding.Warn, "F36": finding.Warn, "F37": finding.Fail}},
		{"m5", map[string]finding.Severity{"F32": finding.Pass, "F33": finding.Pass, "F34": finding.Pass,
			"F35": finding.Pass, "F36": finding.Warn, "F37": finding.Pass}},
	}
	for _, tt := range tests {
		got := map[string]finding.Severity{}
		seen := map[string]bool{}
		for _, f := range auditFindings(t, snaptest.Fixture(t, tt.snap), "tf,kld") {
			got[f.ID] = max(got[f.ID], f.Severity)
			seen[f.ID] = true
		}
		for id, want := range tt.want {
			if !seen[id] || got[id] != want {
				t.Errorf("tf,kld on %s: %s = %v (reported %v); want %v", tt.snap, id, got[id], seen[id], want)
			}
		}
	}
}

// TestTFFilesDecode decodes the fixtures' TF files with their vocabulary and
// checks what the audit read in them: 96 ids in 29 + 3 + 64, <think> (looked
// up by its text: id 248068) scored first, the openings of the user turns.
func TestTFFilesDecode(t *testing.T) {
	openings := []struct{ domain, opening string }{
		{"ops_tools", ");\n df.erase();\n\nroot@f71c07bf8043:/app#"},
		{"chat_json", "{19}~?$$\n\nSolve this step by step"},
		{"ja", "カイブ\n36\n\n質問: 5G医療救急車"},
	}
	for _, snap := range []string{"m5-v3", "m5"} {
		root := filepath.Join("..", "fixtures", snap)
		gf, err := gguf.Open(filepath.Join(root, "data", "vocab-synthetic-chatml.gguf"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := gf.Vocab()
		if err != nil {
			t.Fatal(err)
		}
		think, ok := v.ID(tf.Think)
		if !ok || think != 248068 {
			t.Fatalf("%s: <think> = %d, %v; want 248068 (audit §3)", snap, think, ok)
		}
		for _, o := range openings {
			f, err := tf.Read(filepath.Join(root, "data", "m5_val_prompts", "eval_tf_96tok_"+o.domain+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			l, err := tf.Find(f.IDs, v)
			if err != nil {
				t.Fatalf("%s %s: %v", snap, o.domain, err)
			}
			if len(f.IDs) != 96 || l.User != (tf.Span{Start: 0, End: 29}) || l.Header != (tf.Span{Start: 29, End: 32}) || l.Scored != (tf.Span{Start: 32, End: 96}) {
				t.Errorf("%s %s: %d ids, layout %+v; want 96 = [0,29) + [29,32) + [32,96)", snap, o.domain, len(f.IDs), l)
			}
			if f.IDs[32] != think {
				t.Errorf("%s %s: first scored id %d; want <think>", snap, o.domain, f.IDs[32])
			}
			content, err := tf.Text(f.IDs, v, l.Content)
			if err != nil || !strings.HasPrefix(content, o.opening) {
				t.Errorf("%s %s: user turn %q (%v); want it to open with %q", snap, o.domain, content, err, o.opening)
			}
		}
	}
}
