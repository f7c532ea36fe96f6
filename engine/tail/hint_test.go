package tail_test

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/tail"
)

// TestMissingLineHint: when a strata log's lines carry a prefix the format
// does not expect (glog's header, a time and a level), the first missing
// required line says where the log has it and after what; a log that lacks
// the line, or has it where the format reads it, gets no hint, and the hint
// is given once.
func TestMissingLineHint(t *testing.T) {
	prefixed := func(p string) string {
		var b strings.Builder
		for _, l := range strings.SplitAfter(speedTail, "\n") {
			if l != "" {
				b.WriteString(p + l)
			}
		}
		return b.String()
	}
	for _, tt := range []struct {
		name, text, want string
	}{
		{"glog", prefixed("I1015 08:01:20.866027 4127803 main.cc:131] "),
			`missing required line "expert arena" (line 12 has it after a prefix, "I1015 08:01:20.866027 4127803 main.cc:131] ": a declared format that wraps this one can strip it`},
		{"RFC 3339", prefixed("2026-10-15T08:01:20Z INFO "), `(line 12 has it after a prefix, "2026-10-15T08:01:20Z INFO "`},
		{"absent", strings.Replace(speedTail, "init: 347.12 ms\n", "", 1), ""},
	} {
		ms := tail.ParseStrata("x", tt.text)
		var hints []string
		for _, e := range ms.Errors {
			if strings.Contains(e.Msg, "after a prefix") {
				hints = append(hints, e.Msg)
			}
		}
		switch {
		case tt.want == "" && len(hints) != 0:
			t.Errorf("%s: hints %q; want none", tt.name, hints)
		case tt.want != "" && (len(hints) != 1 || !strings.Contains(hints[0], tt.want)):
			t.Errorf("%s: hints %q; want one containing %q", tt.name, hints, tt.want)
		}
		if tt.want == "" && len(ms.Errors) == 0 {
			t.Errorf("%s: no error; want the missing init line reported", tt.name)
		}
	}
}
