// Package report formats an audit's findings: a text or Markdown report a
// person reads in a minute, JSON, GitHub workflow annotations, SARIF 2.1.0,
// JUnit XML and a self-contained HTML page with charts. It only formats:
// findings are computed by rules, and the one file a report compares with (an
// earlier JSON report, -previous) is read by the caller and passed in.
package report

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

// Verdicts.
const (
	VerdictPass      = "PASS"
	VerdictFalsifier = "FALSIFIER HIT"
)

// Report is the result of one audit.
type Report struct {
	Verdict  string            `json:"verdict"`
	Root     string            `json:"root"`
	Findings []finding.Finding `json:"findings"`
	Summary  Summary           `json:"summary"`
	// Previous compares the findings with an earlier report (-previous);
	// nil when there is none.
	Previous *Comparison `json:"previous,omitempty"`
	// Info lists inputs the loader kept but no rule used (unknown keys,
	// runs without a tail), each once: never a failure.
	Info []string `json:"info,omitempty"`
	// Rules describes every rule that was selected, in order: SARIF's rule
	// table, families, default fixes and the "did not apply" list come
	// from it.
	Rules []RuleInfo `json:"-"`
}

// RuleInfo is what a report knows about a rule besides its findings.
type RuleInfo struct {
	Name    string  // rule id, e.g. "plan.unsourced"
	Doc     string  // one line: what the rule checks
	Section Section // where the report lists its fails; zero for "other"
	Fix     string  // default "what to fix" for its findings; "" for the report's table
	// Applied is false for a rule whose input the snapshot lacks; Reason
	// says why.
	Applied bool
	Reason  string
	// Unconfigured marks a rule that did not apply for want of settings
	// the checkout's spec file does not give (a strata rule in a folder of
	// llama.cpp logs): the text report lists such rules on one line.
	Unconfigured bool
}

// NotApplied is a rule that did not apply to the snapshot, and why.
type NotApplied struct {
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	// Unconfigured is RuleInfo.Unconfigured (not in the JSON report, which
	// gives every rule's reason).
	Unconfigured bool `json:"-"`
}

// Summary counts findings by severity and lists the rules that ran.
type Summary struct {
	Pass  int      `json:"pass"`
	Warn  int      `json:"warn"`
	Fail  int      `json:"fail"`
	Rules []string `json:"rules"`
	// FailIDs lists the audit finding ids (F01–F42) with a fail finding, sorted.
	FailIDs []string `json:"fail_ids"`
	// WarnIDs lists the audit finding ids with a warn finding and no fail, sorted.
	WarnIDs []string `json:"warn_ids"`
	// Applied lists the selected rules that checked something.
	Applied []string `json:"applied"`
	// NotApplied lists the selected rules whose input the snapshot lacks.
	NotApplied []NotApplied `json:"not_applied,omitempty"`
}

// New builds a report from the findings of the named rules, all taken as
// applied. Use NewWithRules to pass rule metadata.
func New(root string, ruleNames []string, findings []finding.Finding) *Report {
	infos := make([]RuleInfo, 0, len(ruleNames))
	for _, n := range ruleNames {
		infos = append(infos, RuleInfo{Name: n, Applied: true})
	}
	return NewWithRules(root, infos, findings)
}

// NoFindingsReason is the reason given for a rule that did not apply and
// did not say why.
const NoFindingsReason = "no findings: nothing in the snapshot for it to check"

