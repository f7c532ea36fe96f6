package spec

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// newUserLog is a strata speed run's log (fixtures/m5-v3's engine format,
// synthetic values) as a runner that stamps each line with an RFC 3339
// time and a level writes it: "2026-10-15T08:01:00.000Z INFO  init: …".
func newUserLog(decode string) string {
	lines := []string{
		"strata_window_cli 0.9.3-m5 (metal, K256, SEPARATE_PROMPT_BUF=1)",
		"mem: locked 2.90 GB | unpinned 0.34 GB | hc 1.28 GB | scratch 1.36 GB",
		"prompt_gemm plan: C=1024 cells=4224 ple=1 flash=1 need 1.36 GB (separate transient mmap), peak prefill 6.50 GB, cap 18.80 GB",
		"init: 347.12 ms",
		"fill: 2.77 GB in 0.4 s (6.44 GB/s)",
		"expert arena 3.40 GB: 2441 slots (1987 filled), 1 size class, 16 KiB pages",
		"prompt_gemm_init: 1.36 GB scratch in a separate transient mmap while a prompt runs",
		"prefill: 1024 tok in 3194.19 ms (320.58 tok/s)",
		"prompt_region(false): phys_footprint 4.73 GB -> 4.67 GB, resident_size 7.65 GB -> 7.60 GB",
		"decode: 64 tok in 4702.42 ms (" + decode + " tok/s)",
		"cache: hit 84.23% arena + 8.50% RA = 92.73%, miss 7.27% (37.9 misses/tok, 52.39 MB/tok)",
		"timing: host wait 14.10 ms/tok, T1 GPU 71.712 ms/tok",
		"[runner] vm_stat: swapouts +0 pages (0.0 MiB swapout)",
		"[runner] min_avail 2.91 GiB (vm_stat free+inactive+purgeable, 0.25 s samples)",
		"[runner] iostat: disk0 read 6,985.29 MB",
	}
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "2026-10-15T08:01:%02d.%03dZ INFO  %s\n", i/10, i*37%1000, l)
	}
	return b.String()
}

// TestNewUserShape adopts a strata-shaped checkout nobody wrote a fixture
// for, as README's "Audit your own project" says: the runs in one JSON
// document under a nested key, or in a CSV file one run a row, with the
// runner's own field names, each log
// line behind an RFC 3339 time and a level (not glog's header), a command
// line opening with an environment assignment as a shell runs it. -init's
// guess places the runs; the parse errors of the unprefixed format say
// where the lines are and what prefix they carry; the declared format the
// README shows (wrap strata, strip the prefix) reads them; the gate binds
// the plan's two numbers and passes, and a plan line whose label names
// another configuration than its runs' still fails.
func TestNewUserShape(t *testing.T) {
	for _, asCSV := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "csv"}[asCSV], func(t *testing.T) { newUserShape(t, asCSV) })
	}
}

