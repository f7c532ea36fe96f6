package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/report"
	plangate "github.com/strataspec/strataspec/engine/rules/plan"
	"github.com/strataspec/strataspec/tools/strataspec/suggest"
)

// gateFlags are the plan gate's flags: -suggest prints claims rows for the
// numbers the gate cannot source; -strict fails the numbers it does not
// gate (plan.uncovered's warnings).
type gateFlags struct {
	suggest, strict *bool
}

func addGateFlags(fs *flag.FlagSet) gateFlags {
	return gateFlags{
		suggest: fs.Bool("suggest", false, "print, for every number the plan gate cannot source, the PLAN.claims rows that would bind it (never writes PLAN.claims)"),
		strict:  fs.Bool("strict", false, "fail, not warn, on measurement-like numbers outside the claim sections (rule plan.uncovered)"),
	}
}

// strictReport returns the report with plan.uncovered's warnings about
// ungated numbers made failures (plan.Strict), the summary and verdict
// recomputed.
func strictReport(rep *report.Report) *report.Report {
	out := report.NewWithRules(rep.Root, rep.Rules, plangate.Strict(rep.Findings))
	out.Info = rep.Info
	return out
}

// runSuggest prints the suggestions for the snapshot at root: for each
// quote, a comment naming its lines and why it is not sourced, then its
// row when its source is unique, its candidate rows (commented: choose
// one) when several sources print it, or its nearest raw values when none
// does. A range whose row ranges over a set gets only sets holding every
// run of it: never a narrower set that would hide the runs it leaves out. Only rows with a unique source are left uncommented, so that the
// output appended to PLAN.claims binds exactly those.
// With format "json" it prints the same as one JSON object
// (suggestionsJSON); any other format but text is an error.
// A bad claims row (badRows) is named on stderr, and in the output, and
// the exit is the audit's for it, 1; a table that does not parse gets its
// errors and no suggestion.
func runSuggest(stdout, stderr io.Writer, root, format string) int {
	if format != "text" && format != "json" {
		fmt.Fprintf(stderr, "strataspec: -suggest prints text or json, not %q\n", format)
		return 2
	}
	ctx, err := audit.Load(root)
	if err != nil {
		fail(stderr, err)
		return 2
	}
	bad, pc, err := badRows(ctx)
	if err != nil {
		fail(stderr, err)
		return 2
	}
	if pc == nil && len(bad) == 0 {
		// no table to suggest against: no plan, or no claims table
		_, err = ctx.PlanCheck()
		if err == nil {
			err = fmt.Errorf("%s: not in the snapshot: declare its claim sections first (see the README, \"Adopting the gate\")", ctx.Snap.Spec.Claims)
		}
		fail(stderr, err)
		return 2
	}
	var ss []suggest.Suggestion
	if pc != nil {
		ss = suggest.Rows(pc.Table, pc.Env, pc.Result)
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(suggestionsJSON(ctx.Snap.Spec.Plan, ss, bad)); err != nil {
			fail(stderr, err)
			return 2
		}
	} else if pc == nil {
		// the table does not parse: nothing is checked against it until
		// its bad rows are corrected; say so in comments, as the rest
		for _, b := range bad {
			fmt.Fprintf(stdout, "# %s\n", report.Clean(b))
		}
		fmt.Fprintf(stdout, "# %s does not parse: correct the rows above, then -suggest again\n", ctx.Snap.Spec.Claims)
	} else {
		writeSuggestions(stdout, ctx.Snap.Spec.Plan, ss)
	}
	return reportBadRows(stderr, bad)
}

// suggestionJSON is one quote of -suggest -format json: where it is, why
// it is not sourced, its candidate rows (unique: one row to append as it
// is), and per part of the quote its candidate sources or nearest raw
// values.
type suggestionJSON struct {
	Plan   string     `json:"plan"`
	Lines  []int      `json:"lines"`
	Place  string     `json:"place"`
	Quote  string     `json:"quote"`
	Why    string     `json:"why"`
	Unique bool       `json:"unique"`
	Rows   []string   `json:"rows"`
	Parts  []partJSON `json:"parts,omitempty"`
	// KeepRuns is the number of runs of the row's set no narrower set may
	// hide (a range no declared set gives); 0 otherwise.
	KeepRuns int `json:"keep_runs,omitempty"`
}

type partJSON struct {
	Quote      string   `json:"quote"`
	Candidates []string `json:"candidates"`
	Nearest    string   `json:"nearest,omitempty"`
}

