// Package report formats an audit's findings as text, Markdown, JSON or
// GitHub workflow annotations. It only formats: findings are computed by rules.
package report

import (
	"encoding/json"
	"fmt"
	"io"
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
	// Info lists inputs the loader kept but no rule used (unknown keys,
	// runs without a tail), each once: never a failure.
	Info []string `json:"info,omitempty"`
}

// NotApplied is a rule that did not apply to the snapshot, and why.
type NotApplied struct {
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
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
	// NotApplied lists the selected rules whose input the snapshot lacks.
	NotApplied []NotApplied `json:"not_applied,omitempty"`
}

// New builds a report from the findings of the given rules, in rule order.
func New(root string, ruleNames []string, findings []finding.Finding) *Report {
	r := &Report{Root: root, Findings: findings, Summary: Summary{Rules: ruleNames}}
	if r.Findings == nil {
		r.Findings = []finding.Finding{}
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

// Formats returns the names Write accepts.
func Formats() []string { return []string{"text", "markdown", "json", "github"} }

// Write writes the report in the named format.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "text":
		return r.writeText(w)
	case "markdown":
		return r.writeMarkdown(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	case "github":
		return r.writeGitHub(w)
	}
	return fmt.Errorf("report: unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
}

func place(f finding.Finding) string {
	if f.File == "" {
		return "-"
	}
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

func (r *Report) writeText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("verdict: %s\nroot: %s\n", r.Verdict, r.Root)
	ew.printf("%d fail, %d warn, %d pass (rules: %s)\n", r.Summary.Fail, r.Summary.Warn, r.Summary.Pass, strings.Join(r.Summary.Rules, ", "))
	for _, sev := range []finding.Severity{finding.Fail, finding.Warn, finding.Pass} {
		for _, f := range r.Findings {
			if f.Severity != sev {
				continue
			}
			id := ""
			if f.ID != "" {
				id = " " + f.ID
			}
			ew.printf("\n%s %s%s  %s\n  %s\n", strings.ToUpper(f.Severity.String()), f.Rule, id, place(f), f.Message)
			if f.Quote != "" {
				ew.printf("  quote:  %s\n", f.Quote)
			}
			if f.Raw != "" {
				ew.printf("  raw:    %s\n", f.Raw)
			}
			if f.Source != "" {
				ew.printf("  source: %s\n", f.Source)
			}
		}
	}
	for _, n := range r.Summary.NotApplied {
		ew.printf("\nNOT APPLIED %s: %s\n", n.Rule, n.Reason)
	}
	for _, i := range r.Info {
		ew.printf("\ninfo: %s\n", i)
	}
	return ew.err
}

// mdCell escapes a table cell: pipes and newlines would break the row.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", "<br>")
}

func (r *Report) writeMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("# Audit of `%s`\n\nverdict: **%s** — %d fail, %d warn, %d pass\n\n", r.Root, r.Verdict, r.Summary.Fail, r.Summary.Warn, r.Summary.Pass)
	ew.printf("| severity | rule | id | where | quote | raw | source | message |\n|---|---|---|---|---|---|---|---|\n")
	for _, sev := range []finding.Severity{finding.Fail, finding.Warn, finding.Pass} {
		for _, f := range r.Findings {
			if f.Severity != sev {
				continue
			}
			ew.printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", f.Severity, f.Rule, f.ID, mdCell(place(f)),
				mdCell(f.Quote), mdCell(f.Raw), mdCell(f.Source), mdCell(f.Message))
		}
	}
	return ew.err
}

// ghEscapeData escapes an annotation message as the workflow command syntax requires.
func ghEscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghEscapeProperty escapes an annotation property value.
func ghEscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// writeGitHub prints one workflow annotation per fail (::error) and warn
// (::warning) finding, with the file relative to the working directory, so a
// pull request shows each finding on its line. Pass findings print nothing.
func (r *Report) writeGitHub(w io.Writer) error {
	ew := &errWriter{w: w}
	for _, f := range r.Findings {
		cmd := ""
		switch f.Severity {
		case finding.Fail:
			cmd = "error"
		case finding.Warn:
			cmd = "warning"
		default:
			continue
		}
		props := []string{}
		msgPrefix := ""
		if f.File != "" {
			// A finding inside an archived tail names "file: JSON path" and a
			// line of the tail, not of the file: annotate the file and keep
			// the place in the message.
			file, inner, nested := strings.Cut(f.File, ": ")
			props = append(props, "file="+ghEscapeProperty(filepath.ToSlash(filepath.Join(r.Root, file))))
			switch {
			case nested && f.Line > 0:
				msgPrefix = fmt.Sprintf("%s line %d: ", inner, f.Line)
			case nested:
				msgPrefix = inner + ": "
			case f.Line > 0:
				props = append(props, fmt.Sprintf("line=%d", f.Line))
			}
		}
		title := f.Rule
		if f.ID != "" {
			title += " " + f.ID
		}
		props = append(props, "title="+ghEscapeProperty(title))
		msg := msgPrefix + f.Message
		if f.Quote != "" {
			msg += " (quote: " + f.Quote + ")"
		}
		if f.Raw != "" {
			msg += " (raw: " + f.Raw + ")"
		}
		ew.printf("::%s %s::%s\n", cmd, strings.Join(props, ","), ghEscapeData(msg))
	}
	ew.printf("audit %s: %s — %d fail, %d warn, %d pass\n", r.Root, r.Verdict, r.Summary.Fail, r.Summary.Warn, r.Summary.Pass)
	return ew.err
}

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
