package compare_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/rules/compare"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// quoted returns the finding on a quote, failing the test when there is none.
func quoted(t *testing.T, fs []finding.Finding, quote string) finding.Finding {
	t.Helper()
	for _, f := range fs {
		if f.Quote == quote {
			return f
		}
	}
	t.Fatalf("no finding on %q in %v", quote, fs)
	return finding.Finding{}
}

// wantFinding fails the test unless f has the severity and its message
// contains every one of parts; what names the call.
func wantFinding(t *testing.T, what string, f finding.Finding, sev finding.Severity, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if f.Severity != sev || !strings.Contains(f.Message, p) {
			t.Fatalf("%s = %s %q; want %s containing %q", what, f.Severity, f.Message, sev, p)
		}
	}
}

func TestShape(t *testing.T) {
	tests := []struct{ row, want string }{
		{"§1 | 1 → 2 tok/s | a_run:cli_gen_tok_s ; b_run:eval_tok_s", "cli_gen_tok_s ; eval_tok_s"},
		{"§1 | −55.8 % | change(a:disk0_mb, b:disk0_mb)", "change(disk0_mb, disk0_mb)"},
		{"§1 | 2 MB/tok | div(a:disk0_mb, $n) ; div(b:disk0_mb, 65)", "div(disk0_mb, $n) ; div(disk0_mb, 65)"},
		{"§1 | 3.66–6.44 GB/s | range(@q2:fill_gb_s)", "range(@q2:fill_gb_s)"},
	}
	for _, tt := range tests {
		tab := claims.Parse("t.claims", []byte("section §1\nconst n = 65 tokens\nset q2 = a b\n"+tt.row+"\n"), eval.Signatures())
		if err := tab.Err(); err != nil {
			t.Fatalf("claims.Parse(%q): %v", tt.row, err)
		}
		if len(tab.Rows) != 1 {
			t.Fatalf("claims.Parse(%q) = %d rows; want 1", tt.row, len(tab.Rows))
		}
		if got := compare.Shape(tab.Rows[0]); got != tt.want {
			t.Errorf("Shape(%q) = %q; want %q", tt.row, got, tt.want)
		}
	}
}

