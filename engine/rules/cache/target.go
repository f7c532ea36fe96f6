package cache

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/finding"
)

// Target checks that the helpers act on the files the arena fill reads
// (audit F29), as the probe declares them and, when the spec names it, as
// the runner's source computes the target: evicting or warming any other
// file leaves the fill's cache state to chance.
var Target = &analysis.Analyzer{
	Name:     "cache.target",
	Doc:      "the eviction and warm-up helpers act on the files the arena fill reads, in the probe and in the runner's source",
	Fix:      "evict and warm the files the arena fill reads",
	Requires: []*analysis.Analyzer{probeFact.Analyzer},
	Run:      runTarget,
}

func runTarget(p *analysis.Pass) (any, error) {
	pr := probeFact.Of(p)
	fill := strings.Join(pr.Fill.Files, ", ")
	for _, h := range pr.Helpers {
		f := finding.Finding{Check: "probe", File: pr.SpecFile, Line: h.SpecLine,
			Quote:  h.Name + " targets " + strings.Join(h.Targets, ", "),
			Raw:    "arena fill reads " + fill + " (" + pr.Fill.IO + ")",
			Source: pr.SpecFile + ": rules.cache.fill.files"}
		wrong, missed := missing(h.Targets, pr.Fill.Files), missing(pr.Fill.Files, h.Targets)
		switch {
		case len(wrong) > 0:
			f.Severity = finding.Fail
			f.Message = fmt.Sprintf("%s targets %s, which the arena fill does not read; the fill reads %s", h.Name, strings.Join(wrong, ", "), fill)
		case len(missed) > 0:
			f.Severity = finding.Fail
			f.Message = fmt.Sprintf("%s never touches %s, which the arena fill reads", h.Name, strings.Join(missed, ", "))
		default:
			f.Severity = finding.Pass
			f.Message = fmt.Sprintf("%s targets the files the arena fill reads", h.Name)
		}
		p.Report(f)
	}
	if pr.Source != nil {
		p.Report(sourceFinding(pr))
	}
	return nil, nil
}

// fstring matches an f-string literal in a return statement, e.g.
// return os.path.join(MODELS, f"K256-{quant}-metal.gguf").
var fstring = regexp.MustCompile(`\breturn\b.*\bf"([^"]*)"`)

// field matches an f-string's replacement field.
var field = regexp.MustCompile(`\{[^{}]*\}`)

// sourceFinding checks the file name the runner's target function returns
// against the files the arena fill reads: the f-string's fields stand for
// any text.
func sourceFinding(pr *Probe) finding.Finding {
	src := pr.Source
	f := finding.Finding{Check: "source", File: src.File,
		Raw:    "arena fill reads " + strings.Join(pr.Fill.Files, ", "),
		Source: pr.SpecFile + ": rules.cache.fill.files"}
	def := -1
	for i, l := range pr.SourceLines {
		if strings.HasPrefix(strings.TrimSpace(l), "def "+src.Function+"(") {
			def = i
			break
		}
	}
	if def < 0 {
		f.Severity, f.Message = finding.Warn, fmt.Sprintf("%s defines no %s: the file the helpers act on cannot be checked against the source", src.File, src.Function)
		return f
	}
	f.Line = def + 1
	for i := def + 1; i < len(pr.SourceLines) && i < def+20; i++ {
		m := fstring.FindStringSubmatch(pr.SourceLines[i])
		if m == nil {
			continue
		}
		f.Line, f.Quote = i+1, strings.TrimSpace(pr.SourceLines[i])
		glob := field.ReplaceAllString(m[1], "*")
		var miss []string
		for _, ff := range pr.Fill.Files {
			if ok, _ := path.Match(glob, path.Base(ff)); !ok {
				miss = append(miss, ff)
			}
		}
		if len(miss) > 0 {
			f.Severity = finding.Fail
			f.Message = fmt.Sprintf("%s returns %s, so evict/warm act on it; the arena fill reads %s", src.Function, m[1], strings.Join(miss, ", "))
		} else {
			f.Severity = finding.Pass
			f.Message = fmt.Sprintf("%s returns %s, the files the arena fill reads", src.Function, m[1])
		}
		return f
	}
	f.Severity, f.Message = finding.Warn, fmt.Sprintf("%s returns no f-string: the file it names cannot be checked", src.Function)
	return f
}
