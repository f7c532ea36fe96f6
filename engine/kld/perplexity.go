package kld

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// The statistics blocks llama-perplexity prints at the end of a
// --kl-divergence run (tools/perplexity/perplexity.cpp, kl_divergence()):
//
//	====== Perplexity statistics ======
//	Mean PPL(Q)                   :  15.887100 ±   0.246800
//	...
//	====== KL divergence statistics ======
//	Mean    KLD:   0.009876 ±   0.000234
//	Maximum KLD:   2.345678
//	99.9%   KLD:   0.456789
//	...
//	====== Token probability statistics ======
//	Mean    Δp: -0.090 ± 0.010 %
//	...
//	Same top p: 96.418 ±  0.049 %
//
// llama-perplexity prints the blocks only when at least 100 tokens were
// scored. Older builds print fewer percentiles (and "99.0%" twice); every
// line is matched by its label, not its position.

// statLine is "label: value [± unc] [%]".
var statLine = regexp.MustCompile(`^(.+?)\s*:\s*(-?[0-9.]+|-?nan|-?inf)\s*(%)?(?:\s*±\s*(-?[0-9.]+|-?nan|-?inf)\s*(%)?)?\s*$`)

// logPrefix is the optional timestamp and level of llama.cpp's log.
var logPrefix = regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+ [DIWE] `)

var pplNames = map[string]string{
	"Mean PPL(Q)":                    "ppl_q",
	"Mean PPL(base)":                 "ppl_base",
	"Cor(ln(PPL(Q)), ln(PPL(base)))": "ppl_cor",
	"Mean ln(PPL(Q)/PPL(base))":      "ln_ppl_ratio",
	"Mean PPL(Q)/PPL(base)":          "ppl_ratio",
	"Mean PPL(Q)-PPL(base)":          "ppl_diff",
}

// statName maps a KLD or Δp label ("Mean    KLD", "99.9%   KLD", " 5.0%   Δp",
// "RMS Δp", "Same top p") to a metric name.
func statName(label string) (string, bool) {
	f := strings.Fields(label)
	if len(f) == 3 && f[0] == "Same" && f[1] == "top" && f[2] == "p" {
		return "same_top_p", true
	}
	if len(f) != 2 {
		return "", false
	}
	var prefix string
	switch f[1] {
	case "KLD":
		prefix = "kld_"
	case "Δp":
		prefix = "dp_"
	default:
		if f[0] == "RMS" && f[1] == "Δp" {
			return "dp_rms", true
		}
		return "", false
	}
	switch f[0] {
	case "Mean":
		return prefix + "mean", true
	case "Maximum":
		return prefix + "max", true
	case "Minimum":
		return prefix + "min", true
	case "Median":
		return prefix + "median", true
	case "RMS":
		return prefix + "rms", true
	}
	if p, ok := strings.CutSuffix(f[0], "%"); ok {
		if _, err := num.Parse(p); err == nil {
			return prefix + "p" + strings.TrimSuffix(strings.ReplaceAll(p, ".", "_"), "_0"), true
		}
	}
	return "", false
}

// ParsePerplexity reads the statistics blocks of a llama-perplexity
// --kl-divergence output. Each value is a metric (kld_mean, kld_max,
// kld_p99_9, kld_median, same_top_p, ppl_q, ...); a value printed with ± has a
// second metric named with "_unc". A line inside a block that does not parse
// is an error value, and parsing goes on. A tail with a "KL divergence
// statistics" block but no "Mean    KLD:" line is an error.
func ParsePerplexity(source, text string) *tail.Metrics {
	ms := &tail.Metrics{Source: source}
	block := ""
	sawMean := false
	kldLine := 0 // line of the "KL divergence statistics" header, 0 if none
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.TrimRight(logPrefix.ReplaceAllString(line, ""), "\r")
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "======") {
			block = strings.Trim(trimmed, "= ")
			if block == "KL divergence statistics" && kldLine == 0 {
				kldLine = n
			}
			continue
		}
		if trimmed == "" {
			block = ""
			continue
		}
		if block == "" {
			continue
		}
		m := statLine.FindStringSubmatch(line)
		if m == nil {
			ms.Errors = append(ms.Errors, &tail.Error{File: source, Line: n, Msg: fmt.Sprintf("%s: unreadable line %q", block, trimmed)})
			continue
		}
		label := strings.TrimSpace(m[1])
		var name string
		var ok bool
		switch block {
		case "Perplexity statistics":
			name, ok = pplNames[strings.Join(strings.Fields(label), " ")]
		case "KL divergence statistics", "Token probability statistics":
			name, ok = statName(label)
		}
		if !ok {
			ms.Errors = append(ms.Errors, &tail.Error{File: source, Line: n, Msg: fmt.Sprintf("%s: unknown statistic %q", block, label)})
			continue
		}
		unit := m[3] + m[5]
		if err := addNum(ms, name, m[2], unit, n); err != nil {
			ms.Errors = append(ms.Errors, &tail.Error{File: source, Line: n, Msg: err.Error()})
			continue
		}
		if name == "kld_mean" {
			sawMean = true
		}
		if m[4] != "" {
			if err := addNum(ms, name+"_unc", m[4], unit, n); err != nil {
				ms.Errors = append(ms.Errors, &tail.Error{File: source, Line: n, Msg: err.Error()})
			}
		}
	}
	if kldLine > 0 && !sawMean {
		ms.Errors = append(ms.Errors, &tail.Error{File: source, Line: kldLine, Msg: `"KL divergence statistics" block has no "Mean    KLD:" line`})
	}
	return ms
}

func addNum(ms *tail.Metrics, name, text, unit string, line int) error {
	v, err := num.Parse(text)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	ms.Add(tail.Metric{Name: name, Num: v, Unit: unit, Line: line})
	return nil
}
