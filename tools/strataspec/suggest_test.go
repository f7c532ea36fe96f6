package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/tools/strataspec/suggest"
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

// TestRunSuggestKeepsRuns: the row of "6.39–6.44 GB/s" in fixtures/m5-v3
// ranges over @q2_0 and leaves out the cold first run (F13). -suggest must
// not offer a narrower set that gives the quoted range (it offered
// range(@prefill:fill_gb_s) uncommented, which hid F13): every row it
// prints uncommented keeps the runs of the row's set.
func TestRunSuggestKeepsRuns(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-root", filepath.Join("..", "..", "fixtures", "m5-v3"), "-suggest"}); code != 0 {
		t.Fatalf("run(-suggest) = %d; stderr %s", code, stderr.String())
	}
	out := stdout.String()
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "6.39–6.44 GB/s") && !strings.HasPrefix(l, "#") {
			t.Errorf("-suggest binds the range that drops the cold first run with %q", l)
		}
		if strings.Contains(l, "@prefill") {
			t.Errorf("-suggest offers the narrower set @prefill: %q", l)
		}
	}
	if !strings.Contains(out, "no declared set holding the 10 runs of the row's set gives this range") {
		t.Errorf("-suggest does not say why no set is offered for 6.39–6.44 GB/s:\n%s", out)
	}
}

func TestWriteSuggestionsNeverALiteralRow(t *testing.T) {
	for _, tt := range []struct {
		row       string
		uncomment bool
	}{
		{"§2.1 #1 | 91.23 ms | 91.23", false},
		{"§2.1 #1 | 91.23 ms | 91.23 * 1", false},
		{"§2.1 #1 | 91.23 ms | r1:prefill_ms", true},
		{"§2.1 #1 | 3.66–6.44 GB/s | range(@q2_0:fill_gb_s)", true},
	} {
		var buf strings.Builder
		writeSuggestions(&buf, "PLAN.md", []suggest.Suggestion{{Place: "§2.1 #1", Quote: "91.23 ms", Lines: []int{3}, Why: "unbound", Rows: []string{tt.row}}})
		out := buf.String()
		printed := strings.Contains("\n"+out, "\n"+tt.row+"\n")
		if printed != tt.uncomment {
			t.Errorf("writeSuggestions(row %q) prints it uncommented = %v; want %v:\n%s", tt.row, printed, tt.uncomment, out)
		}
		want := "0 with a unique source"
		if tt.uncomment {
			want = "1 with a unique source"
		}
		if !strings.Contains(out, want) {
			t.Errorf("writeSuggestions(row %q) summary lacks %q:\n%s", tt.row, want, out)
		}
	}
}
