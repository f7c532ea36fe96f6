package live_test

import (
	"fmt"
	"testing"

	"github.com/strataspec/strataspec/engine/live"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// row is a llama-bench row's metric: its value and printed configuration.
func row(name, value string, config ...string) *tail.Metrics {
	d := &tail.Detail{}
	for i := 0; i+1 < len(config); i += 2 {
		d.Config = append(d.Config, tail.Field{Key: config[i], Value: config[i+1]})
	}
	m := &tail.Metrics{}
	m.Add(tail.Metric{Name: name, Num: num.MustParse(value), Detail: d})
	return m
}

// TestCompareConfig: a summary value's printed configuration (a
// llama-bench row's model size, parameter count, token counts) must
// reproduce as printed, a field each; the machine's description may differ
// (measured), and a field the re-run does not print is never OK.
func TestCompareConfig(t *testing.T) {
	classify := func(string) live.Kind { return live.Measured }
	archived := row("pp16", "132122.33", "cpu_info", "AMD EPYC", "model_size", "139048", "model_n_params", "129984", "n_prompt", "16")
	for _, tt := range []struct {
		name  string
		fresh *tail.Metrics
		want  string // the drifts not OK: metric kind archived→fresh
	}{
		{"same", row("pp16", "130001.2", "cpu_info", "AMD EPYC", "model_size", "139048", "model_n_params", "129984", "n_prompt", "16"), "[]"},
		{"another model", row("pp16", "130001.2", "cpu_info", "AMD EPYC", "model_size", "268696", "model_n_params", "259584", "n_prompt", "16"),
			"[pp16[model_size] deterministic 139048→268696 pp16[model_n_params] deterministic 129984→259584]"},
		{"another machine", row("pp16", "130001.2", "cpu_info", "Apple M4", "model_size", "139048", "model_n_params", "129984", "n_prompt", "16"),
			"[pp16[cpu_info] measured AMD EPYC→Apple M4]"},
		{"field not printed", row("pp16", "130001.2", "cpu_info", "AMD EPYC", "model_size", "139048", "model_n_params", "129984"),
			"[pp16[n_prompt] deterministic 16→]"},
		{"no configuration", ms("pp16", "130001.2"),
			"[pp16[cpu_info] measured AMD EPYC→ pp16[model_size] deterministic 139048→ pp16[model_n_params] deterministic 129984→ pp16[n_prompt] deterministic 16→]"},
	} {
		ds := live.Compare(archived, tt.fresh, classify, 0.05)
		if len(ds) != 5 {
			t.Fatalf("Compare(%s) = %d drifts; want 5 (the value and its 4 printed fields)", tt.name, len(ds))
		}
		var bad []string
		for _, d := range ds {
			if !d.OK {
				if d.Why == "" {
					t.Errorf("Compare(%s): %s not OK without a reason", tt.name, d.Metric)
				}
				bad = append(bad, fmt.Sprintf("%s %s %s→%s", d.Metric, d.Kind, d.Archived, d.Fresh))
			}
		}
		if got := fmt.Sprint(bad); got != tt.want {
			t.Errorf("Compare(%s) not OK = %s; want %s", tt.name, got, tt.want)
		}
	}
}
