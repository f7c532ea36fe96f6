package spec

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// Like-for-like comparisons, per-token rates, archived inputs, provenance
// and hard-coded literals (issue 6; audit §1d, §2, §3, §4) on the
// snapshots: the audited one reproduces F16–F19, F38 and F39 (F23, the
// hand-kept sizing mirror, is the scratch rule's: invariants_test.go);
// the fixed one passes.

// compareRules are the rules of issue 6.
const compareRules = "compare.unlike,compare.rate,input.archive,provenance,code"

// ids returns "ID severity" → count over findings that carry an id.
func ids(fs []finding.Finding) map[string]int {
	m := map[string]int{}
	for _, f := range fs {
		if f.ID != "" {
			m[f.ID+" "+f.Severity.String()]++
		}
	}
	return m
}

func TestCompareAudited(t *testing.T) {
	fs := auditFindings(t, snaptest.Fixture(t, "m5-v3"), compareRules)
	got := ids(fs)
	// The audit's §1d, §2, §3 and §4 findings, as docs/findings.md lists
	// them for m5-v3.
	for _, tt := range []struct {
		key string
		min int
	}{
		{"F16 fail", 2}, // disk0 ub1024 and ub2048 against a run that decoded nothing
		{"F17 fail", 4}, // both prefill pairs and their ratios
		{"F18 fail", 2}, // the decode pair and its ratio
		{"F19 fail", 4}, // / 65.0 at L680 and L689 (compare.rate and code)
		{"F20 pass", 1},
		{"F21 pass", 3},
		{"F38 fail", 5}, // the archived prefix, and the echo of each patched run
		{"F39 warn", 1},
		{"F40 pass", 3},
	} {
		if got[tt.key] < tt.min {
			t.Errorf("m5-v3: %d findings %q; want at least %d (all: %v)", got[tt.key], tt.key, tt.min, got)
		}
	}
	for _, bad := range []string{"F20 fail", "F21 fail", "F40 fail"} {
		if got[bad] > 0 {
			t.Errorf("m5-v3: %d findings %q; want none", got[bad], bad)
		}
	}
	text := func(id string) string {
		var b strings.Builder
		for _, f := range fs {
			if f.ID == id {
				b.WriteString(f.Message + "\n" + f.Raw + "\n")
			}
		}
		return b.String()
	}
	for _, tt := range []struct{ id, want string }{
		{"F16", "llama_patched_step2_ngl99_cmoe_ub1024 decoded nothing (eval time = 0.00 ms / 1 runs)"},
		{"F17", "binary: llama-cli (llama_unpatched_step2_ub1024) vs llama-completion"},
		{"F17", "mode: chat (template applied)"},
		{"F17", "threads: default (not set) (llama_unpatched_step2_ub1024) vs 8"},
		{"F17", "prompt_tokens: not printed (llama-cli; the chat template adds tokens)"},
		{"F18", "n_predict: 64 (llama_unpatched_step2_ub1024) vs 22 (llama_patched_step4_ngl99_cmoe_decode)"},
		{"F19", "divides by the literal 65.0 (scripts/run_phase0_phase2_m5_validation.py:680)"},
		{"F19", "divides by the literal 65.0 (scripts/run_phase0_phase2_m5_validation.py:689)"},
		{"F19", "model load (8421.93 ms), prefill of 1264 tokens (20041.28 ms), and 22 decoded tokens"},
		{"F38", "/tmp/m5_prompt_1600tok.txt (5,600 bytes, sha256 de6bdb1ee7bf…)"},
		{"F38", "data/m5_val_prompts/llama_prompt_1264tok.txt (1,600 bytes, sha256 12cd05aa8276…), exactly its first 1,600 bytes"},
		{"F38", `the prompt echo ends "…final state.\n\n\nYou are solving a Termina"`},
		{"F39", "8 runs are carried over (env: null)"},
		{"F40", "the 14 re-run runs take 138.55 s and fit the 141.09 s"},
	} {
		if !strings.Contains(text(tt.id), tt.want) {
			t.Errorf("m5-v3 %s findings do not say %q:\n%s", tt.id, tt.want, text(tt.id))
		}
	}
}

