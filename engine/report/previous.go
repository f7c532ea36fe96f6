package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/jsontree"
)

// Statuses of a finding against a previous report.
const (
	StatusFixed = "fixed" // failed or warned before; passes now or is gone
	StatusStill = "still" // fails or warns in both
	StatusNew   = "new"   // fails or warns now, and did not before
)

// Comparison is a report's findings marked against an earlier report's, as
// an audit re-checks the previous audit's findings one by one.
type Comparison struct {
	File  string `json:"file"` // the previous report, as named
	Fixed int    `json:"fixed"`
	Still int    `json:"still"`
	New   int    `json:"new"`
	// Gone counts the previous report's passes that match no finding now: a
	// check that no longer runs (a rule's settings narrowed, a run or a
	// record dropped), which would otherwise leave the verdict unchanged.
	Gone int `json:"gone,omitempty"`
	// GoneRules says, per rule with a pass gone, how many (by rule name).
	GoneRules []RuleCount `json:"gone_rules,omitempty"`
	// Reworded counts the passes that match a previous pass whose message
	// differs: the check ran otherwise (a tolerance raised shows as
	// "≤ 1e+09" where it read "≤ 1e-06").
	Reworded int `json:"reworded,omitempty"`
	// RewordedRules says, per rule with a pass reworded, how many.
	RewordedRules []RuleCount `json:"reworded_rules,omitempty"`
	// Findings holds every fail or warn of either report with its status:
	// fixed ones as the previous report had them, the others as now.
	Findings []Mark `json:"findings"`

	marks []string // status per finding of the current report ("" for a pass)
}

// Mark is one finding with its status against the previous report.
type Mark struct {
	Status   string           `json:"status"`
	Rule     string           `json:"rule"`
	ID       string           `json:"id,omitempty"`
	Severity finding.Severity `json:"severity"`
	File     string           `json:"file"`
	Line     int              `json:"line"`
	Quote    string           `json:"quote"`
	Message  string           `json:"message"`
}

// RuleCount is a number of a rule's findings: passes gone or reworded.
type RuleCount struct {
	Rule string `json:"rule"`
	N    int    `json:"n"`
}

// ruleCounts returns the counts of m sorted by rule.
func ruleCounts(m map[string]int) []RuleCount {
	var out []RuleCount
	for _, rule := range slices.Sorted(maps.Keys(m)) {
		out = append(out, RuleCount{Rule: rule, N: m[rule]})
	}
	return out
}

// mark returns the status of the current report's i-th finding; "" without
// a comparison or for a pass.
func (c *Comparison) mark(i int) string {
	if c == nil || i >= len(c.marks) {
		return ""
	}
	return c.marks[i]
}

// ParsePrevious reads an earlier JSON report. Only its findings are used; a
// file that is not a report is an error naming it and the place.
func ParsePrevious(name string, data []byte) ([]finding.Finding, error) {
	var doc struct {
		Verdict  *string           `json:"verdict"`
		Findings []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", jsonPlace(name, data, err), err)
	}
	if doc.Verdict == nil || doc.Findings == nil {
		return nil, fmt.Errorf("%s: not an audit report: no \"verdict\" or no \"findings\"", name)
	}
	out := make([]finding.Finding, 0, len(doc.Findings))
	for i, raw := range doc.Findings {
		var f finding.Finding
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("%s: findings[%d]: %w", name, i, err)
		}
		if f.Rule == "" || !f.Severity.Valid() {
			return nil, fmt.Errorf("%s: findings[%d]: a finding needs a rule and a severity", name, i)
		}
		out = append(out, f)
	}
	return out, nil
}

// jsonPlace names the line and column of a JSON decoding error.
func jsonPlace(name string, data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	// Offset counts the bytes read, the offending one included.
	if off < 1 || off > int64(len(data)) {
		return name
	}
	line, col := jsontree.NewLineIndex(data).Pos(int(off) - 1)
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}

// Compare marks the report's findings against an earlier report's findings
// (read with ParsePrevious from the file named name). Findings are matched by
// rule, id and check, then by file and quote, by file and line, or by quote
// alone, so a finding whose line moved is still the same finding. The
// verdict and exit status do not change.
func (r *Report) Compare(name string, prev []finding.Finding) {
	c := &Comparison{File: name, marks: make([]string, len(r.Findings))}
	cur := r.Findings
	match := matchFindings(cur, prev)
	prevMatched := make([]int, len(prev))
	for i := range prevMatched {
		prevMatched[i] = -1
	}
	for i, j := range match {
		if j >= 0 {
			prevMatched[j] = i
		}
	}
	bad := func(s finding.Severity) bool { return s == finding.Fail || s == finding.Warn }
	gone, reworded := map[string]int{}, map[string]int{}
	for j, p := range prev {
		if p.Severity == finding.Pass {
			switch i := prevMatched[j]; {
			case i < 0:
				c.Gone++
				gone[p.Rule]++
			case cur[i].Severity == finding.Pass && cur[i].Message != p.Message:
				c.Reworded++
				reworded[p.Rule]++
			}
		}
		if !bad(p.Severity) {
			continue
		}
		if i := prevMatched[j]; i < 0 || !bad(cur[i].Severity) {
			c.Fixed++
			c.Findings = append(c.Findings, markOf(StatusFixed, p))
		}
	}
	c.GoneRules, c.RewordedRules = ruleCounts(gone), ruleCounts(reworded)
	for i, f := range cur {
		if !bad(f.Severity) {
			continue
		}
		status := StatusNew
		if j := match[i]; j >= 0 && bad(prev[j].Severity) {
			status = StatusStill
			c.Still++
		} else {
			c.New++
		}
		c.marks[i] = status
		c.Findings = append(c.Findings, markOf(status, f))
	}
	r.Previous = c
}

func markOf(status string, f finding.Finding) Mark {
	return Mark{Status: status, Rule: f.Rule, ID: f.ID, Severity: f.Severity, File: f.File, Line: f.Line, Quote: f.Quote, Message: f.Message}
}

// matchFindings returns, per current finding, the index of the previous
// finding it is (-1 for none). Each previous finding matches at most once;
// stronger keys are tried first over all findings.
func matchFindings(cur, prev []finding.Finding) []int {
	type key struct {
		rule, id, check, file, quote string
		line                         int
	}
	keys := []func(f finding.Finding) key{
		func(f finding.Finding) key { return key{f.Rule, f.ID, f.Check, f.File, f.Quote, -1} },
		func(f finding.Finding) key { return key{f.Rule, f.ID, f.Check, f.File, "", f.Line} },
		func(f finding.Finding) key { return key{f.Rule, f.ID, f.Check, "", f.Quote, -1} },
	}
	match := make([]int, len(cur))
	for i := range match {
		match[i] = -1
	}
	used := make([]bool, len(prev))
	for _, k := range keys {
		free := map[key][]int{}
		for j, p := range prev {
			if !used[j] {
				free[k(p)] = append(free[k(p)], j)
			}
		}
		for i, f := range cur {
			if match[i] >= 0 {
				continue
			}
			if js := free[k(f)]; len(js) > 0 {
				match[i], used[js[0]] = js[0], true
				free[k(f)] = js[1:]
			}
		}
	}
	return match
}
