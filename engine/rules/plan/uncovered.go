package plan

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// UncoveredCheck is the Check name of plan.uncovered's finding for one
// ungated number; -strict turns these warnings into failures.
const UncoveredCheck = "ungated"

// GateCheck is the Check name of plan.uncovered's finding that counts the
// gated and ungated numbers.
const GateCheck = "gate"

// Uncovered is rule plan.uncovered.
var Uncovered = newAnalyzer("plan.uncovered",
	"every measurement-like number of PLAN (a unit, a percentage, a rate, a range, an arrow pair, a ratio) outside the claim sections "+
		"is listed as a warning, unless its section is declared not claims (skip §N in PLAN.claims); the counts of gated and ungated numbers, per section, show a gate removed",
	false, planUncovered)

func planUncovered(pc *check) []finding.Finding {
	const rule = "plan.uncovered"
	g := pc.Result.Gate
	var out []finding.Finding
	for _, u := range pc.Result.Uncovered {
		f := finding.Finding{Rule: rule, Severity: finding.Warn, File: pc.Doc.File, Line: u.Token.Line, Quote: u.Token.Text,
			Check:   UncoveredCheck,
			Message: fmt.Sprintf("%s: %s is outside the claim sections, so no run is checked for it", u.Place, u.Token.Text),
			Fix:     fmt.Sprintf("bind it: `section %s` and a row in %s; or, if %s is not claims (design targets, history), `skip %s  # why`", fixPlace(u.Place), pc.Table.File, u.Place, fixPlace(u.Place))}
		if u.Fenced {
			f.Message = fmt.Sprintf("%s: %s is in a fenced code block, whose numbers no claims row binds, so no run is checked for it", u.Place, u.Token.Text)
			f.Fix = fmt.Sprintf("quote the claim outside the code block and bind it with a row in %s; or, if %s is not claims, `skip %s  # why`", pc.Table.File, u.Place, fixPlace(u.Place))
		}
		out = append(out, f)
	}
	if more := g.Ungated - len(pc.Result.Uncovered); more > 0 {
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Warn, File: pc.Doc.File, Check: UncoveredCheck,
			Message: fmt.Sprintf("and %d more measurement-like numbers outside the claim sections (the first %d are listed)", more, len(pc.Result.Uncovered))})
	}
	var gated, ungated, skipped []string
	for _, s := range g.Sections {
		if s.Gated > 0 {
			gated = append(gated, fmt.Sprintf("%s %d", s.Place, s.Gated))
		}
		if s.Ungated > 0 {
			ungated = append(ungated, fmt.Sprintf("%s %d", s.Place, s.Ungated))
		}
		if s.Skipped > 0 {
			skipped = append(skipped, fmt.Sprintf("%s %d", s.Place, s.Skipped))
		}
	}
	msg := fmt.Sprintf("%d numbers gated (%s); %d measurement-like numbers ungated (%s); %d in sections declared not claims (%s)",
		g.Gated, listOrNone(gated), g.Ungated, listOrNone(ungated), g.Skipped, listOrNone(skipped))
	// the counts are a warning while numbers are ungated, so that the
	// report shows them (and a section line removed shows as a drop)
	sev := finding.Pass
	if g.Ungated > 0 {
		sev = finding.Warn
	}
	file := pc.Table.File
	if pc.NoClaims {
		// no table to point at: the plan's numbers are all ungated, and a
		// plan nothing gates fails, with the first step of adopting the
		// gate (the report shows it first)
		file, msg = pc.Doc.File, fmt.Sprintf("no %s, so the gate binds nothing: %s", pc.Table.File, msg)
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Fail, File: pc.Doc.File, Check: AdoptCheck,
			Message: fmt.Sprintf("%s has no claims table (%s): the gate binds none of its numbers", pc.Doc.File, pc.Table.File),
			Fix:     fmt.Sprintf("adopt the gate: write %s declaring the sections that quote runs (`section §7`), run -rules plan, then -suggest for the rows that bind them (README, \"Adopting the gate\")", pc.Table.File)})
	}
	out = append(out, finding.Finding{Rule: rule, Severity: sev, File: file, Check: GateCheck,
		Raw:     fmt.Sprintf("gated=%d ungated=%d skipped=%d", g.Gated, g.Ungated, g.Skipped),
		Message: msg})
	// what reading the plan and the table set aside (a byte order mark)
	for _, n := range append(append([]string(nil), pc.Doc.Notes...), pc.Table.Notes...) {
		out = append(out, finding.Finding{Rule: rule, Severity: finding.Pass, File: noteFile(n), Line: 1, Check: ReadCheck, Message: n})
	}
	return out
}

// AdoptCheck is the Check name of plan.uncovered's fail on a plan without
// a claims table: a report lists it first, with the first adoption step.
const AdoptCheck = "adopt"

// ReadCheck is the Check name of plan.uncovered's notes on reading the plan
// and its claims table (a byte order mark dropped).
const ReadCheck = "read"

// noteFile is the file a reading note ("PLAN.md:1: …") names.
func noteFile(note string) string {
	f, _, _ := strings.Cut(note, ":")
	return f
}

// fixPlace is the place to write in a section or skip line: the section's
// number, or a placeholder where it has none.
func fixPlace(place string) string {
	if strings.HasPrefix(place, "§") || strings.HasPrefix(place, "#") {
		return place
	}
	return "§N"
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// Strict returns the findings with plan.uncovered's warnings about ungated
// numbers, and plan.unsourced's about claims rows declared, not measured,
// made failures (tools/strataspec -strict): a plan that has adopted the gate
// fails on any measurement-like number left outside it, and on any claim
// no run printed.
func Strict(fs []finding.Finding) []finding.Finding {
	out := make([]finding.Finding, len(fs))
	copy(out, fs)
	for i, f := range out {
		if f.Severity == finding.Warn && (f.Rule == "plan.uncovered" && f.Check == UncoveredCheck || f.Rule == "plan.unsourced" && f.Check == DeclaredCheck) {
			out[i].Severity = finding.Fail
			out[i].Message += " (-strict)"
		}
	}
	return out
}
