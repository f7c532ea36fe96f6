// Package kld holds the kld rule, about the sample behind the KLD
// figures: enough documents per domain with a bootstrap interval, or a
// stated caveat; and pairs quoted from one run per side with the cold
// first run on its model file.
package kld

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/kld"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/rules/internal/tfstate"
	"github.com/strataspec/strataspec/engine/tail"
)

// The bootstrap the kld rule runs where a domain has enough documents: a
// 95 % percentile interval from 10,000 resamples of a generator seeded
// with 1, so reports are reproducible.
const (
	bootstrapLevel = 0.95
	bootstrapReps  = 10000
	bootstrapSeed  = 1
)

// KLDConfig is the kld rule's settings, "rules": {"kld": {…}}.
type KLDConfig struct {
	// ColdSet names the claims table's set of cold runs (the first run on
	// each model file). Without it, pairs quoted from one run per side are
	// not checked for a cold run.
	ColdSet string `json:"cold_set,omitempty"`
	// ModelFlags are the command-line flags naming a run's model file, by
	// which the first run on each file is found; default --model and -m.
	ModelFlags []string `json:"model_flags,omitempty"`
}

// CaveatKLDSampleSize is the caveat id the kld rule looks for in the
// plan's section of the teacher-forcing figures: fewer than kld.MinDocs
// documents per domain.
const CaveatKLDSampleSize = "kld-sample-size"

// KLD is the rule on the sample behind the KLD figures.
var KLD = &analysis.Analyzer{
	Name:     "kld",
	Doc:      "sample size: teacher-forcing KLD over at least 3 documents per domain with a bootstrap confidence interval, or a stated caveat; a pair quoted from one run per side with the cold first run on its expert file states a caveat",
	Fix:      "score at least 3 documents per domain with a bootstrap interval, or state the sample size as a caveat",
	Requires: []*analysis.Analyzer{facts.RunMetrics.Analyzer},
	Uses:     []*analysis.Analyzer{facts.TF.Analyzer, gate.Analyzer.Analyzer, facts.Plan.Analyzer},
	Metrics:  []string{"kld_mean"},
	Run:      runKLD,
}

// state is what the kld rule reads, gathered once per pass; its methods are
// the rule's checks.
type state struct{ *tfstate.State }

func load(p *analysis.Pass) (*state, error) { s, err := tfstate.Load(p); return &state{s}, err }

func runKLD(p *analysis.Pass) (any, error) {
	var cfg KLDConfig
	if _, err := analysis.OptionalSettings(p, &cfg); err != nil {
		return nil, err
	}
	s, err := load(p)
	tfAbsent := errors.Is(err, facts.ErrAbsent)
	if err != nil && !tfAbsent {
		return nil, err
	}
	if tfAbsent && cfg.ColdSet == "" {
		return nil, analysis.NoSettings("no teacher-forcing files (rules.tf.files) and no cold-run set (rules.kld.cold_set) in %s", checkout.File)
	}
	if !tfAbsent {
		s.checkSample()
	}
	if cfg.ColdSet != "" {
		return nil, coldPairs(p, cfg)
	}
	return nil, nil
}

