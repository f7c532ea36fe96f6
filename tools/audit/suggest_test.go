package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestRunStrict: a number appended outside the claim sections is a warning
// (exit 0) and, with -strict, a failure (exit 1) naming its line.
func TestRunStrict(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	plan := filepath.Join(root, "PLAN.md")
	text := snaptest.Read(t, plan) + "\nDecode on the 1,024-token run reaches 14.27 tok/s.\n"
	snaptest.Write(t, plan, text)
	line := strings.Count(text, "\n")
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-root", root, "-rules", "plan", "-format", "github"}, 0, "::warning file="},
		{[]string{"-root", root, "-rules", "plan", "-format", "github", "-strict"}, 1, "::error file="},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(&stdout, &stderr, tt.args); code != tt.code {
			t.Errorf("run(%q) = %d; want %d\n%s", tt.args, code, tt.code, stderr.String())
		}
		if want := tt.want + plan + ",line=" + strconv.Itoa(line) + ",title=plan.uncovered"; !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), "14.27 tok/s") {
			t.Errorf("run(%q) output lacks %q and 14.27 tok/s:\n%s", tt.args, want, stdout.String())
		}
	}
}

// TestRunSuggest: -suggest prints rows and nearest raw values and writes
// nothing.
func TestRunSuggest(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5-v3")
	before := snaptest.Read(t, filepath.Join(root, "PLAN.claims"))
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-root", root, "-suggest"}); code != 0 {
		t.Fatalf("run(-suggest) = %d; stderr %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{`"3,194.23 ms"`, "nearest raw: 3194.19 ms (strata_q2_0_moce085_prefill_1024tok: prefill_ms)", "# 7 quotes"} {
		if !strings.Contains(out, want) {
			t.Errorf("-suggest output lacks %q:\n%s", want, out)
		}
	}
	if after, err := os.ReadFile(filepath.Join(root, "PLAN.claims")); err != nil || string(after) != before {
		t.Errorf("-suggest changed PLAN.claims (err %v)", err)
	}
}