// suggestionsJSON is the -suggest -format json document.
func suggestionsJSON(planFile string, ss []suggest.Suggestion, bad []string) any {
	out := struct {
		Suggestions []suggestionJSON `json:"suggestions"`
		Quotes      int              `json:"quotes"`
		Unique      int              `json:"unique"`
		// BadRows are the claims rows the audit fails as plan.stale's,
		// "PLAN.claims:LINE: what is wrong" (badRows).
		BadRows []string `json:"bad_rows,omitempty"`
	}{Suggestions: []suggestionJSON{}, Quotes: len(ss), BadRows: bad}
	for _, s := range ss {
		sj := suggestionJSON{Plan: planFile, Lines: s.Lines, Place: s.Place, Quote: s.Quote, Why: s.Why,
			Unique: s.Unique() && !literalSource(s.Rows[0]), Rows: append([]string{}, s.Rows...), KeepRuns: len(s.Keep)}
		if sj.Unique {
			out.Unique++
		}
		if len(s.Rows) == 0 && len(s.Keep) == 0 {
			for i, c := range s.Parts {
				pj := partJSON{Quote: strings.TrimSpace(s.Token.Parts[i].Text + " " + s.Token.Units[i]), Candidates: append([]string{}, c...)}
				if len(c) == 0 {
					pj.Nearest = s.NearestText(i)
				}
				sj.Parts = append(sj.Parts, pj)
			}
		}
		out.Suggestions = append(out.Suggestions, sj)
	}
	return out
}

// literalSource reports whether a claims row's source (its third field)
// names no run metric and no set: a number written out, which sources
// nothing.
func literalSource(row string) bool {
	parts := strings.Split(row, " | ")
	if len(parts) < 3 {
		return false
	}
	return !strings.ContainsAny(parts[2], ":@")
}

func writeSuggestions(w io.Writer, planFile string, ss []suggest.Suggestion) {
	if len(ss) == 0 {
		fmt.Fprintf(w, "# every number of the claim sections is bound and sourced: nothing to suggest\n")
		return
	}
	unique := 0
	for _, s := range ss {
		var lines []string
		for _, l := range s.Lines {
			lines = append(lines, fmt.Sprint(l))
		}
		fmt.Fprintf(w, "# %s:%s %s %q: %s\n", report.Clean(planFile), strings.Join(lines, ","), report.Clean(s.Place), s.Quote, report.Clean(s.Why))
		escaped := false
		for i, r := range s.Rows {
			s.Rows[i] = report.Clean(r)
			escaped = escaped || s.Rows[i] != r
		}
		switch {
		case s.Unique() && escaped:
			// escaped, it is not the row the plan needs: shown, not offered
			fmt.Fprintf(w, "#   its row holds characters printed escaped; write it by hand:\n#   %s\n", s.Rows[0])
		case s.Unique() && literalSource(s.Rows[0]):
			// The plan's own number as its source binds nothing: appended
			// as a row, it would turn an unsourced number into a pass.
			fmt.Fprintf(w, "#   its only source is a literal, which binds nothing; bind it to a run metric or derivation:\n#   %s\n", s.Rows[0])
		case s.Unique():
			unique++
			fmt.Fprintln(w, s.Rows[0])
		case len(s.Rows) > 1:
			fmt.Fprintf(w, "#   %d sources print it; choose one:\n", len(s.Rows))
			for _, r := range s.Rows {
				fmt.Fprintf(w, "#   %s\n", r)
			}
		case len(s.Keep) > 0:
			// a narrower set would bind the quote and hide the runs it
			// leaves out: none is suggested
			fmt.Fprintf(w, "#   no declared set holding the %d runs of the row's set gives this range: quote the range over all of them, or name a caveat (caveat=ID) the plan states for the runs it leaves out\n", len(s.Keep))
		default:
			for i, c := range s.Parts {
				q := strings.TrimSpace(s.Token.Parts[i].Text + " " + s.Token.Units[i])
				switch {
				case len(c) == 0:
					fmt.Fprintf(w, "#   %s: no run metric or derivation over two metrics prints it; %s\n", q, s.NearestText(i))
				default:
					fmt.Fprintf(w, "#   %s: %s\n", q, strings.Join(c, " | "))
				}
			}
		}
	}
	fmt.Fprintf(w, "# %d quotes, %d with a unique source (the uncommented rows)\n", len(ss), unique)
}
