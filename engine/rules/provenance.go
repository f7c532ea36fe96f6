package rules

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/runconf"
)

func init() {
	Register(Rule{
		Name:  "provenance",
		Doc:   "script, binary and prompt hashes match the files; mtimes run build → runner edit → runs → JSON; run durations fit that window; carried-over runs are reported as such",
		Check: checkProvenance,
	})
}

// Roles of the provenance files that are built before the runner is edited.
var buildRoles = []string{"patch", "moe_metal", "route_parity", "strata_window_cli"}

// RunnerRole is the provenance role of the validation runner script.
const RunnerRole = "runner"

func checkProvenance(c *Context) ([]finding.Finding, error) {
	s := c.Snap
	if s == nil {
		return nil, fmt.Errorf("provenance: no snapshot")
	}
	var out []finding.Finding
	out = append(out, provenanceHashes(s)...)
	out = append(out, provenanceOrder(s)...)
	out = append(out, carriedOver(s)...)
	return out, nil
}

// provenanceHashes checks every provenance record's sha256 and size against
// the file on disk: one finding per mismatch, one pass for all that match.
func provenanceHashes(s *archive.Snapshot) []finding.Finding {
	resultsFile := s.ResultsFile
	var out []finding.Finding
	nFiles, nPrompts := 0, 0
	for _, group := range []struct {
		kind string
		list []*archive.ProvFile
		n    *int
	}{{"script/binary", s.Provenance.Files, &nFiles}, {"prompt", s.Provenance.Prompts, &nPrompts}} {
		for _, p := range group.list {
			b, err := s.ReadFile(p.Path)
			src := fmt.Sprintf("%s line %d (%s)", resultsFile, p.Line, p.JSONPath)
			fd := finding.Finding{Rule: "provenance", ID: "F40", Severity: finding.Fail, File: p.Path,
				Quote: "sha256 " + runconf.ShortHash(p.SHA256), Source: src}
			switch {
			case err != nil:
				fd.Message = fmt.Sprintf("%s file %s in the provenance record cannot be read: %v", group.kind, p.Path, err)
			case runconf.SHA256(b) != p.SHA256:
				fd.Raw = "sha256 " + runconf.ShortHash(runconf.SHA256(b))
				fd.Message = fmt.Sprintf("%s %s: sha256 on disk %s, provenance record %s", group.kind, p.Path, runconf.ShortHash(runconf.SHA256(b)), runconf.ShortHash(p.SHA256))
			case int64(len(b)) != p.Bytes:
				fd.Raw = num.Format(float64(len(b)), 0) + " bytes"
				fd.Message = fmt.Sprintf("%s %s: %s bytes on disk, provenance record %s", group.kind, p.Path, num.Format(float64(len(b)), 0), num.Format(float64(p.Bytes), 0))
			default:
				*group.n++
				continue
			}
			out = append(out, fd)
		}
	}
	out = append(out, finding.Finding{Rule: "provenance", ID: "F40", File: resultsFile,
		Quote:  "provenance.files, provenance.prompts",
		Raw:    fmt.Sprintf("%d of %d script/binary and %d of %d prompt sha256s match", nFiles, len(s.Provenance.Files), nPrompts, len(s.Provenance.Prompts)),
		Source: "files on disk", Severity: finding.Pass,
		Message: fmt.Sprintf("%d script/binary and %d prompt sha256s match the files on disk", nFiles, nPrompts)})
	if nFiles+nPrompts < len(s.Provenance.Files)+len(s.Provenance.Prompts) {
		out[len(out)-1].Severity = finding.Fail
		out[len(out)-1].Message = fmt.Sprintf("only %d of %d script/binary and %d of %d prompt sha256s match the files on disk",
			nFiles, len(s.Provenance.Files), nPrompts, len(s.Provenance.Prompts))
	}
	return out
}

// stamp is one file's mtime in the order check.
type stamp struct {
	what string
	path string
	t    time.Time
	text string
}

