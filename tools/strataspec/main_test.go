package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/snaptest"
)

const fixtures = "../../fixtures"

func TestRunExitCodes(t *testing.T) {
	for _, tt := range []struct {
		name      string
		args      []string
		code      int
		stderrHas string
	}{
		{"v3 plan gate fails", []string{"-root", fixtures + "/m5-v3", "-rules", "plan", "-format", "json"}, 1, ""},
		{"unknown rule", []string{"-root", fixtures + "/m5", "-rules", "nosuch"}, 2, `unknown rule "nosuch"`},
		{"unknown format", []string{"-root", fixtures + "/m5", "-format", "yaml"}, 2, `unknown -format "yaml"`},
		{"missing root", []string{"-root", fixtures + "/nosuch"}, 2, "nosuch"},
		{"extra argument", []string{"-root", fixtures + "/m5", "extra"}, 2, "unexpected arguments"},
		{"bad flag", []string{"-bogus"}, 2, "bogus"},
		{"list", []string{"-list"}, 0, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, tt.args)
		if code != tt.code {
			t.Errorf("run(%q) = %d; want %d\nstderr: %s", tt.args, code, tt.code, stderr.String())
		}
		if tt.stderrHas != "" && !strings.Contains(stderr.String(), tt.stderrHas) {
			t.Errorf("run(%q) stderr = %q; want it to contain %q", tt.args, stderr.String(), tt.stderrHas)
		}
	}
	// -list lists every rule, one a line, with its description.
	var stdout, stderr bytes.Buffer
	run(&stdout, &stderr, []string{"-list"})
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	names := audit.Names()
	if len(lines) != len(names) {
		t.Fatalf("-list printed %d lines; want %d (one per rule)\n%s", len(lines), len(names), stdout.String())
	}
	for i, n := range names {
		if f := strings.Fields(lines[i]); len(f) < 2 || f[0] != n {
			t.Errorf("-list line %d = %q; want rule %s and its description", i+1, lines[i], n)
		}
	}
}

func TestRunJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-root", fixtures + "/m5-v3", "-rules", "plan", "-format", "json"}); code != 1 {
		t.Fatalf("run = %d; want 1\n%s", code, stderr.String())
	}
	var rep struct {
		Verdict  string
		Root     string
		Findings []struct{ Rule, Severity, File string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if rep.Verdict != "FALSIFIER HIT" || len(rep.Findings) == 0 {
		t.Errorf("verdict %q with %d findings; want FALSIFIER HIT with findings", rep.Verdict, len(rep.Findings))
	}
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.Rule, "plan.") {
			t.Errorf("-rules plan reported a %s finding", f.Rule)
		}
	}
}

func TestRunBadResults(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5")
	results := filepath.Join(root, "results", "phase0_phase2_m5_validation.json")
	b := snaptest.Read(t, results)
	snaptest.Write(t, results, b[:len(b)/2])
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-root", root}); code != 2 {
		t.Fatalf("run(truncated results) = %d; want 2", code)
	}
	if !strings.Contains(stderr.String(), "phase0_phase2_m5_validation.json") {
		t.Errorf("stderr = %q; want the results file named", stderr.String())
	}
}