// Every setting is compared: without the spec's vary, the strata pair that
// varies --moce is not like for like, and the message names --moce alone;
// with it, the pair passes and says what it varies.
func TestUnlikeVary(t *testing.T) {
	const quote = "9.51 → 13.52 tok/s"
	f := quoted(t, analysistest.Findings(t, snaptest.Fixture(t, "m5-v3"), compare.Unlike), quote)
	wantFinding(t, "compare.unlike(m5-v3)", f, finding.Pass,
		"match on binary, mode, threads, prompt, batch, ubatch, n_predict, flags, prompt_tokens, decoded_tokens, --k, env STRATA_METAL_ARENA_GB",
		"differ on purpose (the spec's vary) in --moce: 0 (strata_q2_0_moce0_short_43tok) vs 0.85")

	root := snaptest.CopyFixture(t, "m5-v3")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"compare.unlike": {"vary": ["model", "--moce"]},`, "")
	f = quoted(t, analysistest.Findings(t, root, compare.Unlike), quote)
	if want := quote + " is not like for like: --moce: 0 (strata_q2_0_moce0_short_43tok) vs 0.85 (strata_metal_optimized_k256_q2_0_moce085); no caveat is stated"; f.Severity != finding.Fail || f.Message != want {
		t.Fatalf("compare.unlike(m5-v3 without vary) = %s %q; want fail %q", f.Severity, f.Message, want)
	}
}

// An environment variable that differs between re-run runs is a difference.
func TestUnlikeEnv(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5-v3")
	snaptest.EditNth(t, filepath.Join(root, snaptest.ResultsFile), `"STRATA_METAL_ARENA_GB": "3.4"`, `"STRATA_METAL_ARENA_GB": "4.0"`, 2)
	f := quoted(t, analysistest.Findings(t, root, compare.Unlike), "9.51 → 13.52 tok/s")
	wantFinding(t, "compare.unlike(an env that differs)", f, finding.Fail,
		"env STRATA_METAL_ARENA_GB: 3.4 (strata_q2_0_moce0_short_43tok) vs 4.0 (strata_metal_optimized_k256_q2_0_moce085)")
}

// The finding's check is the row's shape, so the spec's ids reach it.
func TestUnlikeIDsFromSpec(t *testing.T) {
	fs := analysistest.Findings(t, snaptest.Fixture(t, "m5-v3"), compare.Unlike)
	for _, tt := range []struct{ quote, check, id string }{
		{"14.3 → 38.11 tok/s", "cli_prompt_tok_s ; prompt_tok_s", "F17"},
		{"1.40 → 3.22 tok/s", "cli_gen_tok_s ; eval_tok_s", "F18"},
		{"−55.8 %", "change(disk0_mb, disk0_mb)", "F16"},
		{"9.51 → 13.52 tok/s", "decode_tok_s ; decode_tok_s", ""},
	} {
		f := quoted(t, fs, tt.quote)
		if f.Check != tt.check || f.ID != tt.id {
			t.Errorf("compare.unlike(%q) = check %q, id %q; want %q, %q", tt.quote, f.Check, f.ID, tt.check, tt.id)
		}
	}
	root := snaptest.CopyFixture(t, "m5-v3")
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `"compare.unlike/cli_gen_tok_s ; eval_tok_s": "F18",`, "")
	if f := quoted(t, analysistest.Findings(t, root, compare.Unlike), "1.40 → 3.22 tok/s"); f.ID != "" {
		t.Errorf("compare.unlike(1.40 → 3.22 tok/s) without the spec's id = %q; want none", f.ID)
	}
}

// A vary entry may be a pattern: "env *" lets the whole environment vary
// (a pattern that does not compile: testdata/unlike-bad-pattern).
func TestUnlikeVaryPattern(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5-v3")
	snaptest.EditNth(t, filepath.Join(root, snaptest.ResultsFile), `"STRATA_METAL_ARENA_GB": "3.4"`, `"STRATA_METAL_ARENA_GB": "4.0"`, 2)
	snaptest.Edit(t, filepath.Join(root, "strataspec.json"), `{"vary": ["model", "--moce"]}`, `{"vary": ["model", "--moce", "env *"]}`)
	f := quoted(t, analysistest.Findings(t, root, compare.Unlike), "9.51 → 13.52 tok/s")
	wantFinding(t, "compare.unlike(vary env *)", f, finding.Pass, "env STRATA_METAL_ARENA_GB: 3.4 (strata_q2_0_moce0_short_43tok) vs 4.0")
	if not := "match on binary, mode, threads, prompt, batch, ubatch, n_predict, flags, prompt_tokens, decoded_tokens, --k, env"; strings.Contains(f.Message, not) {
		t.Fatalf("compare.unlike(vary env *) = %q; want no %q: the environment varies", f.Message, not)
	}
}

// llama-bench rows are compared on every field they print: two rows of one
// build and machine are alike; a row measured with other threads is not.
func TestUnlikeBenchRows(t *testing.T) {
	const quote = "7100.00 → 7263.61 tok/s"
	f := quoted(t, analysistest.Findings(t, snaptest.Fixture(t, "llamacpp"), compare.Unlike), quote)
	wantFinding(t, "compare.unlike(llamacpp)", f, finding.Pass, "printed build_commit, printed build_number, printed cpu_info")

	root := snaptest.CopyFixture(t, "llamacpp")
	snaptest.EditNth(t, filepath.Join(root, "runs", "qwen7b_b5163_b.bench.jsonl"), `"n_threads": 8`, `"n_threads": 4`, 1)
	f = quoted(t, analysistest.Findings(t, root, compare.Unlike), quote)
	if want := quote + " is not like for like: printed n_threads: 8 (qwen7b_b5163_a) vs 4 (qwen7b_b5163_b); no caveat is stated"; f.Severity != finding.Fail || f.Message != want {
		t.Fatalf("compare.unlike(llamacpp, other threads) = %s %q; want fail %q", f.Severity, f.Message, want)
	}
}
