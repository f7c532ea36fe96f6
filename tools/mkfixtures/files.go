package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// placeholderMarker marks a file the generator wrote for a missing file
// another helper owns; only such files may be rewritten.
const placeholderMarker = "MKFIXTURES-PLACEHOLDER"

func joinRoot(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

// writeIfChanged writes data to root/rel unless the file already holds it.
func writeIfChanged(root, rel string, data []byte) (bool, error) {
	p := joinRoot(root, rel)
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, err
	}
	tmp := p + ".mkfixtures.tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, p)
}

// writeAll writes every file of owned (path → content) under root, in path
// order, and returns those it changed.
func writeAll(root string, owned map[string][]byte) ([]string, error) {
	names := make([]string, 0, len(owned))
	for k := range owned {
		names = append(names, k)
	}
	sort.Strings(names)
	var changed []string
	for _, rel := range names {
		c, err := writeIfChanged(root, rel, owned[rel])
		if err != nil {
			return nil, err
		}
		if c {
			changed = append(changed, rel)
		}
	}
	return changed, nil
}

// foreignFiles are hashed files other helpers own, by snapshot.
func foreignFiles(snap string) []string {
	fs := []string{
		"scripts/run_phase0_phase2_m5_validation.py",
	}
	return append(fs, llamaPrompt(snap))
}

// llamaPrompt is the archived llama prompt: the 1,600-byte prefix as
// audited, the full 5,600-byte file once fixed.
func llamaPrompt(snap string) string {
	if snap == "m5" {
		return "data/m5_val_prompts/m5_prompt_1600tok.txt"
	}
	return "data/m5_val_prompts/llama_prompt_1264tok.txt"
}

// prompts are the 7 prompt files provenance hashes.
func prompts(snap string) []string {
	return []string{
		"data/m5_val_prompts/strata_prompt_43tok.txt",
		"data/m5_val_prompts/strata_prompt_1024tok.txt",
		"data/m5_val_prompts/strata_prompt_2048tok.txt",
		"data/m5_val_prompts/eval_tf_96tok_ops_tools.txt",
		"data/m5_val_prompts/eval_tf_96tok_chat_json.txt",
		"data/m5_val_prompts/eval_tf_96tok_ja.txt",
		llamaPrompt(snap),
	}
}