func (s *state) checkSample() {
	file, line, quote := s.Place.File, s.Place.Line, s.Place.Quote()
	// Documents and scored tokens per domain.
	byDomain := map[string]*kld.Sample{}
	var domains []string
	for _, e := range s.Set.Files {
		d := e.Domain
		if byDomain[d] == nil {
			byDomain[d] = &kld.Sample{Domain: d}
			domains = append(domains, d)
		}
		byDomain[d].Docs++
		if e.LayoutErr == nil {
			byDomain[d].Tokens += e.Layout.Scored.Len()
		}
	}
	sort.Strings(domains)
	var samples []kld.Sample
	var desc []string
	for _, d := range domains {
		samples = append(samples, *byDomain[d])
		desc = append(desc, fmt.Sprintf("%s %d doc(s), %d scored tokens", d, byDomain[d].Docs, byDomain[d].Tokens))
	}
	raw := strings.Join(desc, "; ")
	src := "TF token files (" + s.Set.VocabFile + ")"
	if small := kld.Small(samples); len(small) > 0 {
		var names []string
		for _, sm := range small {
			names = append(names, sm.Domain)
		}
		if where, ok := s.Place.Caveat(CaveatKLDSampleSize); ok {
			s.Add(finding.Pass, "sample", file, line, quote, raw, where,
				"fewer than %d documents in %s: no confidence interval; stated in PLAN", kld.MinDocs, strings.Join(names, ", "))
		} else {
			s.Add(finding.Fail, "sample", file, line, quote, raw, src,
				"fewer than %d documents per domain (%s) and no confidence interval: the KLD and top-1 figures are single-document point values; add documents or state it in %s as caveat (%s)",
				kld.MinDocs, strings.Join(names, ", "), s.Place.Where(), CaveatKLDSampleSize)
		}
		return
	}
	// Every domain has enough documents: a bootstrap interval per
	// configuration and domain over the documents' mean KLD.
	cis, err := s.intervals()
	if err != nil {
		s.Add(finding.Fail, "sample", file, line, quote, raw, src, "no confidence interval: %v", err)
		return
	}
	s.Add(finding.Pass, "sample", file, line, quote, raw, src,
		"at least %d documents per domain; bootstrap %.0f%% intervals of mean KLD over documents: %s",
		kld.MinDocs, 100*bootstrapLevel, strings.Join(cis, "; "))
}

// intervals computes a bootstrap interval of mean KLD per configuration
// and domain from the runs' tails.
func (s *state) intervals() ([]string, error) {
	type key struct{ config, domain string }
	docs := map[key][]float64{}
	var keys []key
	for _, r := range s.Set.Runs {
		v, _, ok := tfstate.Value(s.MS[r.Run.Name], "kld_mean")
		if !ok {
			return nil, fmt.Errorf("run %s: no kld_mean in its tail", r.Run.Name)
		}
		k := key{s.ConfigOf(r.Run.Name), r.File.Domain}
		if _, seen := docs[k]; !seen {
			keys = append(keys, k)
		}
		docs[k] = append(docs[k], v)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].config != keys[j].config {
			return keys[i].config < keys[j].config
		}
		return keys[i].domain < keys[j].domain
	})
	var out []string
	for _, k := range keys {
		iv, err := kld.Bootstrap(docs[k], bootstrapLevel, bootstrapReps, bootstrapSeed)
		if errors.Is(err, kld.ErrTooFewDocs) {
			return nil, fmt.Errorf("%s %s: %d run(s): %w", k.config, k.domain, len(docs[k]), err)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%s %s %s", k.config, k.domain, iv))
	}
	return out, nil
}

