package spec

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/snaptest"
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

// TestTFNewDocument writes a token file the fixture tool never wrote: a
// conversation encoded here with the fixture's vocabulary, as plain ids,
// listed in the manifest without a source offset. The tf rule must find
// its layout from the encoded segments, judge truncation from the decoded
// text (and say which test it used), and check its label.
func TestTFNewDocument(t *testing.T) {
	const (
		rel    = "data/new_tf.txt"
		header = "<|im_start|>assistant\n"
		scored = "<think>\nThe loop erases rows while it walks them; move erase() after it."
	)
	tests := []struct {
		name, domain, content string
		sev                   finding.Severity // of the truncation finding
		truncation            string
		label                 string // substring of the label finding, "" for none
	}{
		{"opens mid-sentence", "ops_tools", "and then the test crashed in frame.cpp", finding.Warn,
			"user turn looks left-truncated (by the text test, it opens with the lowercase letter 'a', mid-sentence; no source offset recorded)", ""},
		{"closes a bracket it never opened", "ops_tools", "Fix it) before the release", finding.Warn,
			`by the text test, it closes a bracket it never opened (')' at byte 6)`, ""},
		{"a whole question", "ja", "Fix the failing test in frame.cpp.", finding.Pass,
			"no source offset recorded; the text test finds no sign that the user turn starts mid-document", "domain ja: neither the user turn nor the scored reply holds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5-v3")
			gf, err := gguf.Parse("vocab", []byte(snaptest.Read(t, filepath.Join(root, "data", "vocab-synthetic-chatml.gguf"))))
			if err != nil {
				t.Fatalf("gguf.Parse(data/vocab-synthetic-chatml.gguf) = %v", err)
			}
			v, err := gf.Vocab()
			if err != nil {
				t.Fatalf("Vocab() = %v", err)
			}
			user := "<|im_start|>user\n" + tt.content + "<|im_end|>\n"
			var ids []int32
			var sizes []int
			for _, part := range []string{user, header, scored} {
				p, err := v.Encode(part)
				if err != nil {
					t.Fatalf("Encode(%q) = %v", part, err)
				}
				ids = append(ids, p...)
				sizes = append(sizes, len(p))
			}
			var text strings.Builder
			for i, id := range ids {
				fmt.Fprintf(&text, "%d", id)
				if i%10 == 9 {
					text.WriteString("\n")
				} else {
					text.WriteString(" ")
				}
			}
			snaptest.Write(t, filepath.Join(root, rel), text.String())
			const first = `"files": [
        {"path": "data/m5_val_prompts/eval_tf_96tok_chat_json.txt"`
			snaptest.Edit(t, filepath.Join(root, "strataspec.json"), first,
				strings.Replace(first, `[`, `[{"path": "`+rel+`", "domain": "`+tt.domain+`"},`, 1))
			var mine []finding.Finding
			for _, f := range auditFindings(t, root, "tf") {
				if f.File == rel {
					mine = append(mine, f)
				}
			}
			want := fmt.Sprintf("layout: user turn ids 0–%d (%d), assistant header %d–%d (%d), scored %d–%d (%d)",
				sizes[0]-1, sizes[0], sizes[0], sizes[0]+sizes[1]-1, sizes[1], sizes[0]+sizes[1], len(ids)-1, sizes[2])
			if !has(mine, "layout", finding.Pass, want) {
				t.Errorf("tf findings of %s = %v; want a layout pass %q", rel, mine, want)
			}
			if !has(mine, "truncated", tt.sev, tt.truncation) {
				t.Errorf("tf findings of %s = %v; want a %v truncation finding %q", rel, mine, tt.sev, tt.truncation)
			}
			if !has(mine, "layout", finding.Fail, "not in provenance") {
				t.Errorf("tf findings of %s = %v; want a layout fail saying it is not in provenance", rel, mine)
			}
			if tt.label != "" && !has(mine, "label", finding.Warn, tt.label) {
				t.Errorf("tf findings of %s = %v; want a label warning %q", rel, mine, tt.label)
			}
		})
	}
}

// has reports whether fs holds a finding of the check and severity whose
// message contains substr.
func has(fs []finding.Finding, check string, sev finding.Severity, substr string) bool {
	for _, f := range fs {
		if f.Check == check && f.Severity == sev && strings.Contains(f.Message, substr) {
			return true
		}
	}
	return false
}