// TestRunBadInput damages one thing in a copy of the audited snapshot and
// checks what the command makes of it: unreadable input exits 2 with a
// message naming the file and the place (line:column and JSON path); a tail
// that parses badly is a fail finding at the tail's place (exit 1). No case
// may panic: run would not return.
func TestRunBadInput(t *testing.T) {
	const results = "results/phase0_phase2_m5_validation.json"
	tests := []struct {
		name string
		edit func(t *testing.T, path string)
		code int
		want []string // in stderr (exit 2) or in one finding of the JSON report (exit 1)
	}{
		{"truncated JSON", func(t *testing.T, p string) {
			b := snaptest.Read(t, p)
			snaptest.Write(t, p, b[:len(b)/3])
		}, 2, []string{results + ":", "unexpected end of JSON"}},
		{"duplicate run name", func(t *testing.T, p string) {
			snaptest.Edit(t, p, `"name": "strata_iq3_s_short_43tok",`, `"name": "strata_q2_0_moce0_short_43tok",`)
		}, 2, []string{results + ":52:", "runs[2].name", `duplicate run name "strata_q2_0_moce0_short_43tok" (also ` + results + ` line 5)`}},
		{"non-UTF-8 tail", func(t *testing.T, p string) {
			snaptest.Edit(t, p, "init: 356.06 ms", "init: 356.06 ms \xff")
		}, 2, []string{results + ":49:", "runs[1].output_tail", "invalid UTF-8"}},
		{"tail missing a required line", func(t *testing.T, p string) {
			snaptest.Edit(t, p, `timing: host wait 16.11 ms/tok, T1 GPU 72.400 ms/tok\n`, "")
		}, 1, []string{"runs[1].output_tail", "run strata_metal_optimized_k256_q2_0_moce085", `missing required line "timing:"`}},
		{"malformed tail line", func(t *testing.T, p string) {
			snaptest.Edit(t, p, "(40.6 misses/tok, 56.12 MB/tok)", "(40.6 misses/tok, 56.12 MB)")
		}, 1, []string{"runs[1].output_tail", "tail line 26", `malformed "cache:" line`}},
		{"string where a number belongs", func(t *testing.T, p string) {
			snaptest.EditNth(t, p, `"exit_code": 0,`, `"exit_code": "0",`, 3)
		}, 2, []string{results + ":", "runs[2].exit_code", "want an integer, found string"}},
		{"huge number", func(t *testing.T, p string) {
			snaptest.EditNth(t, p, `"exit_code": 0,`, `"exit_code": 1e999,`, 1)
		}, 2, []string{results + ":", "runs[0].exit_code", "want an integer"}},
		// a bad record is the bad input of the rule reading it (selftest;
		// spec TestBadRecords), not of summary, which these cases run
		{"self-test header without exit", func(t *testing.T, p string) {
			snaptest.Write(t, filepath.Join(filepath.Dir(filepath.Dir(p)), "results", "self_test.log"), "# cmd: x\nself-test: PASS\n")
		}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5-v3")
			tt.edit(t, filepath.Join(root, filepath.FromSlash(results)))
			var stdout, stderr bytes.Buffer
			code := run(&stdout, &stderr, []string{"-root", root, "-rules", "summary", "-format", "json"})
			if code != tt.code {
				t.Fatalf("run(%s) = %d; want %d\nstderr: %s", tt.name, code, tt.code, stderr.String())
			}
			if code == 0 {
				return
			}
			if code == 2 {
				for _, w := range tt.want {
					if !strings.Contains(stderr.String(), w) {
						t.Errorf("run(%s) stderr = %q; want it to contain %q", tt.name, stderr.String(), w)
					}
				}
				return
			}
			var rep struct {
				Findings []struct{ Severity, File, Message string }
			}
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("run(%s): output is not JSON: %v", tt.name, err)
			}
			for _, f := range rep.Findings {
				all := true
				for _, w := range tt.want {
					all = all && strings.Contains(f.File+" "+f.Message, w)
				}
				if f.Severity == "fail" && all {
					return
				}
			}
			t.Errorf("run(%s): no fail finding containing %q in %+v", tt.name, tt.want, rep.Findings)
		})
	}
}

// TestRunDamagedTails damages one tail of each kind (a strata speed run, a
// TF run, a llama.cpp run) of the fixed snapshot, which passes: an empty or
// truncated tail must fail the audit (exit 1), never pass and never stop it.
func TestRunDamagedTails(t *testing.T) {
	const results = "results/phase0_phase2_m5_validation.json"
	for _, name := range []string{"strata_metal_optimized_k256_q2_0_moce085", "strata_tf_iq3_s_ja", "llama_patched_step2_ngl99_cmoe_ub1024"} {
		for _, damage := range []struct {
			name string
			f    func(string) string
		}{
			{"empty", func(string) string { return "" }},
			{"truncated", func(s string) string { return s[:len(s)/2] }},
			{"garbage", func(string) string { return "decode: 1e999 tok in inf ms (nan tok/s)\nfill: ?\n" }},
		} {
			t.Run(name+"/"+damage.name, func(t *testing.T) {
				root := snaptest.CopyFixture(t, "m5")
				p := filepath.Join(root, filepath.FromSlash(results))
				var doc map[string]json.RawMessage
				if err := json.Unmarshal([]byte(snaptest.Read(t, p)), &doc); err != nil {
					t.Fatal(err)
				}
				var runs []map[string]any
				if err := json.Unmarshal(doc["runs"], &runs); err != nil {
					t.Fatal(err)
				}
				found := false
				for _, r := range runs {
					if r["name"] == name {
						r["output_tail"] = damage.f(r["output_tail"].(string))
						found = true
					}
				}
				if !found {
					t.Fatalf("no run %s in %s", name, results)
				}
				b, err := json.Marshal(runs)
				if err != nil {
					t.Fatal(err)
				}
				doc["runs"] = b
				out, err := json.MarshalIndent(doc, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				snaptest.Write(t, p, string(out))
				var stdout, stderr bytes.Buffer
				if code := run(&stdout, &stderr, []string{"-root", root, "-format", "json"}); code != 1 {
					t.Errorf("audit with the %s tail of %s = exit %d; want 1\nstderr: %s", damage.name, name, code, stderr.String())
				}
				if !strings.Contains(stdout.String(), name) {
					t.Errorf("audit with the %s tail of %s: the report does not name the run", damage.name, name)
				}
			})
		}
	}
}