// newUserShape is TestNewUserShape with the runs in one JSON document, or,
// asCSV, in a CSV file, one run a row, the runner's columns its header.
func newUserShape(t *testing.T, asCSV bool) {
	dir := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type run struct {
		Label   string  `json:"label"`
		Command string  `json:"command"`
		Stdout  string  `json:"stdout"`
		Elapsed float64 `json:"elapsed"`
		Status  int     `json:"status"`
	}
	doc := map[string]any{"meta": map[string]any{"tool": "mybench"}, "suite": map[string]any{"runs": []run{
		{"decode_moce085", "build/strata_window_cli --model models/K256.gguf --moce 0.85 -n 64", newUserLog("13.61"), 9.5, 0},
		{"decode_moce0", "STRATA_METAL_ARENA_GB=3.4 build/strata_window_cli --model models/K256.gguf --moce 0 -n 64", newUserLog("12.02"), 10.5, 0},
	}}}
	want := []checkout.Results{{File: "bench/report.json", Runs: "suite.runs",
		Fields: checkout.Fields{Name: "label", Argv: "command", Exit: "status", Duration: "elapsed", Tail: "stdout"}}}
	if asCSV {
		var b strings.Builder
		w := csv.NewWriter(&b)
		_ = w.Write([]string{"label", "command", "stdout", "elapsed", "status"})
		for _, r := range doc["suite"].(map[string]any)["runs"].([]run) {
			_ = w.Write([]string{r.Label, r.Command, r.Stdout, fmt.Sprint(r.Elapsed), fmt.Sprint(r.Status)})
		}
		w.Flush()
		write("bench/runs.csv", b.String())
		want[0].File, want[0].Runs = "bench/runs.csv", ""
	} else {
		b, err := json.MarshalIndent(doc, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		write("bench/report.json", string(b))
	}
	write("PLAN.md", "# My plan\n\n## 1. Speed\n\nDecode runs at 13.61 tok/s with `--moce 0.85`, and 12.02 tok/s with `--moce 0`.\n")
	write("PLAN.claims", "section §1\n§1 | 13.61 tok/s | decode_moce085:decode_tok_s\n§1 | 12.02 tok/s | decode_moce0:decode_tok_s\n")

	// -init: the runs are found (under suite.runs) with the runner's names.
	fsys, err := snapfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	guess, _, err := checkout.Guess(fsys, format.LooksLikeBench)
	fsys.Close()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, guess.Results, cmp.AllowUnexported(checkout.Results{})); diff != "" {
		t.Fatalf("-init's guess of the runs (-want +got):\n%s", diff)
	}
	spec, err := guess.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	write(checkout.File, string(spec))

	// -metrics before the format is declared: the strata format does not
	// read the stamped lines, and says why.
	ctx, err := audit.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms := ctx.Metrics["decode_moce085"]
	if ms == nil || len(ms.Errors) == 0 {
		t.Fatalf("decode_moce085 before the format is declared: %+v; want parse errors", ms)
	}
	hint := `line 6 has it after a prefix, "2026-10-15T08:01:00.185Z INFO  "`
	if got := ms.Errors[0].Error(); !strings.Contains(got, hint) {
		t.Errorf("first parse error = %q; want one saying %q", got, hint)
	}

	// The declared format README shows: wrap strata, strip the prefix.
	var s map[string]any
	if err := json.Unmarshal(spec, &s); err != nil {
		t.Fatal(err)
	}
	s["programs"] = []map[string]string{{"match": "strata_window_cli", "parser": "stamped_strata"}}
	s["formats"] = map[string]any{"stamped_strata": map[string]string{"wrap": "strata", "prefix": `^\d{4}-\d\d-\d\dT[0-9:.]+Z +[A-Z]+ +`}}
	if spec, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	write(checkout.File, string(spec))
	r, err := audit.Audit(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "PASS" || r.Summary.Fail != 0 {
		t.Errorf("audit with the declared format: %s, %d fail; want PASS: %+v", r.Verdict, r.Summary.Fail, failsOf(r.Findings))
	}
	bound := 0
	for _, f := range r.Findings {
		if f.Rule == "plan.unsourced" && f.Severity == finding.Pass {
			bound++
		}
	}
	if bound != 2 {
		t.Errorf("plan.unsourced passes = %d; want the plan's 2 numbers bound", bound)
	}

	// Not vacuous: the second number labelled with the first run's setting fails.
	write("PLAN.md", "# My plan\n\n## 1. Speed\n\nDecode runs at 13.61 tok/s with `--moce 0.85`, and 12.02 tok/s with `--moce 0.85`.\n")
	if r, err = audit.Audit(dir, ""); err != nil {
		t.Fatal(err)
	}
	if fails := failsOf(r.Findings); len(fails) != 1 || fails[0] != "plan.label PLAN.md:5" {
		t.Errorf("a mislabelled number: fails %q; want plan.label at PLAN.md:5", fails)
	}
}

// failsOf lists the fail findings as "rule file:line".
func failsOf(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Severity == finding.Fail {
			out = append(out, fmt.Sprintf("%s %s:%d", f.Rule, f.File, f.Line))
		}
	}
	return out
}
