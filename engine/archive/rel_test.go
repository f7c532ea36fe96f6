package archive

import (
	"testing"

	"github.com/strataspec/strataspec/engine/checkout"
)

// TestRelMachinePrefixes: a path a run recorded maps into the snapshot by
// the spec's machine folders, the longest prefix winning, after the path is
// cleaned (so /tmp/../etc is /etc, not host_tmp's parent); with no folder
// for it, an absolute path leads outside and is not opened.
func TestRelMachinePrefixes(t *testing.T) {
	spec := func(machine string) *checkout.Spec {
		s, err := checkout.Parse(checkout.File, []byte(`{"machine": `+machine+`}`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	both := &Snapshot{Spec: spec(`{"/tmp": "host_tmp", "/": "machine"}`)}
	only := &Snapshot{Spec: spec(`{"/tmp": "host_tmp"}`)}
	for _, tt := range []struct {
		snap     *Snapshot
		recorded string
		want     string // "" for outside
	}{
		{both, "/tmp/m5_prompt_1600tok.txt", "host_tmp/m5_prompt_1600tok.txt"},
		{both, "/tmp", "host_tmp"},
		{both, "/tmpfoo/x", "machine/tmpfoo/x"},
		{both, "/tmp/../etc/passwd", "machine/etc/passwd"},
		{both, "/tmp/a/../../../x", "machine/x"},
		{both, "/Users/me/models/K256.gguf", "machine/Users/me/models/K256.gguf"},
		{both, "data/prompt.txt", "data/prompt.txt"},
		{both, "../outside.txt", ""},
		{only, "/tmp/x", "host_tmp/x"},
		{only, "/etc/hosts", ""},
		{only, "/tmp/../etc/hosts", ""},
	} {
		got, ok := tt.snap.Rel(tt.recorded)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("Rel(%q) = %q, %v; want %q", tt.recorded, got, ok, tt.want)
		}
	}
}
