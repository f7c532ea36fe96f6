package llamacpp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The carried-over llama.cpp runs of the M5 fixture (tools/mkfixtures/llama)
// read back the audit's figures (m5-reading.md, audit §1a and §1d).
func TestParseFixtureRuns(t *testing.T) {
	tests := []struct {
		run    string
		metric string
		text   string
	}{
		{"llama_unpatched_step2_ub1024", "cli_prompt_tok_s", "14.3"},
		{"llama_unpatched_step2_ub1024", "cli_gen_tok_s", "1.4"},
		{"llama_unpatched_step3_ub2048", "cli_prompt_tok_s", "21.7"},
		{"llama_patched_step2_ngl99_cmoe_ub1024", "prompt_tok_s", "38.11"},
		{"llama_patched_step2_ngl99_cmoe_ub1024", "eval_ms", "0.00"},
		{"llama_patched_step2_ngl99_cmoe_ub1024", "eval_tokens", "1"},
		{"llama_patched_step2_ngl99_cmoe_ub1024", "eval_tok_s", "inf"},
		{"llama_patched_step3_ngl99_cmoe_ub2048", "prompt_tok_s", "63.27"},
		{"llama_patched_step3_ngl99_cmoe_ub2048", "eval_tokens", "1"},
		{"llama_patched_step4_ngl99_cmoe_decode", "eval_tok_s", "3.22"},
		{"llama_patched_step4_ngl99_cmoe_decode", "eval_tokens", "22"},
	}
	for _, tt := range tests {
		path := filepath.Join("..", "..", "tools", "mkfixtures", "llama", tt.run+".json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		var run struct {
			OutputTail string `json:"output_tail"`
		}
		if err := json.Unmarshal(b, &run); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ms := Parse(path, run.OutputTail)
		if len(ms.Errors) > 0 {
			t.Errorf("Parse(%s) errors: %v", tt.run, ms.Errors)
		}
		m, ok := ms.Get(tt.metric)
		if !ok || m.Num.Text != tt.text {
			t.Errorf("Parse(%s).Get(%q) = %q, %v; want %q", tt.run, tt.metric, m.Num.Text, ok, tt.text)
		}
	}
}
