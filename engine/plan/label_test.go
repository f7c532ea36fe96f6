package plan

import (
	"strings"
	"testing"
)

func TestLabels(t *testing.T) {
	tests := []struct {
		in   string
		want string // labels as "kind:name=value" joined by " "
	}{
		{"- Q2_0 MoCE=0.95: 0.356695 / 75.00 %", "2:Q2_0= 0:MoCE=0.95"},
		{"prefill at `-ub 1024` (2.67×) and `--n-gen 64`", "1:-ub=1024 1:--n-gen=64"},
		{"max error 2.16e-07 (K=512) and (K=256, MoCE=0.85).", "0:K=512 0:K=256 0:MoCE=0.85"},
		{"IQ3_S runs get 1,550 slots; the K256-Q2_K model", "2:IQ3_S= 2:K256= 2:Q2_K="},
		{"`models/K256-Q2_0-metal.gguf`", "2:K256= 2:Q2_0="},
		{"no labels: 3.40 GB, strata_q2_0_moce085, x-ub 3, a=b=c", "0:a=b"},
		{"STRATA_METAL_MATH=fast", "0:STRATA_METAL_MATH=fast"},
		{"rate=999.9 tok/s at MoCE=0.85", "0:MoCE=0.85"},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range Labels(tt.in) {
			got = append(got, string(rune('0'+l.Kind))+":"+l.Name+"="+l.Value)
			if tt.in[l.Col-1:l.Col-1+len(l.Text)] != l.Text {
				t.Errorf("Labels(%q): %q at column %d; the line has %q there", tt.in, l.Text, l.Col, tt.in[l.Col-1:])
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Labels(%q) = %q; want %q", tt.in, g, tt.want)
		}
	}
}

func TestLabelSpan(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"-ub 1024", true},
		{"--n-prompt 32 --n-gen 64", true},
		{"llama-completion -no-cnv -t 8", true},
		{"eval_tokens=64", true},
		{"STRATA_METAL_MATH=fast", true},
		{"eval time = 0.00 ms / 1 runs", false},
		{"1.36 GB", false},
		{"ja", false},
		{"-5 ms", false},
	}
	for _, tt := range tests {
		if got := LabelSpan(tt.in); got != tt.want {
			t.Errorf("LabelSpan(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}