// ensurePlaceholder writes a placeholder for a missing foreign file. An
// existing file is left alone unless it is our placeholder.
func ensurePlaceholder(root, rel string) (bool, error) {
	old, err := os.ReadFile(joinRoot(root, rel))
	switch {
	case err == nil && !bytes.Contains(old, []byte(placeholderMarker)):
		return false, nil // the owner's file
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	body := fmt.Sprintf("%s: %s is written by its owner (see fixtures/m5-v3/README.md); this stands in until then.\n", placeholderMarker, rel)
	return writeIfChanged(root, rel, []byte(body))
}

// generate writes one snapshot and returns the files it changed.
func generate(root, snap string, llama []*llamaRun) ([]string, error) {
	if err := checkTables(); err != nil {
		return nil, err
	}
	var built []builtRun
	for _, group := range [][]runSpec{speedRuns, tfRuns} {
		for i := range group {
			r := &group[i]
			t, perf, err := strataLog(r)
			if err != nil {
				return nil, err
			}
			built = append(built, builtRun{spec: r, tail: t, perf: perf})
		}
	}
	owned := map[string][]byte{
		"data/m5_val_prompts/strata_prompt_43tok.txt":   promptText(43),
		"data/m5_val_prompts/strata_prompt_1024tok.txt": promptText(1024),
		"data/m5_val_prompts/strata_prompt_2048tok.txt": promptText(2048),
		"scripts/patch_strata_metal.py":                 standIn("scripts/patch_strata_metal.py", "the patch script applied to the vendored strata Metal sources", "# "),
		"vendor/strata/metal/moe.metal":                 standIn("vendor/strata/metal/moe.metal", "the MoE Metal shader source", "// "),
		"build/route_parity":                            standIn("build/route_parity", "the route_parity Mach-O arm64 binary", ""),
		"build/strata_window_cli":                       standIn("build/strata_window_cli", "the strata_window_cli Mach-O arm64 binary", ""),
		"results/self_test.log":                         selfTest(snap),
		"machine/mtimes.json":                           mtimesJSON(),
	}
	records, err := residencyRecords(snap)
	if err != nil {
		return nil, err
	}
	for rel, b := range records {
		owned[rel] = b
	}
	for _, p := range parity {
		for i := 1; i <= 3; i++ {
			name := fmt.Sprintf("results/route_parity/%s_%d", p.mode, i)
			owned[name+".log"] = parityLog(p.env, p.k512, p.k256, p.k512Mean, p.k256Mean)
			owned[name+".json"] = parityRecord(p.env)
		}
	}
	tfs, err := tfFiles(snap)
	if err != nil {
		return nil, err
	}
	for rel, b := range tfs {
		owned[rel] = b
	}
	changed, err := writeAll(root, owned)
	if err != nil {
		return nil, err
	}
	for _, rel := range foreignFiles(snap) {
		c, err := ensurePlaceholder(root, rel)
		if err != nil {
			return nil, err
		}
		if c {
			changed = append(changed, rel+" (placeholder)")
		}
	}
	data, err := results(root, built, llama, prompts(snap), snap == "m5")
	if err != nil {
		return nil, err
	}
	for rel, b := range map[string][]byte{"results/phase0_phase2_m5_validation.json": data, "VALUES.md": valuesMD(built)} {
		c, err := writeIfChanged(root, rel, b)
		if err != nil {
			return nil, err
		}
		if c {
			changed = append(changed, rel)
		}
	}
	sort.Strings(changed)
	return changed, nil
}

// checkTables verifies the tables against the audit's aggregate figures.
func checkTables() error {
	var sum float64
	for _, g := range [][]runSpec{speedRuns, tfRuns} {
		for _, r := range g {
			sum += mustFloat(r.durationS)
		}
	}
	if f(sum, 2) != strataDurationSum {
		return fmt.Errorf("strata run durations sum to %s s, the audit says %s", f(sum, 2), strataDurationSum)
	}
	for _, mc := range macroConfigs {
		var k, t float64
		n := 0
		for _, r := range tfRuns {
			if r.config == mc.config {
				k += mustFloat(r.kld[0])
				t += mustFloat(r.top1Pct)
				n++
				if want := f(mustFloat(r.top1)/64*100, 2); want != r.top1Pct {
					return fmt.Errorf("%s: top-1 %s/64 prints %s, table says %s", r.name, r.top1, want, r.top1Pct)
				}
			}
		}
		if got := f(k/float64(n), 6); got != mc.meanKLD {
			return fmt.Errorf("%s: mean KLD macro %s, the audit says %s", mc.config, got, mc.meanKLD)
		}
		if got := f(t/float64(n), 3); mustFloat(got) != mustFloat(mc.top1) {
			return fmt.Errorf("%s: top-1 macro %s, the audit says %s", mc.config, got, mc.top1)
		}
	}
	for _, m := range []struct{ a, b, want string }{{"40.6", "84.3", "51.8"}, {"40.6", "108.9", "62.7"}} {
		if got := f(100*(1-mustFloat(m.a)/mustFloat(m.b)), 1); got != m.want {
			return fmt.Errorf("miss reduction 1 − %s/%s = %s, the audit says %s", m.a, m.b, got, m.want)
		}
	}
	if math.IsNaN(sum) {
		return errors.New("durations: NaN")
	}
	return nil
}

// promptText is a deterministic synthetic prompt of roughly n tokens
// (about four bytes per token).
func promptText(n int) []byte {
	sentences := []string{
		"The validation harness streams expert weights from disk into a fixed arena before decoding begins.",
		"Each layer routes a token to a handful of experts, and the arena keeps the hottest ones resident.",
		"A miss stalls the command buffer until the slice arrives from the expert file.",
		"Read-ahead fetches neighbouring slices so that the next token finds them already in memory.",
		"Summarise the trade-off between arena size, hit rate and decode throughput in plain words.",
		"Explain why a cold first run fills more slowly than the runs that follow it.",
	}
	var b strings.Builder
	for i := 0; b.Len() < n*4; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sentences[i%len(sentences)])
	}
	s := b.String()
	if i := strings.LastIndexByte(s[:min(len(s), n*4)], ' '); i > 0 && n*4 < len(s) {
		s = s[:i]
	}
	return []byte(s + "\n")
}

func standIn(path, what, comment string) []byte {
	return []byte(fmt.Sprintf("%sSynthetic stand-in for %s (%s).\n%sThe audit gives only that its sha256 matched provenance; provenance here hashes this file.\n",
		comment, path, what, comment))
}