func TestCompareFixed(t *testing.T) {
	fs := auditFindings(t, snaptest.Fixture(t, "m5"), compareRules)
	for _, f := range failures(fs) {
		t.Errorf("m5: %v", f)
	}
	got := ids(fs)
	for _, key := range []string{"F16 pass", "F17 pass", "F18 pass", "F39 warn"} {
		if got[key] == 0 {
			t.Errorf("m5: no %q finding (all: %v)", key, got)
		}
	}
}

// A changed byte in an archived input: input.archive fails naming the file.
func TestInputArchiveChangedByte(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	const rel = "data/m5_val_prompts/m5_prompt_1600tok.txt"
	p := filepath.Join(root, filepath.FromSlash(rel))
	b := []byte(snaptest.Read(t, p))
	b[100] ^= 0x20
	snaptest.Write(t, p, string(b))
	fs := auditFindings(t, root, "input.archive")
	var named []string
	for _, f := range failures(fs) {
		if f.File == rel {
			named = append(named, f.Message)
		}
	}
	if len(named) == 0 {
		t.Fatalf("input.archive after a changed byte in %s: no fail finding names it; findings: %v", rel, failures(fs))
	}
	if !strings.Contains(strings.Join(named, "\n"), "provenance record says") {
		t.Errorf("input.archive fail findings on %s = %q; want one comparing the sha256 with the provenance record", rel, named)
	}
}

// An mtime out of order: provenance fails.
func TestProvenanceMtimeOutOfOrder(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5-v3")
	p := filepath.Join(root, "machine", "mtimes.json")
	// The runner edited after the JSON was written.
	re := regexp.MustCompile(`("scripts/run_phase0_phase2_m5_validation.py": )"[^"]*"`)
	m := re.FindString(snaptest.Read(t, p))
	if m == "" {
		t.Fatalf("%s has no runner mtime", p)
	}
	snaptest.Edit(t, p, m, re.ReplaceAllString(m, `$1"2026-10-15T08:05:00+03:00"`))
	fs := auditFindings(t, root, "provenance")
	var msgs []string
	for _, f := range failures(fs) {
		msgs = append(msgs, f.Message)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "mtimes out of order") {
		t.Errorf("provenance with the runner's mtime after the JSON's: fail messages %q; want \"mtimes out of order\"", msgs)
	}
	for _, f := range fs {
		if f.Severity == finding.Pass && strings.Contains(f.Message, "mtimes in build → runner edit → JSON order") {
			t.Errorf("provenance still passes the order: %v", f)
		}
	}
}

// Two runs made alike except threads: compare.unlike names threads alone.
func TestCompareUnlikeThreadsAlone(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5-v3")
	p := filepath.Join(root, "results", "phase0_phase2_m5_validation.json")
	// strata_q2_0_moce0_short_43tok and strata_metal_optimized_k256_q2_0_moce085
	// are alike (PLAN §7.1 #5 "9.51 → 13.52 tok/s"); give the second "-t 8".
	s := snaptest.Read(t, p)
	at := strings.Index(s, `"name": "strata_metal_optimized_k256_q2_0_moce085"`)
	end := `"--n-gen",` + "\n        \"64\"\n      ],"
	if at < 0 || !strings.Contains(s[at:], end) {
		t.Fatalf("%s: cannot find the run's argv", p)
	}
	// The run's argv end is the n-th occurrence of end, counting from the top.
	n := strings.Count(s[:at], end) + 1
	snaptest.EditNth(t, p, end, `"--n-gen",`+"\n        \"64\",\n        \"-t\",\n        \"8\"\n      ],", n)
	fs := auditFindings(t, root, "compare.unlike")
	var f *finding.Finding
	for i := range fs {
		if fs[i].Quote == "9.51 → 13.52 tok/s" {
			f = &fs[i]
		}
	}
	if f == nil {
		t.Fatalf("compare.unlike: no finding for 9.51 → 13.52 tok/s")
	}
	if f.Severity != finding.Fail {
		t.Fatalf("compare.unlike(9.51 → 13.52 tok/s) = %v; want fail", f)
	}
	fields := diffFields(f.Message)
	if want := []string{"threads"}; strings.Join(fields, ",") != strings.Join(want, ",") {
		t.Errorf("compare.unlike(9.51 → 13.52 tok/s) names %v; want %v (message %q)", fields, want, f.Message)
	}
	if !strings.Contains(f.Message, "threads: default (not set) (strata_q2_0_moce0_short_43tok) vs 8 (strata_metal_optimized_k256_q2_0_moce085)") {
		t.Errorf("compare.unlike message %q does not give both sides' threads", f.Message)
	}
}

