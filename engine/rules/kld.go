package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/kld"
	"github.com/strataspec/strataspec/engine/plan"
)

// The bootstrap the kld rule runs where a domain has enough documents: a
// 95 % percentile interval from 10,000 resamples of a generator seeded with 1,
// so reports are reproducible.
const (
	bootstrapLevel = 0.95
	bootstrapReps  = 10000
	bootstrapSeed  = 1
)

func init() {
	Register(Rule{
		Name: "kld",
		Doc:  "sample size: teacher-forcing KLD over at least 3 documents per domain with a bootstrap confidence interval, or a stated caveat; a pair quoted from one run per side with the cold first run on its expert file states a caveat",
		Check: func(c *Context) ([]finding.Finding, error) {
			set, err := loadTF(c)
			if err != nil {
				return nil, err
			}
			pairs, err := coldPairs(c)
			if err != nil {
				return nil, err
			}
			return append(checkKLD(set), pairs...), nil
		},
	})
}

func checkKLD(s *tfSet) []finding.Finding {
	var out []finding.Finding
	add := adder("kld", &out)
	file, line, quote := PlanFile, s.claimLine, s.claimQuote()
	if len(s.files) == 0 {
		add(finding.Warn, "F37", file, line, quote, "", "", "no teacher-forcing token files: no sample to check")
		return out
	}
	// Documents and scored tokens per domain.
	byDomain := map[string]*kld.Sample{}
	var domains []string
	for _, e := range s.files {
		d := e.file.Domain
		if byDomain[d] == nil {
			byDomain[d] = &kld.Sample{Domain: d}
			domains = append(domains, d)
		}
		byDomain[d].Docs++
		if e.layoutErr == nil {
			byDomain[d].Tokens += e.layout.Scored.Len()
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
	src := "TF token files (" + s.vocabFile + ")"
	if small := kld.Small(samples); len(small) > 0 {
		var names []string
		for _, sm := range small {
			names = append(names, sm.Domain)
		}
		if where, ok := s.caveat(CaveatKLDSampleSize); ok {
			add(finding.Pass, "F37", file, line, quote, raw, where,
				"fewer than %d documents in %s: no confidence interval; stated in PLAN", kld.MinDocs, strings.Join(names, ", "))
		} else {
			add(finding.Fail, "F37", file, line, quote, raw, src,
				"fewer than %d documents per domain (%s) and no confidence interval: the KLD and top-1 figures are single-document point values; add documents or state it in %s as caveat (%s)",
				kld.MinDocs, strings.Join(names, ", "), s.where(), CaveatKLDSampleSize)
		}
		return out
	}
	// Every domain has enough documents: a bootstrap interval per
	// configuration and domain over the documents' mean KLD.
	cis, err := s.intervals()
	if err != nil {
		add(finding.Fail, "F37", file, line, quote, raw, src, "no confidence interval: %v", err)
		return out
	}
	add(finding.Pass, "F37", file, line, quote, raw, src,
		"at least %d documents per domain; bootstrap %.0f%% intervals of mean KLD over documents: %s",
		kld.MinDocs, 100*bootstrapLevel, strings.Join(cis, "; "))
	return out
}

// intervals computes a bootstrap interval of mean KLD per configuration and
// domain from the runs' tails.
func (s *tfSet) intervals() ([]string, error) {
	type key struct{ config, domain string }
	docs := map[key][]float64{}
	var keys []key
	for _, r := range s.runs {
		ms, ok := s.runMetrics(r.run.Name)
		if !ok {
			return nil, fmt.Errorf("run %s has no parsed tail", r.run.Name)
		}
		v, _, ok := metricValue(ms, "kld_mean")
		if !ok {
			return nil, fmt.Errorf("run %s: no kld_mean in its tail", r.run.Name)
		}
		k := key{s.configOf(r.run.Name), r.file.file.Domain}
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

// configOf returns the configuration a TF run belongs to, from the runner's
// KLD macros, or the run name when no macro lists it.
func (s *tfSet) configOf(run string) string {
	for cfg, m := range s.snap.KLDMacros {
		for _, r := range m.Runs {
			if r == run {
				return cfg
			}
		}
	}
	return run
}

// coldPairs checks the pairs PLAN quotes from one run per side (arrow
// quotes, "9.51 → 13.52 tok/s") against the claims table's set cold, the
// first run on each expert file: such a pair is a sample of one, taken cold
// on one side, and its claims row must name a caveat that PLAN states (F30).
// A snapshot without PLAN.md or PLAN.claims, or a table without set cold,
// has nothing to check.
func coldPairs(c *Context) ([]finding.Finding, error) {
	pc, err := LoadPlanCheck(c)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if pc.Table.Sets[ColdSet] == nil {
		return nil, nil
	}
	cold, err := pc.Env.Set(ColdSet)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", claims.File, err)
	}
	isCold := map[string]bool{}
	for _, r := range cold {
		isCold[r] = true
	}
	out := []finding.Finding{checkColdSet(pc, cold)}
	for _, b := range pc.Result.Bindings {
		if b.Token.Kind != plan.Arrow || b.Status == claims.Stale {
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
		id := b.Row.ID
		if id == "" {
			id = "F30"
		}
		what := fmt.Sprintf("%s: %s compares %s, one run per side (n = 1), with the first, cold run on its expert file (%s)",
			b.Place, b.Token.Text, strings.Join(runs, " and "), strings.Join(coldRuns, ", "))
		f := bindingFinding("kld", b, finding.Warn, what+", and states no caveat")
		f.ID = id
		if len(b.Row.Caveats) > 0 && b.Status != claims.CaveatMissing {
			f.Severity = finding.Pass
			f.Message = fmt.Sprintf("%s; caveat (%s) stated", what, strings.Join(b.Row.Caveats, "), ("))
		}
		out = append(out, f)
	}
	return out, nil
}

// checkColdSet checks the declared cold set against the archive: it must be
// exactly the first run on each model file.
func checkColdSet(pc *PlanCheck, cold []string) finding.Finding {
	set := pc.Table.Sets[ColdSet]
	f := finding.Finding{Severity: finding.Pass, Rule: "kld", ID: "F30", File: claims.File, Line: set.Line, Quote: "set " + ColdSet,
		Raw: strings.Join(cold, " ")}
	var want []string
	var models []string
	for m := range pc.first {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		want = append(want, pc.first[m])
	}
	sort.Strings(want)
	got := append([]string(nil), cold...)
	sort.Strings(got)
	f.Source = "the first strata run per --model in " + "results order: " + strings.Join(want, " ")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		f.Severity = finding.Fail
		f.Message = fmt.Sprintf("set %s names %s; the first run on each model file is %s", ColdSet, strings.Join(got, ", "), strings.Join(want, ", "))
		return f
	}
	f.Message = fmt.Sprintf("set %s is the first run on each model file: %s", ColdSet, strings.Join(want, ", "))
	return f
}
