package rules

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/kld"
)

// KLDBootstrap fixes the bootstrap the kld rule runs where a domain has
// enough documents: a 95 % percentile interval from 10,000 resamples of a
// generator seeded with 1, so reports are reproducible.
var KLDBootstrap = struct {
	Level float64
	Reps  int
	Seed  uint64
}{0.95, 10000, 1}

func init() {
	Register(Rule{
		Name: "kld",
		Doc:  "teacher-forcing KLD sample size: at least 3 documents per domain with a bootstrap confidence interval, or a stated caveat",
		Check: func(c *Context) ([]finding.Finding, error) {
			set, err := loadTF(c)
			if err != nil {
				return nil, err
			}
			return checkKLD(set), nil
		},
	})
}

func checkKLD(s *tfSet) []finding.Finding {
	var out []finding.Finding
	add := func(sev finding.Severity, id, file string, line int, quote, raw, source, format string, args ...any) {
		out = append(out, finding.Finding{Rule: "kld", ID: id, Severity: sev, File: file, Line: line,
			Quote: quote, Raw: raw, Source: source, Message: fmt.Sprintf(format, args...)})
	}
	file, line, quote := "PLAN.md", s.claimLine, ""
	if s.plan != nil && line > 0 {
		quote = strings.TrimSpace(s.plan.Lines[line-1].Text)
	}
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
		kld.MinDocs, 100*KLDBootstrap.Level, strings.Join(cis, "; "))
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
		iv, err := kld.Bootstrap(docs[k], KLDBootstrap.Level, KLDBootstrap.Reps, KLDBootstrap.Seed)
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
