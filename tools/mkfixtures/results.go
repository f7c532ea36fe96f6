package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// obj is a JSON object that keeps its keys in insertion order.
type obj []member

type member struct {
	key string
	val any
}

// MarshalJSON writes the members in order (encoding/json sorts map keys).
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(m.val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// encode writes v as the runner's json.dump(indent=2) would.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// pyNum converts printed text to the number the runner's float()/int()
// parse and json.dump write: "72.400" → 72.4, "75.00" → 75.0, "2441" → 2441.
func pyNum(text string) json.Number {
	t := strings.ReplaceAll(text, ",", "")
	if !strings.ContainsAny(t, ".eE") {
		if _, err := strconv.Atoi(t); err == nil {
			return json.Number(t)
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		panic(fmt.Sprintf("pyNum(%q): %v", text, err))
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return json.Number(s)
}

// speedRowFields and prefillRowFields are the summary_comparison columns.
var (
	speedRowFields   = []string{"decode_tok_s", "hit_arena_pct", "hit_ra_pct", "hit_total_pct", "misses_per_tok", "miss_mb_per_tok", "init_ms", "fill_gb_s", "fill_s", "host_wait_ms_per_tok", "pure_gpu_ms_per_tok"}
	prefillRowFields = []string{"prefill_tokens", "prefill_ms", "prefill_tok_s", "hit_arena_pct", "hit_ra_pct", "hit_total_pct", "host_wait_ms_per_tok", "pure_gpu_ms_per_tok",
		"phys_footprint_before_gb", "phys_footprint_after_gb", "resident_size_before_gb", "resident_size_after_gb"}
)

// flagship is the run whose perf carries the memory line too (audit §1a).
const flagship = "strata_metal_optimized_k256_q2_0_moce085"

type builtRun struct {
	spec *runSpec
	tail string
	perf []kv
}

func lookup(perf []kv, name string) string {
	for _, p := range perf {
		if p.key == name {
			return p.text
		}
	}
	panic("no perf field " + name)
}

func strataCmd(r *runSpec) []string {
	cmd := []string{"build/strata_window_cli", "--model", r.model.gguf, "--k", "256", "--moce", r.moce}
	if r.group == "speed" {
		return append(cmd, "--prompt-file", r.prompt, "--n-gen", "64")
	}
	return append(cmd, "--tf-tokens", r.prompt, "--n-prompt", "32", "--n-gen", "64", "--kld")
}

// results builds the results JSON of a snapshot rooted at root.
func results(root string, built []builtRun, llama []*llamaRun, prompts []string, fixed bool) ([]byte, error) {
	var runs []any
	perf := obj{}
	for _, b := range built {
		runs = append(runs, obj{
			{"name", b.spec.name}, {"group", b.spec.group}, {"cmd", strataCmd(b.spec)},
			{"env", obj{{"STRATA_METAL_ARENA_GB", arenaEnv}}},
			{"exit_code", 0}, {"duration_s", pyNum(b.spec.durationS)}, {"output_tail", b.tail},
		})
		p := obj{}
		for _, m := range b.perf {
			p = append(p, member{m.key, pyNum(m.text)})
		}
		if b.spec.name == flagship {
			for i, k := range []string{"mem_locked_gb", "mem_unpinned_gb", "mem_hc_gb", "mem_scratch_gb"} {
				p = append(p, member{k, pyNum(b.spec.model.mem[i])})
			}
		}
		perf = append(perf, member{b.spec.name, p})
	}
	for _, l := range llama {
		runs = append(runs, obj{
			{"name", l.Name}, {"group", strings.TrimPrefix(l.Block, "prev_")}, {"cmd", l.Cmd},
			{"env", nil}, {"exit_code", l.ExitCode}, {"duration_s", pyNum(string(l.DurationS))}, {"output_tail", l.OutputTail},
		})
	}
	byName := map[string]builtRun{}
	for _, b := range built {
		byName[b.spec.name] = b
	}
	row := func(name string, fields []string) obj {
		b := byName[name]
		o := obj{{"run", name}, {"config", b.spec.config}}
		for _, f := range fields {
			o = append(o, member{f, pyNum(lookup(b.perf, f))})
		}
		return o
	}
	summary := obj{
		{"speed_43tok", []any{row("strata_q2_0_moce0_short_43tok", speedRowFields), row(flagship, speedRowFields), row("strata_iq3_s_short_43tok", speedRowFields)}},
		{"prefill", []any{row("strata_q2_0_moce085_prefill_1024tok", prefillRowFields), row("strata_q2_0_moce085_prefill_2048tok", prefillRowFields)}},
	}
	mr := obj{}
	for _, m := range missReductions {
		mr = append(mr, member{m.key, pyNum(m.value)})
	}
	summary = append(summary, member{"miss_reduction_pct", mr})
	kldSummary, macros := obj{}, obj{}
	for _, mc := range macroConfigs {
		var names []string
		var kld, top1 []any
		for _, b := range built {
			if b.spec.group == "tf_kld" && b.spec.config == mc.config {
				names = append(names, b.spec.name)
				kld = append(kld, pyNum(lookup(b.perf, "kld_mean")))
				top1 = append(top1, pyNum(lookup(b.perf, "top1_pct")))
			}
		}
		kldSummary = append(kldSummary, member{mc.config, obj{{"mean_kld", pyNum(mc.meanKLD)}, {"top1_pct", pyNum(mc.top1)}}})
		macros = append(macros, member{mc.config, obj{{"runs", names}, {"mean_kld", kld}, {"top1_pct", top1},
			{"mean_kld_macro", pyNum(mc.meanKLD)}, {"top1_pct_macro", pyNum(mc.top1)}}})
	}
	summary = append(summary, member{"kld", kldSummary})

	prev := map[string]obj{}
	stepVal := map[string]map[string]*string{}
	for _, l := range llama {
		side := strings.TrimPrefix(l.Block, "prev_llama_")
		st := obj{{"run", l.Name}}
		for _, k := range llamaStepOrder {
			v, ok := l.StepValues[k]
			switch {
			case !ok:
			case v == nil:
				st = append(st, member{k, nil})
			default:
				st = append(st, member{k, pyNum(*v)})
			}
		}
		prev[side] = append(prev[side], member{l.Step, st})
		stepVal[side+"/"+l.Step] = l.StepValues
	}
	llamaBlocks := map[string]obj{}
	for _, lc := range llamaCpp {
		o := obj{}
		for _, fd := range lc.fields {
			from, per65 := strings.CutSuffix(fd.from, "/65.0")
			if per65 && fixed {
				// The fixed runner (fixtures/m5 runner L665–692) does not
				// divide whole-run disk0 into a per-token rate.
				continue
			}
			sv := stepVal[lc.side+"/"+fd.step][from]
			if sv == nil {
				return nil, fmt.Errorf("llama_cpp_%s.%s: step %s has no %s", lc.side, fd.name, fd.step, from)
			}
			got := strings.ReplaceAll(*sv, ",", "")
			if per65 {
				got = f(mustFloat(got)/65.0, 1)
			}
			if mustFloat(got) != mustFloat(fd.value) {
				return nil, fmt.Errorf("llama_cpp_%s.%s: the audit's %s, but step %s gives %s", lc.side, fd.name, fd.value, fd.step, got)
			}
			o = append(o, member{fd.name, pyNum(fd.value)})
		}
		llamaBlocks[lc.side] = o
	}

	var files, proms []any
	for _, pf := range provFiles {
		sum, n, err := hashFile(root, pf.path)
		if err != nil {
			return nil, err
		}
		files = append(files, obj{{"role", pf.role}, {"path", pf.path}, {"sha256", sum}, {"bytes", n}, {"mtime_local", pf.mtime}})
	}
	for _, p := range prompts {
		sum, n, err := hashFile(root, p)
		if err != nil {
			return nil, err
		}
		proms = append(proms, obj{{"path", p}, {"sha256", sum}, {"bytes", n}})
	}
	doc := obj{
		{"schema", schema},
		{"generated_at_utc", generatedAtUTC},
		{"runs", runs},
		{"perf", perf},
		{"summary_comparison", summary},
		{"kld_macros", macros},
		{"prev_llama_unpatched", prev["unpatched"]},
		{"prev_llama_patched", prev["patched"]},
		{"llama_cpp_unpatched", llamaBlocks["unpatched"]},
		{"llama_cpp_patched", llamaBlocks["patched"]},
		{"provenance", obj{{"files", files}, {"prompts", proms}}},
	}
	return encode(doc)
}

func hashFile(root, rel string) (string, int64, error) {
	data, err := os.ReadFile(joinRoot(root, rel))
	if err != nil {
		return "", 0, fmt.Errorf("provenance: %w", err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), int64(len(data)), nil
}