// NewWithRules builds a report from the findings of the described rules.
func NewWithRules(root string, rules []RuleInfo, findings []finding.Finding) *Report {
	r := &Report{Root: root, Findings: findings, Rules: rules}
	if r.Findings == nil {
		r.Findings = []finding.Finding{}
	}
	r.Summary.Rules, r.Summary.Applied = []string{}, []string{}
	for i := range r.Rules {
		ri := &r.Rules[i]
		r.Summary.Rules = append(r.Summary.Rules, ri.Name)
		if !ri.Applied && ri.Reason == "" {
			ri.Reason = NoFindingsReason
		}
		if ri.Applied {
			r.Summary.Applied = append(r.Summary.Applied, ri.Name)
		} else {
			r.Summary.NotApplied = append(r.Summary.NotApplied, NotApplied{Rule: ri.Name, Reason: ri.Reason, Unconfigured: ri.Unconfigured})
		}
	}
	fails, warns := map[string]bool{}, map[string]bool{}
	for _, f := range findings {
		switch f.Severity {
		case finding.Pass:
			r.Summary.Pass++
		case finding.Warn:
			r.Summary.Warn++
			if f.ID != "" {
				warns[f.ID] = true
			}
		case finding.Fail:
			r.Summary.Fail++
			if f.ID != "" {
				fails[f.ID] = true
			}
		}
	}
	for id := range fails {
		delete(warns, id)
	}
	r.Summary.FailIDs = sortedKeys(fails)
	r.Summary.WarnIDs = sortedKeys(warns)
	r.Verdict = VerdictPass
	if r.Summary.Fail > 0 {
		r.Verdict = VerdictFalsifier
	}
	return r
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Failed reports whether any finding is a fail.
func (r *Report) Failed() bool { return r.Summary.Fail > 0 }

// rule returns the metadata of a rule, or a RuleInfo with only its name
// (its section "other") for a rule the report was not told about.
func (r *Report) rule(name string) RuleInfo {
	for _, ri := range r.Rules {
		if ri.Name == name {
			return ri
		}
	}
	return RuleInfo{Name: name, Applied: true}
}

// Options change how a report is written.
type Options struct {
	// Verbose lists every finding, pass findings included, in the text,
	// Markdown and HTML formats (otherwise passes are counted per rule).
	Verbose bool
	// PathPrefix is the path from the repository root to the snapshot root,
	// prepended to finding files in the github, sarif and junit formats.
	// "" means the report's Root as given.
	PathPrefix string
	// ToolVersion is the version SARIF names; "" for "dev".
	ToolVersion string
	// Width is the text report's line width in columns: lines wrap at word
	// boundaries, never cutting a word. 0 is DefaultTextWidth.
	Width int
	// MarkdownLimit is the most a Markdown report may hold, in characters
	// (runes), or in bytes with MarkdownLimitBytes: a report over it says so
	// at the top and drops the passes first, then the list of every
	// finding, then the info lines. 0 is DefaultMarkdownLimit; a negative
	// limit is none.
	MarkdownLimit      int
	MarkdownLimitBytes bool
}

// DefaultMarkdownLimit is GitHub's limit on a comment, 65,536 characters:
// a Markdown report meant for a pull request fits in one.
const DefaultMarkdownLimit = 65536

// Formats returns the names Write accepts.
func Formats() []string {
	return []string{"text", "markdown", "json", "github", "sarif", "junit", "html"}
}

// Write writes the report in the named format with default options.
func (r *Report) Write(w io.Writer, format string) error {
	return r.WriteOptions(w, format, Options{})
}

// WriteOptions writes the report in the named format.
func (r *Report) WriteOptions(w io.Writer, format string, o Options) error {
	switch format {
	case "text":
		return r.writeText(w, o)
	case "markdown":
		return r.writeMarkdown(w, o)
	case "json":
		return writeJSON(w, r)
	case "github":
		return r.writeGitHub(w, o)
	case "sarif":
		return r.writeSARIF(w, o)
	case "junit":
		return r.writeJUnit(w, o)
	case "html":
		return r.writeHTML(w, o)
	}
	return fmt.Errorf("report: unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
}

// place prints a finding's file and line: "PLAN.md:578", or "-" for none.
func place(f finding.Finding) string {
	if f.File == "" {
		return "-"
	}
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

// location is where a finding points in the repository: the file's path
// from the repository root (slash-separated), the line in that file (0 for
// none) and, for a finding inside an archived tail, the place inside the
// file ("runs[3].output_tail line 12") that a line number cannot say.
type location struct {
	URI   string
	Line  int
	Inner string
}

// locate returns a finding's location under prefix, the path from the
// repository root to the snapshot root. A finding inside an archived tail
// names "file: JSON path" and a line of the tail, not of the file: the
// location is the file, and the place goes into Inner.
func locate(prefix string, f finding.Finding) (location, bool) {
	if f.File == "" {
		return location{}, false
	}
	file, inner, nested := strings.Cut(f.File, ": ")
	loc := location{URI: path.Clean(path.Join(slashPath(prefix), slashPath(file)))}
	switch {
	case nested && f.Line > 0:
		loc.Inner = fmt.Sprintf("%s line %d", inner, f.Line)
	case nested:
		loc.Inner = inner
	default:
		loc.Line = f.Line
	}
	return loc, true
}

// prefix returns the path from the repository root to the snapshot root.
func (r *Report) prefix(o Options) string {
	if o.PathPrefix != "" {
		return o.PathPrefix
	}
	return r.Root
}

func slashPath(p string) string { return filepath.ToSlash(p) }

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
