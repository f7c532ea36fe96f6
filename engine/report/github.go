package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/strataspec/strataspec/engine/finding"
)

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

// writeGitHub prints one workflow annotation per fail (::error) and warn
// (::warning) finding, with the file's path from the repository root, so a
// pull request shows each finding on its line. Pass findings print nothing.
func (r *Report) writeGitHub(w io.Writer, o Options) error {
	ew := &errWriter{w: w}
	prefix := r.prefix(o)
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
