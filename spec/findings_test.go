package spec

import (
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/report"
)

// seedFindings is the table of docs/findings.md: every finding of
// the v3 audit, with the severity its rule must report on the snapshot as
// audited (m5-v3) and on the fixed one (m5). A finding id may be reported by
// several rules; the worst severity counts.
var seedFindings = []struct {
	id      string
	v3, fix finding.Severity
}{
	{"F01", pass, pass}, {"F02", pass, pass}, {"F03", pass, pass}, {"F04", pass, pass},
	{"F05", pass, pass}, {"F06", pass, pass}, {"F07", pass, pass}, {"F08", pass, pass},
	{"F09", fail, pass}, {"F10", fail, pass}, {"F11", fail, pass}, {"F12", fail, pass},
	{"F13", fail, pass}, {"F14", fail, pass}, {"F15", fail, pass}, {"F16", fail, pass},
	{"F17", fail, pass}, {"F18", fail, pass}, {"F19", fail, pass}, {"F20", pass, pass},
	{"F21", pass, pass}, {"F22", pass, pass}, {"F23", warn, pass}, {"F24", warn, warn},
	{"F25", warn, pass}, {"F26", fail, pass}, {"F27", pass, pass}, {"F28", fail, pass},
	{"F29", fail, pass}, {"F30", warn, pass}, {"F31", pass, pass}, {"F32", pass, pass},
	{"F33", warn, pass}, {"F34", warn, pass}, {"F35", warn, pass}, {"F36", warn, warn},
	{"F37", fail, pass}, {"F38", fail, pass}, {"F39", warn, warn}, {"F40", pass, pass},
	{"F41", pass, pass}, {"F42", fail, pass},
}

const (
	pass = finding.Pass
	warn = finding.Warn
	fail = finding.Fail
)

// worstByID returns, for every finding id in the report, its worst severity.
func worstByID(r *report.Report) map[string]finding.Severity {
	worst := map[string]finding.Severity{}
	for _, f := range r.Findings {
		if f.ID == "" {
			continue
		}
		if s, ok := worst[f.ID]; !ok || f.Severity > s {
			worst[f.ID] = f.Severity
		}
	}
	return worst
}

// TestSeedFindings runs every rule over both snapshots and checks that the
// report reproduces each of the audit's findings with the severity
// docs/findings.md gives: the v3 report is the audit, made executable.
func TestSeedFindings(t *testing.T) {
	for _, snap := range []struct {
		root    string
		verdict string
		want    func(i int) finding.Severity
	}{
		{"../fixtures/m5-v3", report.VerdictFalsifier, func(i int) finding.Severity { return seedFindings[i].v3 }},
		{"../fixtures/m5", report.VerdictPass, func(i int) finding.Severity { return seedFindings[i].fix }},
	} {
		t.Run(snap.root[3:], func(t *testing.T) {
			rep, err := audit.Audit(snap.root, "")
			if err != nil {
				t.Fatalf("audit.Audit(%s) = %v", snap.root, err)
			}
			if rep.Verdict != snap.verdict {
				t.Errorf("audit(%s) verdict = %q; want %q", snap.root, rep.Verdict, snap.verdict)
			}
			worst := worstByID(rep)
			for i, sf := range seedFindings {
				got, ok := worst[sf.id]
				if !ok {
					t.Errorf("audit(%s): %s not reported; want %v", snap.root, sf.id, snap.want(i))
					continue
				}
				if got != snap.want(i) {
					t.Errorf("audit(%s): %s = %v; want %v", snap.root, sf.id, got, snap.want(i))
				}
			}
		})
	}
}