// diffFields returns the configuration fields a compare.unlike message
// names ("threads: a (run) vs b (run)").
func diffFields(msg string) []string {
	var out []string
	for _, field := range []string{"binary", "mode", "threads", "prompt", "batch", "ubatch", "n_predict", "flags", "prompt_tokens", "decoded_tokens"} {
		if regexp.MustCompile(`(^|[:;] )` + field + `: `).MatchString(msg) {
			out = append(out, field)
		}
	}
	if strings.Contains(msg, "decoded nothing") {
		out = append(out, "decoded nothing")
	}
	sort.Strings(out)
	return out
}

// With the /tmp file gone (a real checkout after a reboot), the archived
// prefix is still caught: the patched runs' prompt echo is in no archived
// file.
func TestInputArchiveWithoutMachineCopy(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5-v3")
	snaptest.Remove(t, filepath.Join(root, "machine", "tmp", "m5_prompt_1600tok.txt"))
	fs := auditFindings(t, root, "input.archive")
	var echoFails, gone int
	for _, f := range fs {
		switch {
		case f.Severity == finding.Fail && strings.Contains(f.Message, "is in no archived file"):
			echoFails++
		case f.Severity == finding.Warn && strings.Contains(f.Message, "is not on this machine any more"):
			gone++
		}
	}
	if echoFails != 4 || gone != 1 {
		t.Errorf("input.archive without /tmp: %d echo failures, %d warnings; want 4 (the patched runs) and 1\n%v", echoFails, gone, fs)
	}
}

// A per-token rate divided by the run's own count passes; the same amount
// named per decoded token fails, whatever its divisor.
func TestCompareRateOwnCount(t *testing.T) {
	const own = `per_tok(p4["disk0_mb"], tail_counts(p4["run"]))`
	tests := []struct {
		field string
		value string
		expr  string // the runner's derivation
		sev   finding.Severity
		want  string
	}{
		{"whole_run_disk0_mb_per_processed_tok", "26.0", own, finding.Pass, "33,428.34 / 1286 tokens processed"},
		{"whole_run_disk0_mb_per_processed_tok", "25.0", own, finding.Fail, "the run's own count gives 33,428.34 / 1286 = 26.0"},
		{"whole_run_disk0_mb_per_tok", "26.0", own, finding.Fail, "per decoded token, but it covers the whole run: model load (8421.93 ms), prefill of 1264 tokens"},
		{"whole_run_disk0_mb_per_processed_tok", "26.0", `per_tok(p4["disk0_mb"], 1286)`, finding.Fail, "divides by the literal 1286"},
	}
	for _, tt := range tests {
		t.Run(tt.field+"="+tt.value, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5")
			snaptest.Edit(t, filepath.Join(root, "results", "phase0_phase2_m5_validation.json"),
				`"whole_run_disk0_mb": 33428.34,`, `"whole_run_disk0_mb": 33428.34, "`+tt.field+`": `+tt.value+`,`)
			snaptest.Edit(t, filepath.Join(root, "scripts", "run_phase0_phase2_m5_validation.py"),
				`        "whole_run_disk0_mb": p4["disk0_mb"],`,
				`        "whole_run_disk0_mb": p4["disk0_mb"], "`+tt.field+`": `+tt.expr+`,`)
			var got *finding.Finding
			fs := auditFindings(t, root, "compare.rate")
			for i := range fs {
				if strings.Contains(fs[i].Raw+fs[i].Quote, tt.field) {
					got = &fs[i]
				}
			}
			if got == nil || got.Severity != tt.sev || !strings.Contains(got.Message, tt.want) {
				t.Errorf("compare.rate(%s = %s) = %v; want %v saying %q", tt.field, tt.value, got, tt.sev, tt.want)
			}
		})
	}
}
