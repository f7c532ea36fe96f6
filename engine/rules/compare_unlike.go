package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/runconf"
)

func init() {
	Register(Rule{
		Name: "compare.unlike",
		Doc: "a claim comparing runs (arrow pair, ratio, change) holds only between runs alike in binary, mode, threads, prompt, " +
			"batch/ubatch, token counts, with every run decoding > 0 tokens — or its row names a caveat the plan states beside it",
		Check: checkCompareUnlike,
	})
}

// comparison is one claims row that compares runs, at one place in the plan.
type comparison struct {
	row  *claims.Row
	line int // line of the quote in PLAN.md (0 when the quote is not found)
	runs []string
}

func checkCompareUnlike(c *Context) ([]finding.Finding, error) {
	pc, err := LoadPlanCheck(c)
	if err != nil {
		return nil, err
	}
	var comps []comparison
	seen := map[string]bool{}
	for _, b := range pc.Result.Bindings {
		if b.Status == claims.Stale {
			continue
		}
		runs := b.Row.Runs()
		if len(runs) < 2 {
			continue
		}
		key := fmt.Sprintf("%d:%d", b.Row.Line, b.Token.Line)
		if seen[key] {
			continue
		}
		seen[key] = true
		comps = append(comps, comparison{row: b.Row, line: b.Token.Line, runs: runs})
	}
	sort.SliceStable(comps, func(i, j int) bool { return comps[i].line < comps[j].line })

	var out []finding.Finding
	for _, cmp := range comps {
		out = append(out, checkComparison(c, pc, cmp))
	}
	if len(out) == 0 {
		out = append(out, finding.Finding{Severity: finding.Pass, Rule: "compare.unlike", File: PlanFile, Source: claims.File,
			Message: "no claims row compares two runs"})
	}
	return out, nil
}

// checkComparison checks one comparison row: the runs' configurations and
// decoded tokens, and the caveats the row names.
func checkComparison(c *Context, pc *PlanCheck, cmp comparison) finding.Finding {
	row := cmp.row
	fd := finding.Finding{Severity: finding.Pass, Rule: "compare.unlike", File: PlanFile, Line: cmp.line, Quote: row.Quote,
		Source: fmt.Sprintf("%s:%d", claims.File, row.Line)}
	var cfgs []runconf.Config
	for _, name := range cmp.runs {
		r := c.Snap.Run(name)
		if r == nil {
			fd.Severity = finding.Fail
			fd.Message = fmt.Sprintf("%s compares run %s, which is not in the archive", row.Quote, name)
			return fd
		}
		cfgs = append(cfgs, runconf.Of(c.Snap, r, c.Metrics[name]))
	}

	// Differences, each run against the first, and runs that decoded nothing.
	var diffs []string
	fields := map[string]bool{}
	var nothing []string
	for _, cfg := range cfgs {
		if cfg.DecodedKnown && cfg.DecodedN == 0 {
			nothing = append(nothing, fmt.Sprintf("%s decoded nothing %s", cfg.Run, strings.TrimPrefix(cfg.Decoded, "0 ")))
		}
	}
	for _, cfg := range cfgs[1:] {
		for _, d := range runconf.Diff(cfgs[0], cfg) {
			if d.Field == "decoded_tokens" && len(nothing) > 0 {
				continue // reported as "decoded nothing"
			}
			fields[d.Field] = true
			diffs = append(diffs, fmt.Sprintf("%s: %s (%s) vs %s (%s)", d.Field, d.A, cfgs[0].Run, d.B, cfg.Run))
		}
	}
	fd.Raw = strings.Join(cmp.runs, " vs ")
	fd.ID = row.ID
	if fd.ID == "" {
		fd.ID = unlikeID(row, len(nothing) > 0, fields)
	}
	if len(diffs) == 0 && len(nothing) == 0 {
		fd.ID = row.ID
		fd.Message = fmt.Sprintf("%s compares like with like: %s match on %s", row.Quote, fd.Raw, strings.Join(runconf.Fields(), ", "))
		return fd
	}
	problems := append(append([]string(nil), nothing...), diffs...)

	// Caveats: every one the row names must be stated beside the quote.
	var stated, missing []string
	for _, id := range row.Caveats {
		if _, ok := pc.Doc.Caveat(id, row.Place); ok {
			stated = append(stated, id)
		} else {
			missing = append(missing, id)
		}
	}
	switch {
	case len(row.Caveats) > 0 && len(missing) == 0:
		fd.Message = fmt.Sprintf("%s is not like for like (%s); the plan states caveat %s beside it",
			row.Quote, strings.Join(problems, "; "), strings.Join(stated, ", "))
	case len(missing) > 0:
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s is not like for like: %s; the row names caveat %s, which %s does not state in %s",
			row.Quote, strings.Join(problems, "; "), strings.Join(missing, ", "), PlanFile, row.Place)
	default:
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s is not like for like: %s; no caveat is stated", row.Quote, strings.Join(problems, "; "))
	}
	return fd
}

// unlikeID picks the audit finding a failing comparison reproduces (§1d):
// F18 for a decode pair, F16 for a whole-run figure against a run that
// decoded nothing, F17 for the rest (binary, mode, threads).
func unlikeID(row *claims.Row, decodedNothing bool, fields map[string]bool) string {
	var metrics []string
	for _, e := range row.Sources {
		metrics = append(metrics, e.String())
	}
	m := strings.Join(metrics, " ")
	switch {
	case strings.Contains(row.Quote, "/tok") && strings.Contains(m, "disk0"):
		return "F19"
	case strings.Contains(m, "gen_tok_s") || strings.Contains(m, "eval_tok_s") && !strings.Contains(m, "prompt"):
		return "F18"
	case decodedNothing && strings.Contains(m, "disk0"):
		return "F16"
	case fields["binary"] || fields["mode"] || fields["threads"]:
		return "F17"
	}
	return ""
}