// provenanceOrder checks build → runner edit → runs → JSON: every build
// file's mtime before the runner's, the runner's before the JSON's (and
// its generated_at_utc), the recorded mtimes equal to machine/mtimes.json,
// and the re-run durations fitting between the runner's mtime (or the last
// build, whichever is later) and generated_at_utc.
func provenanceOrder(s *archive.Snapshot) []finding.Finding {
	resultsFile := s.ResultsFile
	mtimesFile := s.MtimesFile
	var out []finding.Finding
	fail := func(file, quote, raw, msg string) {
		out = append(out, finding.Finding{Rule: "provenance", ID: "F40", Severity: finding.Fail, File: file, Quote: quote, Raw: raw,
			Source: mtimesFile + ", " + resultsFile, Message: msg})
	}
	mtime := func(p *archive.ProvFile) stamp {
		st := stamp{what: p.Role, path: p.Path, t: p.Mtime, text: p.MtimeText}
		if m, ok := s.Mtimes[p.Path]; ok {
			if !m.Time.Equal(p.Mtime) {
				fail(p.Path, "mtime_local "+p.MtimeText, "stat "+m.Text,
					fmt.Sprintf("%s: provenance records mtime %s, the file's mtime is %s", p.Path, p.MtimeText, m.Text))
			}
			st.t, st.text = m.Time, m.Text
		}
		return st
	}
	var builds []stamp
	var runner *stamp
	for _, p := range s.Provenance.Files {
		st := mtime(p)
		if p.Role == RunnerRole {
			runner = &st
			continue
		}
		for _, r := range buildRoles {
			if p.Role == r {
				builds = append(builds, st)
			}
		}
	}
	if runner == nil || len(builds) == 0 {
		fail(resultsFile, "provenance.files", "", "provenance has no runner or no build files to order")
		return out
	}
	sort.SliceStable(builds, func(i, j int) bool { return builds[i].t.Before(builds[j].t) })
	last := builds[len(builds)-1]
	jsonM, hasJSON := s.Mtimes[resultsFile]
	gen := s.GeneratedAtUTC

	order := fmt.Sprintf("build %s … %s, runner %s", short(builds[0].text), short(last.text), short(runner.text))
	if hasJSON {
		order += ", JSON " + short(jsonM.Text)
	}
	order += fmt.Sprintf(", generated_at_utc %s", s.GeneratedAt.Text)
	ok := true
	if !last.t.Before(runner.t) {
		ok = false
		fail(runner.path, "runner mtime "+runner.text, last.path+" "+last.text,
			fmt.Sprintf("the runner (%s) was edited before the last build (%s %s): mtimes out of order (%s)", runner.text, last.path, last.text, order))
	}
	end := gen
	if hasJSON {
		if !runner.t.Before(jsonM.Time) {
			ok = false
			fail(resultsFile, "JSON mtime "+jsonM.Text, "runner "+runner.text,
				fmt.Sprintf("the results JSON (%s) is not newer than the runner (%s): mtimes out of order (%s)", jsonM.Text, runner.text, order))
		}
		if d := jsonM.Time.Sub(gen); math.Abs(d.Seconds()) > 1 {
			ok = false
			fail(resultsFile, "generated_at_utc "+s.GeneratedAt.Text, "JSON mtime "+jsonM.Text,
				fmt.Sprintf("generated_at_utc %s and the JSON's mtime %s differ by %.2f s", s.GeneratedAt.Text, jsonM.Text, d.Seconds()))
		}
	}
	if !runner.t.Before(gen) {
		ok = false
		fail(resultsFile, "generated_at_utc "+s.GeneratedAt.Text, "runner "+runner.text,
			fmt.Sprintf("generated_at_utc %s is not after the runner's mtime %s", s.GeneratedAt.Text, runner.text))
	}
	if ok {
		out = append(out, finding.Finding{Severity: finding.Pass, Rule: "provenance", ID: "F40", File: mtimesFile, Quote: "mtimes",
			Raw: order, Source: mtimesFile + ", " + resultsFile,
			Message: "mtimes in build → runner edit → JSON order: " + order})
	}

	// The re-run runs must fit between the later of the runner edit and the
	// last build, and generated_at_utc.
	start := runner.t
	if last.t.After(start) {
		start = last.t
	}
	sum := 0.0
	n := 0
	for _, r := range s.Runs {
		if !r.CarriedOver {
			sum += r.DurationS
			n++
		}
	}
	window := end.Sub(start).Seconds()
	fd := finding.Finding{Severity: finding.Pass, Rule: "provenance", ID: "F40", File: resultsFile,
		Quote:  fmt.Sprintf("%d re-run runs, duration_s sum %s s", n, num.Format(sum, 2)),
		Raw:    fmt.Sprintf("window %s s (runner %s → generated_at_utc %s)", num.Format(window, 2), short(runner.text), s.GeneratedAt.Text),
		Source: resultsFile + ": runs[].duration_s"}
	if sum > window {
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("the %d re-run runs take %s s, more than the %s s between the runner's mtime and generated_at_utc", n, num.Format(sum, 2), num.Format(window, 2))
	} else {
		fd.Message = fmt.Sprintf("the %d re-run runs take %s s and fit the %s s between the runner's mtime and generated_at_utc (%s s left for vm_stat/iostat and launch)",
			n, num.Format(sum, 2), num.Format(window, 2), num.Format(window-sum, 2))
	}
	out = append(out, fd)
	return out
}

// carriedOver reports the runs archived with env: null: carried over from
// an earlier archive, not re-run.
func carriedOver(s *archive.Snapshot) []finding.Finding {
	resultsFile := s.ResultsFile
	var runs []*archive.Run
	for _, r := range s.Runs {
		if r.CarriedOver {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return nil
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	return []finding.Finding{{Rule: "provenance", ID: "F39", Severity: finding.Warn, File: resultsFile, Line: runs[0].Line,
		Quote: "env: null", Raw: strings.Join(names, ", "), Source: resultsFile + ": runs[].env",
		Message: fmt.Sprintf("%d runs are carried over (env: null), not re-run in this round: %s", len(runs), strings.Join(names, ", "))}}
}

// short trims an RFC 3339 time to its clock part for messages.
func short(t string) string {
	if i := strings.IndexByte(t, 'T'); i >= 0 {
		t = t[i+1:]
	}
	return t
}
