package kld

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/rules/internal/tfstate"
	"github.com/strataspec/strataspec/engine/tail"
	"github.com/strataspec/strataspec/engine/tf"
)

// TestKLDBootstrapWhenEnoughDocs gives every domain three documents: the
// kld rule then passes with a bootstrap interval per configuration and domain.
func TestKLDBootstrapWhenEnoughDocs(t *testing.T) {
	var fs []finding.Finding
	s := &state{&tfstate.State{Snap: &archive.Snapshot{},
		MS: map[string]*tail.Metrics{}, Set: &facts.TFSet{VocabFile: "data/v.gguf", ConfigOf: map[string]string{}}, Place: &tfstate.Place{File: "PLAN.md"},
		Report: func(f finding.Finding) { fs = append(fs, f) }}}
	checkKLD := func(s *state) []finding.Finding {
		fs = nil
		s.checkSample()
		return fs
	}
	for _, domain := range []string{"ja", "ops_tools"} {
		for doc, v := range []string{"0.05", "0.07", "0.06"} {
			e := &facts.TFFile{Rel: domain + string(rune('a'+doc)), File: &tf.File{Domain: domain}, Layout: tf.Layout{Scored: tf.Span{Start: 32, End: 96}}}
			s.Set.Files = append(s.Set.Files, e)
			name := "run_" + e.Rel
			s.Set.ConfigOf[name] = "iq3_s"
			s.Set.Runs = append(s.Set.Runs, &facts.TFRun{Run: &archive.Run{Name: name}, File: e})
			ms := &tail.Metrics{}
			ms.Add(tail.Metric{Name: "kld_mean", Num: num.MustParse(v)})
			s.MS[name] = ms
		}
	}
	fs = checkKLD(s)
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
	s.MS["run_jaa"] = &tail.Metrics{}
	if fs := checkKLD(s); len(fs) != 1 || fs[0].Severity != finding.Fail || !strings.Contains(fs[0].Message, "run run_jaa: no kld_mean") {
		t.Errorf("checkKLD with a run missing kld_mean = %v; want a fail naming it", fs)
	}
}
