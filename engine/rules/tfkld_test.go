package rules

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
	"github.com/strataspec/strataspec/engine/tf"
)

// TestKLDBootstrapWhenEnoughDocs gives every domain three documents: the
// kld rule then passes with a bootstrap interval per configuration and domain.
func TestKLDBootstrapWhenEnoughDocs(t *testing.T) {
	macro := &archive.Macro{Config: "iq3_s"}
	s := &tfSet{snap: &archive.Snapshot{KLDMacros: map[string]*archive.Macro{"iq3_s": macro}},
		metrics: map[string]*tail.Metrics{}, vocabFile: "data/v.gguf"}
	for _, domain := range []string{"ja", "ops_tools"} {
		for doc, v := range []string{"0.05", "0.07", "0.06"} {
			e := &tfEntry{rel: domain + string(rune('a'+doc)), file: &tf.File{Domain: domain}, layout: tf.Layout{Scored: tf.Span{Start: 32, End: 96}}}
			s.files = append(s.files, e)
			name := "run_" + e.rel
			macro.Runs = append(macro.Runs, name)
			s.runs = append(s.runs, &tfRun{run: &archive.Run{Name: name}, file: e})
			ms := &tail.Metrics{}
			ms.Add(tail.Metric{Name: "kld_mean", Num: num.MustParse(v)})
			s.metrics[name] = ms
		}
	}
	fs := checkKLD(s)
	if len(fs) != 1 || fs[0].Severity != finding.Pass {
		t.Fatalf("checkKLD with 3 docs per domain = %v; want one pass", fs)
	}
	for _, want := range []string{"bootstrap 95% intervals", "iq3_s ja [", "iq3_s ops_tools [", "n=3, 10000 resamples"} {
		if !strings.Contains(fs[0].Message, want) {
			t.Errorf("message %q lacks %q", fs[0].Message, want)
		}
	}
	again := checkKLD(s)
	if again[0].Message != fs[0].Message {
		t.Errorf("checkKLD not deterministic:\n%s\n%s", fs[0].Message, again[0].Message)
	}
	// A run without kld_mean leaves no interval: fail.
	s.metrics["run_jaa"] = &tail.Metrics{}
	if fs := checkKLD(s); len(fs) != 1 || fs[0].Severity != finding.Fail || !strings.Contains(fs[0].Message, "run run_jaa: no kld_mean") {
		t.Errorf("checkKLD with a run missing kld_mean = %v; want a fail naming it", fs)
	}
}

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
		np, ng, err := tfFlags(strings.Fields(tt.cmd))
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