// coldPairs checks the pairs the plan quotes from one run per side (arrow
// quotes, "9.51 → 13.52 tok/s") against the claims table's cold set, the
// first run on each model file: such a pair is a sample of one, taken cold
// on one side, and its claims row must name a caveat the plan states. The
// set itself must be exactly the first run on each model file.
func coldPairs(p *analysis.Pass, cfg KLDConfig) error {
	pc, ok := gate.Analyzer.Lookup(p)
	if !ok || pc.NoClaims {
		return nil // no plan, or no claims table: no row binds a pair
	}
	spec := p.Spec
	set := pc.Table.Sets[cfg.ColdSet]
	if set == nil {
		// a misspelt or removed set: a bad setting, so a fail at its line
		// (a warning passed a snapshot whose cold pairs went unchecked)
		return &checkout.Error{File: spec.Path, Line: spec.Line("rules.kld.cold_set"),
			Msg:     fmt.Sprintf("rules.kld.cold_set names set %s, which %s does not declare: pairs with a cold run are not checked", cfg.ColdSet, spec.Claims),
			Unknown: cfg.ColdSet, Known: slices.Sorted(maps.Keys(pc.Table.Sets))}
	}
	cold, err := pc.Env.Set(cfg.ColdSet)
	if err != nil {
		return fmt.Errorf("%s: %w", spec.Claims, err)
	}
	snap := p.Snap
	ms := facts.RunMetrics.Of(p)
	// The first run on each model file, among the runs like the cold set's
	// (the engine's runs, not a baseline's): those with every metric the
	// cold set's runs share, whichever reader produced them.
	shared := sharedMetrics(cold, ms)
	first := map[string]string{} // model file → first run reading it
	var used []string
	for _, r := range snap.Runs {
		if len(shared) == 0 || !hasAll(ms[r.Name], shared) {
			continue
		}
		model, flag := r.ModelFile(cfg.ModelFlags...)
		if model == "" {
			continue
		}
		if !slices.Contains(used, flag) {
			used = append(used, flag)
		}
		if _, ok := first[model]; !ok {
			first[model] = r.Name
		}
	}
	fd := checkColdSet(spec.Claims, cfg.ColdSet, set.Line, cold, first)
	fd.Source = fmt.Sprintf("the first run per %s in results order among the runs with the %d metrics the cold set's runs share: %s", strings.Join(used, "/"), len(shared), fd.Source)
	p.Report(fd)
	isCold := map[string]bool{}
	for _, r := range cold {
		isCold[r] = true
	}
	for _, b := range pc.Result.Bindings {
		if b.Token.Kind != plan.Arrow || b.Status == gate.Stale {
			continue
		}
		runs := b.Row.Runs()
		var coldRuns []string
		for _, r := range runs {
			if isCold[r] {
				coldRuns = append(coldRuns, r)
			}
		}
		if len(runs) < 2 || len(coldRuns) == 0 {
			continue
		}
		what := fmt.Sprintf("%s: %s compares %s, one run per side (n = 1), with the first, cold run on its expert file (%s)",
			b.Place, b.Token.Text, strings.Join(runs, " and "), strings.Join(coldRuns, ", "))
		f := finding.Finding{ID: b.Row.ID, Severity: finding.Warn, Check: "cold-pair", File: spec.Plan, Line: b.Token.Line,
			Quote: b.Token.Text, Raw: b.Raw, Source: b.Source, Message: what + ", and states no caveat"}
		if len(b.Row.Caveats) > 0 && b.Status != gate.CaveatMissing {
			f.Severity = finding.Pass
			f.Message = fmt.Sprintf("%s; caveat (%s) stated", what, strings.Join(b.Row.Caveats, "), ("))
		}
		p.Report(f)
	}
	return nil
}

// checkColdSet checks the declared cold set against the archive: it must be
// exactly the first run on each model file.
func checkColdSet(file, name string, line int, cold []string, first map[string]string) finding.Finding {
	f := finding.Finding{Severity: finding.Pass, Check: "cold-set", File: file, Line: line, Quote: "set " + name,
		Raw: strings.Join(cold, " ")}
	var want []string
	for _, r := range first {
		want = append(want, r)
	}
	sort.Strings(want)
	got := append([]string(nil), cold...)
	sort.Strings(got)
	f.Source = strings.Join(want, " ")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		f.Severity = finding.Fail
		f.Message = fmt.Sprintf("set %s names %s; the first run on each model file is %s", name, strings.Join(got, ", "), strings.Join(want, ", "))
		return f
	}
	f.Message = fmt.Sprintf("set %s is the first run on each model file: %s", name, strings.Join(want, ", "))
	return f
}

// sharedMetrics returns the metric names every one of runs has, sorted;
// nil when runs is empty or one has no metrics.
func sharedMetrics(runs []string, ms map[string]*tail.Metrics) []string {
	var shared map[string]bool
	for _, name := range runs {
		have := names(ms[name])
		if shared == nil {
			shared = have
			continue
		}
		maps.DeleteFunc(shared, func(n string, _ bool) bool { return !have[n] })
	}
	return slices.Sorted(maps.Keys(shared))
}

// names returns the set of metric names of ms.
func names(ms *tail.Metrics) map[string]bool {
	out := map[string]bool{}
	if ms != nil {
		for _, m := range ms.List {
			out[m.Name] = true
		}
	}
	return out
}

// hasAll reports whether ms has every metric of want.
func hasAll(ms *tail.Metrics, want []string) bool {
	have := names(ms)
	for _, n := range want {
		if !have[n] {
			return false
		}
	}
	return true
}