func selfTest(snap string) []byte {
	var b strings.Builder
	b.WriteString("# cmd: python3 -B scripts/run_phase0_phase2_m5_validation.py --self-test\n# exit: 0\n")
	b.WriteString("self-test: ok parse_window_log(sample) reads every perf field\n")
	b.WriteString("self-test: ok prompt_gemm sample need matches the plan line\n")
	b.WriteString("self-test: ok summary_comparison(sample) has no mismatch\n")
	if snap == "m5" {
		b.WriteString("self-test: ok evict_file_cache(probe .experts file): mincore residency 1.00 -> 0.00\n")
		b.WriteString("self-test: ok warm_file_cache(probe .experts file): mincore residency 0.00 -> 1.00\n")
		b.WriteString("self-test: PASS\n")
	} else {
		b.WriteString("self-test: ok evict_file_cache(__file__) returned True\n")
		b.WriteString("self-test: ok warm_file_cache(__file__) returned True\n")
		b.WriteString("self-test: 0 scripts/run_phase0_phase2_m5_validation.py self-test: PASS\n")
	}
	return []byte(b.String())
}

// parityLog is a route_parity run's output as the program prints it.
func parityLog(env, k512, k256, k512Mean, k256Mean string) []byte {
	mode := "default"
	if env != "" {
		mode = "fast"
	}
	return []byte(fmt.Sprintf("route_parity: Apple M5, math=%s, 64 tokens, 48 layers\n"+
		"route_parity: K=512 moce=0.00 max_abs_err %s mean_abs_err %s PASS\n"+
		"route_parity: K=256 moce=0.85 max_abs_err %s mean_abs_err %s PASS\n"+
		"route_parity: 2/2 PASS\n", mode, k512, k512Mean, k256, k256Mean))
}

// parityRecord is the run record beside a route_parity log (a sidecar in
// the runner's field names): its argv, environment and exit status.
func parityRecord(env string) []byte {
	envJSON := "{}"
	if k, v, ok := strings.Cut(env, "="); ok {
		envJSON = fmt.Sprintf("{%q: %q}", k, v)
	}
	return []byte(fmt.Sprintf(`{"cmd": ["build/route_parity", "--model", "models/K256-Q2_0-metal.gguf", "--tokens", "64"], "env": %s, "exit_code": 0}`+"\n", envJSON))
}

func mtimesJSON() []byte {
	fl := obj{}
	for _, p := range provFiles {
		fl = append(fl, member{p.path, p.mtime})
	}
	fl = append(fl, member{"results/phase0_phase2_m5_validation.json", resultsMtime})
	b, err := encode(obj{{"tz", "+03:00"}, {"files", fl}})
	if err != nil {
		panic(err)
	}
	return b
}

// valuesMD lists every printed value of every strata run, marked audit or
// synthetic.
func valuesMD(built []builtRun) []byte {
	var b strings.Builder
	b.WriteString("# Per-run values of the strata runs (generated by tools/mkfixtures)\n\n")
	b.WriteString("`audit` marks a value the audit (or m5-reading.md) gives for that run; `synthetic` every other.\n")
	b.WriteString("Values shared by all runs (arena 3.40 GB, 12,288 slices, 4.220 GiB dense, 1.36 GB scratch, C = 1,024,\n")
	b.WriteString("4,224 cells, 16 KiB pages, 18.80 GB cap, 6.50 GB peak, slot counts and classes) are the audit's.\n")
	b.WriteString("The split of the 12,288 slices into 48 layers × 256 experts and the 64 decoded tokens of the speed runs\n")
	b.WriteString("are synthetic: the audit gives neither.\n\n")
	shared := map[string]bool{"arena_gb": true, "expert_slices": true, "dense_gib": true, "dense_gb": true, "prompt_gemm_plan_gb": true,
		"prompt_gemm_init_gb": true, "prompt_gemm_c": true, "prompt_gemm_cells": true, "page_kib": true, "cap_gb": true,
		"gpu_working_set_gb": true, "peak_prefill_gb": true, "arena_slots": true, "arena_size_classes": true, "experts_gib": true,
		"prompt_gemm_ple": true, "prompt_gemm_flash": true, "tf_n_prompt": true,
		"tf_n_gen": true, "eval_tokens": true, "top1_total": true}
	for _, br := range built {
		fmt.Fprintf(&b, "## %s\n\n| metric | value | source |\n|---|---|---|\n", br.spec.name)
		for _, p := range br.perf {
			src := "synthetic"
			if shared[p.key] || slices.Contains(br.spec.audit, p.key) {
				src = "audit"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.key, p.text, src)
		}
		src := "synthetic"
		if slices.Contains(br.spec.audit, "min_avail_gib") {
			src = "audit"
		}
		fmt.Fprintf(&b, "| `swapout_mib` | 0.0 | audit |\n| `min_avail_gib` | %s | %s |\n| `duration_s` | %s | synthetic (sum of 14: 138.55, audit) |\n\n",
			br.spec.minAvail, src, br.spec.durationS)
	}
	return []byte(b.String())
}
