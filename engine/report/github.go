package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// GitHubAnnotationCap is how many annotations of one kind (::error,
// ::warning) GitHub shows for a step; the rest are dropped without a word,
// so the report prints at most this many of each and one ::notice that
// counts the others.
const GitHubAnnotationCap = 10

// ghEscapeData escapes an annotation message as the workflow command syntax
// requires, after clean has written control characters (ESC, which the
// Actions log would render as a terminal sequence), bidirectional overrides
// and line breaks taken from the snapshot as visible escapes.
func ghEscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(clean(s))
}

// ghEscapeProperty escapes an annotation property value the same way.
func ghEscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(clean(s))
}

// ghOrder returns the fail and warn findings in the order annotations show
// them: fails before warnings; among the fails the numbers the plan quotes
// that no run printed (plan.unsourced, then plan.range), then the other
// fails in the report's section order; warnings in section order.
func (r *Report) ghOrder() (fails, warns []finding.Finding) {
	rank := func(f finding.Finding) int {
		switch {
		case f.Rule == "plan.uncovered" && f.Check == "adopt": // a plan without claims
			return 0
		case f.Rule == "plan.unsourced":
			return 1
		case f.Rule == "plan.range":
			return 2
		}
		return 3 + r.rule(f.Rule).Section.rank()
	}
	for _, f := range r.Findings {
		switch f.Severity {
		case finding.Fail:
			fails = append(fails, f)
		case finding.Warn:
			warns = append(warns, f)
		}
	}
	for _, fs := range [][]finding.Finding{fails, warns} {
		sort.SliceStable(fs, func(i, j int) bool { return rank(fs[i]) < rank(fs[j]) })
	}
	return fails, warns
}

// writeGitHub prints workflow annotations, so a pull request shows each
// finding on its line, with the file's path from the repository root: at
// most GitHubAnnotationCap ::error lines (fails, the unsourced numbers
// first) and as many ::warning lines, then one ::notice counting what was
// left out, then the verdict. Pass findings print nothing.
func (r *Report) writeGitHub(w io.Writer, o Options) error {
	ew := &errWriter{w: w}
	prefix := r.prefix(o)
	fails, warns := r.ghOrder()
	annotate := func(cmd string, f finding.Finding) {
		props := []string{}
		msgPrefix := ""
		if loc, ok := locate(prefix, f); ok {
			props = append(props, "file="+ghEscapeProperty(loc.URI))
			if loc.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", loc.Line))
			}
			if loc.Inner != "" {
				msgPrefix = loc.Inner + ": "
			}
		}
		props = append(props, "title="+ghEscapeProperty(f.Rule+idSuffix(f.ID)))
		ew.printf("::%s %s::%s\n", cmd, strings.Join(props, ","), ghEscapeData(msgPrefix+messageWithValues(f)))
	}
	for i, f := range fails {
		if i < GitHubAnnotationCap {
			annotate("error", f)
		}
	}
	for i, f := range warns {
		if i < GitHubAnnotationCap {
			annotate("warning", f)
		}
	}
	moreFails, moreWarns := max(len(fails)-GitHubAnnotationCap, 0), max(len(warns)-GitHubAnnotationCap, 0)
	if moreFails+moreWarns > 0 {
		ew.printf("::notice title=strataspec::%s\n", ghEscapeData(fmt.Sprintf(
			"%d more fail and %d more warn findings not annotated (GitHub shows %d errors and %d warnings per step); the job summary and -format text list every finding",
			moreFails, moreWarns, GitHubAnnotationCap, GitHubAnnotationCap)))
	}
	ew.printf("audit %s: %s — %d fail, %d warn, %d pass\n", ghEscapeData(r.Root), r.Verdict, r.Summary.Fail, r.Summary.Warn, r.Summary.Pass)
	return ew.err
}

func idSuffix(id string) string {
	if id == "" {
		return ""
	}
	return " " + id
}

// messageWithValues is a finding's message followed by its quote and raw
// values, for formats that have one message field.
func messageWithValues(f finding.Finding) string {
	msg := f.Message
	if f.Quote != "" {
		msg += " (quote: " + f.Quote + ")"
	}
	if f.Raw != "" {
		msg += " (raw: " + f.Raw + ")"
	}
	return msg
}
