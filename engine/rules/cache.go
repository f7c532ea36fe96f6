package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/pagecache"
)

// RunnerFile is the validation runner's source in a snapshot, relative to
// its root: the cache rule reads its cache_target, the selftest rule its
// --self-test.
const RunnerFile = "scripts/run_phase0_phase2_m5_validation.py"

// ProbeFile is where a snapshot keeps its mincore probe record, relative to
// the snapshot root.
const ProbeFile = "results/mincore_probe.json"

func init() {
	Register(Rule{
		Name:  "cache",
		Doc:   "eviction and warm-up verified with mincore (evict ≤ 1 %, warm ~100 %); the helpers target the file the arena fill reads",
		Check: checkCache,
	})
}

// Thresholds of the cache rule, as fractions of the probe file's pages.
const (
	cacheEvicted = pagecache.EvictTolerance // evict must reach at most this
	cacheWarm    = 0.99                     // warm must reach at least this
)

func checkCache(c *Context) ([]finding.Finding, error) {
	data, err := c.Snap.ReadFile(ProbeFile)
	if errors.Is(err, fs.ErrNotExist) {
		return []finding.Finding{{Rule: "cache", Severity: finding.Warn, File: ProbeFile,
			Message: "no mincore probe record: nothing shows that eviction or warm-up does what it claims"}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	p, err := pagecache.ParseProbe(ProbeFile, data)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	var out []finding.Finding
	ops := map[pagecache.Op]bool{}
	for _, h := range p.Helpers {
		ops[h.Op] = true
		out = append(out, residencyFinding(p, h), targetFinding(p, h))
	}
	rf, err := runnerTargetFinding(c.Snap.Root, p)
	if err != nil {
		return nil, err
	}
	if rf != nil {
		out = append(out, *rf)
	}
	for _, op := range []pagecache.Op{pagecache.OpEvict, pagecache.OpWarm} {
		if !ops[op] {
			out = append(out, finding.Finding{Rule: "cache", Severity: finding.Warn, File: ProbeFile,
				Message: fmt.Sprintf("the probe record has no %s helper: cold/warm state of the runs is not controlled", op)})
		}
	}
	return out, nil
}

// residencyFinding judges a helper by the residency mincore measured, never
// by what the helper returned (F26 evict, F27 warm).
func residencyFinding(p *pagecache.Probe, h pagecache.ProbeHelper) finding.Finding {
	f := finding.Finding{Severity: finding.Pass,
		Rule:   "cache",
		File:   ProbeFile,
		Line:   h.Line,
		Quote:  fmt.Sprintf("%s: %s → %s (returned %v)", h.Name, h.BeforeRaw, h.AfterRaw, h.Returned),
		Raw:    fmt.Sprintf("before %s, after %s", h.BeforeRaw, h.AfterRaw),
		Source: fmt.Sprintf("%s: %s.before/.after (mincore, %d-byte pages, %d-byte file)", ProbeFile, h.Path, p.PageSize, p.FileSize),
	}
	switch h.Op {
	case pagecache.OpEvict:
		f.ID = "F26"
		switch {
		case h.Before < 1-cacheEvicted:
			f.Severity = finding.Warn
			f.Message = fmt.Sprintf("%s was probed on a file only %s resident: the probe cannot show an eviction", h.Name, h.BeforeRaw)
		case h.After <= cacheEvicted:
			f.Severity = finding.Pass
			f.Message = fmt.Sprintf("%s evicts: mincore %s → %s (≤ 1 %%)", h.Name, h.BeforeRaw, h.AfterRaw)
		case h.Returned:
			f.Severity = finding.Fail
			f.Message = fmt.Sprintf("%s returns success and evicts nothing: mincore %s → %s resident (%s)", h.Name, h.BeforeRaw, h.AfterRaw, h.Mechanism)
		default:
			f.Severity = finding.Fail
			f.Message = fmt.Sprintf("%s fails to evict: mincore %s → %s resident", h.Name, h.BeforeRaw, h.AfterRaw)
		}
	case pagecache.OpWarm:
		f.ID = "F27"
		switch {
		case h.Before > cacheEvicted:
			f.Severity = finding.Warn
			f.Message = fmt.Sprintf("%s was probed on a file already %s resident: the probe cannot show a warm-up", h.Name, h.BeforeRaw)
		case h.After >= cacheWarm:
			f.Severity = finding.Pass
			f.Message = fmt.Sprintf("%s warms: mincore %s → %s", h.Name, h.BeforeRaw, h.AfterRaw)
		default:
			f.Severity = finding.Fail
			f.Message = fmt.Sprintf("%s leaves the file cold: mincore %s → %s resident (want ≥ 0.99)", h.Name, h.BeforeRaw, h.AfterRaw)
		}
	}
	return f
}

// targetFinding checks that a helper acts on the files the arena fill reads
// (F29): evicting or warming any other file leaves the fill's cache state to
// chance.
func targetFinding(p *pagecache.Probe, h pagecache.ProbeHelper) finding.Finding {
	f := finding.Finding{Severity: finding.Pass,
		Rule:   "cache",
		ID:     "F29",
		File:   ProbeFile,
		Line:   h.Line,
		Quote:  h.Name + " targets " + strings.Join(h.Targets, ", "),
		Raw:    "arena fill reads " + strings.Join(p.FillFiles, ", ") + " (" + p.FillIO + ")",
		Source: ProbeFile + ": " + h.Path + ".targets, $.arena_fill.files",
	}
	var wrong []string
	for _, t := range h.Targets {
		if !slices.Contains(p.FillFiles, t) {
			wrong = append(wrong, t)
		}
	}
	var missed []string
	for _, t := range p.FillFiles {
		if !slices.Contains(h.Targets, t) {
			missed = append(missed, t)
		}
	}
	switch {
	case len(wrong) > 0:
		f.Severity = finding.Fail
		f.Message = fmt.Sprintf("%s targets %s, which the arena fill does not read; the fill reads %s",
			h.Name, strings.Join(wrong, ", "), strings.Join(p.FillFiles, ", "))
	case len(missed) > 0:
		f.Severity = finding.Fail
		f.Message = fmt.Sprintf("%s never touches %s, which the arena fill reads", h.Name, strings.Join(missed, ", "))
	default:
		f.Severity = finding.Pass
		f.Message = fmt.Sprintf("%s targets the files the arena fill reads", h.Name)
	}
	return f
}

// cacheTargetTemplate matches the f-string a runner's cache_target returns,
// e.g. f"K256-{quant}-metal.gguf".
var cacheTargetTemplate = regexp.MustCompile(`f"([^"]*\{quant\}[^"]*)"`)

// runnerTargetFinding checks the runner's source, not only the probe record:
// the file name its cache_target(quant) returns must be a file the arena fill
// reads (F29). It returns nil when the snapshot holds no runner source.
func runnerTargetFinding(root string, p *pagecache.Probe) (*finding.Finding, error) {
	data, err := os.ReadFile(filepath.Join(root, RunnerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	f := &finding.Finding{Severity: finding.Pass, Rule: "cache", ID: "F29", File: RunnerFile,
		Raw:    "arena fill reads " + strings.Join(p.FillFiles, ", "),
		Source: ProbeFile + ": $.arena_fill.files"}
	lines := strings.Split(string(data), "\n")
	def := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "def cache_target(") })
	if def < 0 {
		f.Severity, f.Message = finding.Warn, "the runner defines no cache_target: the file it evicts and warms cannot be checked against its source"
		return f, nil
	}
	for i := def + 1; i < len(lines) && i < def+20; i++ {
		if !strings.Contains(lines[i], "return") {
			continue
		}
		m := cacheTargetTemplate.FindStringSubmatch(lines[i])
		if m == nil {
			break
		}
		f.Line, f.Quote = i+1, strings.TrimSpace(lines[i])
		glob := strings.ReplaceAll(m[1], "{quant}", "*")
		var miss []string
		for _, ff := range p.FillFiles {
			if ok, _ := path.Match(glob, path.Base(ff)); !ok {
				miss = append(miss, ff)
			}
		}
		if len(miss) > 0 {
			f.Severity = finding.Fail
			f.Message = fmt.Sprintf("cache_target returns %s, so evict/warm act on it; the arena fill reads %s", m[1], strings.Join(miss, ", "))
		} else {
			f.Severity = finding.Pass
			f.Message = fmt.Sprintf("cache_target returns %s, the files the arena fill reads", m[1])
		}
		return f, nil
	}
	f.Line = def + 1
	f.Severity, f.Message = finding.Warn, "cache_target returns no f-string with {quant}: the file it names cannot be checked"
	return f, nil
}
