package cache

import (
	"fmt"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/pagecache"
)

// Residency judges each helper by the residency records around its call
// (audit F26 for evict, F27 for warm): an eviction is done only when no page
// of the probe file is resident afterwards, a warm-up only when every page
// is; what the helper returned is quoted, never trusted.
var Residency = &analysis.Analyzer{
	Name:     "cache.residency",
	Doc:      "eviction and warm-up judged by archived residency records (evict: no page left; warm: every page resident), never by the helper's return value",
	Fix:      "evict with a call that drops the page cache (posix_fadvise(DONTNEED); purge on darwin) and accept it only when a residency record shows no page left",
	Requires: []*analysis.Analyzer{probeFact.Analyzer},
	Run:      runResidency,
}

func runResidency(p *analysis.Pass) (any, error) {
	pr := probeFact.Of(p)
	ops := map[string]bool{}
	for _, h := range pr.Helpers {
		ops[h.Op] = true
		p.Report(judge(h))
	}
	for _, op := range []pagecache.Op{pagecache.OpEvict, pagecache.OpWarm} {
		if !ops[string(op)] {
			p.Report(finding.Finding{Severity: finding.Warn, Check: "declared", File: pr.SpecFile,
				Message: fmt.Sprintf("the probe declares no %s helper: the cold/warm state of the runs is not controlled", op)})
		}
	}
	return nil, nil
}

// judge returns the finding for one helper's records.
func judge(h ProbedHelper) finding.Finding {
	b, a := h.Before, h.After
	returned := "not recorded"
	if h.Returned != nil {
		returned = fmt.Sprint(*h.Returned)
	}
	f := finding.Finding{
		Check:  h.Op,
		File:   refFile(h.Helper.After),
		Line:   h.AfterLine,
		Quote:  fmt.Sprintf("%s: %d/%d → %d/%d pages resident (returned %s)", h.Name, b.Resident, b.Total, a.Resident, a.Total, returned),
		Raw:    fmt.Sprintf("before %s, after %s", b.Count, a.Count),
		Source: fmt.Sprintf("%s, %s (%s, %d-byte pages, %d-byte file %s)", h.Helper.Before, h.Helper.After, a.Method, a.PageSize, a.Size, a.Path),
	}
	f.Plot = &finding.Plot{Kind: "compare", Unit: "% resident", Points: []finding.Point{
		{Series: "before", Label: h.Name, Value: 100 * b.Fraction()},
		{Series: "after", Label: h.Name, Value: 100 * a.Fraction(), Note: "returned " + returned},
	}}
	fail := func(format string, args ...any) finding.Finding {
		f.Severity, f.Message = finding.Fail, fmt.Sprintf(format, args...)
		return f
	}
	warn := func(format string, args ...any) finding.Finding {
		f.Severity, f.Message = finding.Warn, fmt.Sprintf(format, args...)
		return f
	}
	switch {
	case a.Unverifiable != "" || b.Unverifiable != "":
		return warn("%s: the records cannot be trusted: %s", h.Name, a.Unverifiable+b.Unverifiable)
	case b.Path != a.Path || b.Size != a.Size || b.Total != a.Total:
		return warn("%s: the before and after records measure different files (%s, %d bytes; %s, %d bytes)", h.Name, b.Path, b.Size, a.Path, a.Size)
	}
	if h.Op == string(pagecache.OpEvict) {
		switch {
		case b.Resident != b.Total:
			return warn("%s was probed on a file only %s resident: the probe cannot show an eviction", h.Name, b.Count)
		case a.Resident == 0:
			f.Severity, f.Message = finding.Pass, fmt.Sprintf("%s evicts: %d → 0 of %d pages resident", h.Name, b.Resident, a.Total)
			return f
		case a.Resident == b.Resident && h.Returned != nil && *h.Returned:
			return fail("%s returns success and evicts nothing: %d → %d of %d pages resident (%s)", h.Name, b.Resident, a.Resident, a.Total, h.Mechanism)
		}
		return fail("%s leaves %d of %d pages resident after the eviction (returned %s)", h.Name, a.Resident, a.Total, returned)
	}
	switch {
	case b.Resident != 0:
		return warn("%s was probed on a file already %s resident: the probe cannot show a warm-up", h.Name, b.Count)
	case a.Resident == a.Total:
		f.Severity, f.Message = finding.Pass, fmt.Sprintf("%s warms: 0 → %d of %d pages resident", h.Name, a.Resident, a.Total)
		return f
	}
	return fail("%s leaves %d of %d pages out of the cache after the warm-up (returned %s)", h.Name, a.Total-a.Resident, a.Total, returned)
}
