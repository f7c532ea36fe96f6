// Package tfkld holds the rules about teacher forcing and KLD: the token
// files' layout and content (tf), and the sample behind the KLD figures
// and the pairs quoted from one cold run (kld). Both read the TF fact (the
// manifest's files, decoded with its vocabulary, and the runs that read
// them) and the plan check.
package tfkld

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
)

// Caveat ids the rules look for in the plan, in the section that quotes
// the teacher-forcing figures.
const (
	CaveatTFTruncated     = "tf-truncated-turns" // user turns start mid-document
	CaveatTFTemplateToken = "tf-template-token"  // the first scored token is a template token
	CaveatTFDomainLabel   = "tf-domain-label"    // a domain label its content does not fit
	CaveatKLDSampleSize   = "kld-sample-size"    // fewer than kld.MinDocs documents per domain
)

// place is where the plan quotes the teacher-forcing figures: the first
// plan line holding a quote that a claims row binds to metrics of TF runs
// alone (directly or through a set, e.g. mean(@tf_iq3_s:kld_mean); a row
// over every strata run is not a TF figure). The rules point their plan
// findings at that line and look for their caveats in its section. Without
// a claims table, or with no row reading a TF run, there is no such place:
// findings point at the plan with no line, and a caveat anywhere counts.
type place struct {
	doc     *plan.Doc // nil when the snapshot has no plan
	file    string    // the plan's file
	line    int
	section string
}

// findPlace finds the place from the plan check, or from the plan alone
// when the checkout has no claims table.
func findPlace(p *analysis.Pass, runs []*facts.TFRun) *place {
	spec := p.Spec
	pl := &place{file: spec.Plan}
	pc, ok := facts.Gate.Lookup(p)
	if !ok {
		pl.doc, _ = facts.Plan.Lookup(p)
		return pl
	}
	pl.doc = pc.Doc
	tfRuns := map[string]bool{}
	for _, r := range runs {
		tfRuns[r.Run.Name] = true
	}
	for _, b := range pc.Result.Bindings {
		if b.Status == claims.Stale || b.Token.Line == 0 || !onlyTF(b.Row.MetricRuns(pc.Env), tfRuns) {
			continue
		}
		if pl.line == 0 || b.Token.Line < pl.line {
			pl.line, pl.section = b.Token.Line, b.Place
		}
	}
	return pl
}

// onlyTF reports whether runs is not empty and every run in it is a TF run.
func onlyTF(runs []string, tf map[string]bool) bool {
	for _, r := range runs {
		if !tf[r] {
			return false
		}
	}
	return len(runs) > 0
}

// quote returns the text of the plan line quoting the TF figures, "" where
// there is none.
func (pl *place) quote() string {
	if pl.doc == nil || pl.line < 1 || pl.line > len(pl.doc.Lines) {
		return ""
	}
	return strings.TrimSpace(pl.doc.Lines[pl.line-1].Text)
}

// caveat returns where the plan states the caveat with the id, in the
// section of the TF figures.
func (pl *place) caveat(id string) (string, bool) {
	if pl.doc == nil {
		return "", false
	}
	c, ok := pl.doc.Caveat(id, pl.section)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s:%d: caveat (%s)", pl.file, c.Line, id), true
}

// where names the plan section a missing caveat belongs in.
func (pl *place) where() string {
	if pl.section != "" {
		return pl.file + " " + pl.section
	}
	return pl.file
}

// metricValue returns a run metric's value and printed text.
func metricValue(ms *tail.Metrics, name string) (float64, string, bool) {
	if ms == nil {
		return 0, "", false
	}
	m, ok := ms.Get(name)
	return m.Value(), m.Num.Text, ok
}
