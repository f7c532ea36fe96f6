package facts

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/tf"
)

func TestTFFlags(t *testing.T) {
	tests := []struct {
		cmd        string
		np, ng     int
		wantErrSub string
	}{
		{"x --n-prompt 32 --n-gen 64", 32, 64, ""},
		{"x --n-prompt=32 --n-gen=64", 32, 64, ""},
		{"x --n-prompt 32", 0, 0, "no --n-gen"},
		{"x --n-prompt 0 --n-gen 64", 0, 0, `--n-prompt "0" is not a positive integer`},
		{"x --n-gen sixty --n-prompt 32", 0, 0, `--n-gen "sixty"`},
	}
	for _, tt := range tests {
		np, ng, err := tfFlags(strings.Fields(tt.cmd), tf.DefaultFlags())
		if tt.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErrSub) {
				t.Errorf("tfFlags(%q) error = %v; want %q", tt.cmd, err, tt.wantErrSub)
			}
			continue
		}
		if err != nil || np != tt.np || ng != tt.ng {
			t.Errorf("tfFlags(%q) = %d, %d, %v; want %d, %d", tt.cmd, np, ng, err, tt.np, tt.ng)
		}
	}
}
