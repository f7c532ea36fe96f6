package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// llamaRun is one carried-over llama.cpp run as recorded in
// tools/mkfixtures/llama/<name>.json (format: that directory's README).
type llamaRun struct {
	Name       string             `json:"name"`
	Block      string             `json:"block"`
	Step       string             `json:"step"`
	Cmd        []string           `json:"cmd"`
	Env        map[string]string  `json:"env"`
	ExitCode   int                `json:"exit_code"`
	DurationS  json.Number        `json:"duration_s"`
	OutputTail string             `json:"output_tail"`
	Runner     map[string]string  `json:"runner"`
	StepValues map[string]*string `json:"step_values"`
}

// llamaStepOrder is the order of the steps' values in a prev_llama_* step.
var llamaStepOrder = []string{"prompt_tok_s", "gen_tok_s", "disk0_mb", "samplers_ms", "sample_ms_per_tok"}

// readLlama reads the 8 llama runs, unpatched steps first, each side in
// step order.
func readLlama(dir string) ([]*llamaRun, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var runs []*llamaRun
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		r := &llamaRun{}
		if err := dec.Decode(r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if r.Env != nil {
			return nil, fmt.Errorf("%s: a carried-over run has env null", f)
		}
		if want := strings.TrimPrefix(r.Block, "prev_") + "_" + r.Step; r.Name != want {
			return nil, fmt.Errorf("%s: name %q, want %q", f, r.Name, want)
		}
		for k := range r.StepValues {
			if !slices.Contains(llamaStepOrder, k) {
				return nil, fmt.Errorf("%s: unknown step value %q", f, k)
			}
		}
		runs = append(runs, r)
	}
	if len(runs) != 8 {
		return nil, fmt.Errorf("%s: want the 8 llama runs, found %d", dir, len(runs))
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if runs[i].Block != runs[j].Block {
			return runs[i].Block == "prev_llama_unpatched"
		}
		return runs[i].Step < runs[j].Step
	})
	return runs, nil
}
