package compare

import (
	"testing"

	"github.com/strataspec/strataspec/engine/source"
)

func TestDerivation(t *testing.T) {
	src := source.Parse("r.py", []byte(`results["llama_cpp_unpatched"] = {
    "per_tok":
        round(u["disk0_mb"] / 65.0, 1),
    "kb": u["bytes"] / 1024,
}
results["llama_cpp_patched"] = {
    "per_tok": round(p["disk0_mb"] / n_tokens(p), 1),
    "helper": per_tok(p["disk0_mb"], 1286),
    "copied": p["x"],
}`), source.Python)
	tests := []struct {
		scope, key string
		ok         bool
		div        int
		divisor    string
	}{
		{"llama_cpp_unpatched", "per_tok", true, 3, "65.0"},
		{"llama_cpp_unpatched", "kb", true, 4, ""}, // a unit conversion, not a count
		{"llama_cpp_patched", "per_tok", true, 7, ""},
		{"llama_cpp_patched", "helper", true, 8, "1286"},
		{"llama_cpp_patched", "copied", true, 0, ""},
		{"llama_cpp_patched", "absent", false, 0, ""},
		{"no_such_block", "per_tok", false, 0, ""},
	}
	for _, tt := range tests {
		d, ok := derivation(src, tt.scope, tt.key)
		if ok != tt.ok || d.div != tt.div || d.divisor != tt.divisor {
			t.Errorf("derivation(%q, %q) = div %d, divisor %q, %v; want %d, %q, %v", tt.scope, tt.key, d.div, d.divisor, ok, tt.div, tt.divisor, tt.ok)
		}
	}
}
