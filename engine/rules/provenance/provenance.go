// Package provenance holds the provenance rule: the runner's provenance
// record holds for the files (hashes), their mtimes and the runs'
// durations, and runs carried over from an earlier snapshot are reported.
//
// Paths in the record are data: a path outside the snapshot is reported
// and never opened.
package provenance

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/runconf"
	"github.com/strataspec/strataspec/engine/tail"
)

// Provenance checks the runner's record of what it ran against the
// snapshot: every recorded file's sha256 and size against the file, the
// mtimes in build → runner edit → results order, the re-run runs' durations
// inside that window and against the work their tails log, and the runs
// carried over from an earlier archive.
var Provenance = &analysis.Analyzer{
	Name: "provenance",
	Doc: "script, binary and prompt hashes match the files; mtimes run build → runner edit → runs → JSON; run durations fit " +
		"that window and cover the work their tails log; carried-over runs are reported as such",
	Fix:      "re-run the runs with the files as they are now and record each run's real duration, so that hashes, mtimes and durations agree",
	Requires: []*analysis.Analyzer{facts.Files.Analyzer, facts.RunMetrics.Analyzer},
	Run:      runProvenance,
}

// ProvenanceSettings are the rule's settings in the checkout's spec
// ("rules": {"provenance": {…}}): the provenance roles of the runner and
// of the files built before it was last edited. Without them the mtime
// order is not checked.
type ProvenanceSettings struct {
	Runner string   `json:"runner"`
	Builds []string `json:"builds"`
}

func runProvenance(p *analysis.Pass) (any, error) {
	snap := p.Snap
	spec := p.Spec
	var cfg ProvenanceSettings
	if _, err := spec.Rule(p.Analyzer.Name, &cfg); err != nil {
		return nil, err
	}
	prov := snap.Provenance
	recorded := slices.ContainsFunc(snap.Runs, func(r *archive.Run) bool { return !r.Duration.Null || r.CarriedOver })
	if len(prov.Files)+len(prov.Prompts) == 0 && !recorded {
		return nil, analysis.NotApplicable("the snapshot has no provenance record, no run with a recorded duration and no carried-over run")
	}
	files := facts.Files.Of(p)
	ms := facts.RunMetrics.Of(p)
	if len(prov.Files)+len(prov.Prompts) > 0 {
		provenanceHashes(p, snap, files)
		if cfg.Runner != "" {
			provenanceOrder(p, snap, cfg)
		}
	}
	durations(p, snap, ms)
	carriedOver(p, snap)
	return nil, nil
}

// provenanceHashes checks every provenance record's sha256 and size against
// the file on disk: one finding per mismatch, one for all that match.
func provenanceHashes(p *analysis.Pass, s *archive.Snapshot, files facts.RecordedFiles) {
	resultsFile := s.ProvenanceFile
	nFiles, nPrompts := 0, 0
	for _, group := range []struct {
		kind string
		list []*archive.ProvFile
		n    *int
	}{{"script/binary", s.Provenance.Files, &nFiles}, {"prompt", s.Provenance.Prompts, &nPrompts}} {
		for _, pf := range group.list {
			f := files[pf.Path]
			fd := finding.Finding{Severity: finding.Fail, Check: "hashes", File: pf.Path,
				Quote: "sha256 " + runconf.ShortHash(pf.SHA256), Source: fmt.Sprintf("%s line %d (%s)", resultsFile, pf.Line, pf.JSONPath)}
			switch {
			case f.Outside:
				fd.Raw = "not read"
				fd.Message = fmt.Sprintf("%s file %s in the provenance record is outside the snapshot: not archived, not read", group.kind, pf.Path)
			case !f.Read():
				fd.Message = fmt.Sprintf("%s file %s in the provenance record is not in the snapshot", group.kind, pf.Path)
			case f.SHA256 != pf.SHA256:
				fd.Raw = "sha256 " + runconf.ShortHash(f.SHA256)
				fd.Message = fmt.Sprintf("%s %s: sha256 on disk %s, provenance record %s", group.kind, pf.Path, runconf.ShortHash(f.SHA256), runconf.ShortHash(pf.SHA256))
			case f.Size != pf.Bytes:
				fd.Raw = num.Format(float64(f.Size), 0) + " bytes"
				fd.Message = fmt.Sprintf("%s %s: %s bytes on disk, provenance record %s", group.kind, pf.Path, num.Format(float64(f.Size), 0), num.Format(float64(pf.Bytes), 0))
			default:
				*group.n++
				continue
			}
			p.Report(fd)
		}
	}
	fd := finding.Finding{Severity: finding.Pass, Check: "hashes", File: resultsFile,
		Quote:   "provenance.files, provenance.prompts",
		Raw:     fmt.Sprintf("%d of %d script/binary and %d of %d prompt sha256s match", nFiles, len(s.Provenance.Files), nPrompts, len(s.Provenance.Prompts)),
		Source:  "files on disk",
		Message: fmt.Sprintf("%d script/binary and %d prompt sha256s match the files on disk", nFiles, nPrompts)}
	if nFiles+nPrompts < len(s.Provenance.Files)+len(s.Provenance.Prompts) {
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("only %d of %d script/binary and %d of %d prompt sha256s match the files on disk",
			nFiles, len(s.Provenance.Files), nPrompts, len(s.Provenance.Prompts))
	}
	p.Report(fd)
}

// stamp is one file's mtime in the order check.
type stamp struct {
	path string
	t    time.Time
	text string
}

// provenanceOrder checks build → runner edit → runs → JSON: every build
// file's mtime before the runner's, the runner's before the JSON's (and
// its generated_at_utc), the recorded mtimes equal to the spec's mtimes
// record, and the re-run durations fitting between the runner's mtime (or
// the last build, whichever is later) and generated_at_utc.
func provenanceOrder(p *analysis.Pass, s *archive.Snapshot, cfg ProvenanceSettings) {
	// The JSON whose mtime and generation time are ordered: the file the
	// runner wrote the time into.
	resultsFile, mtimesFile := s.GeneratedFile, s.MtimesFile
	if resultsFile == "" {
		resultsFile = s.ResultsFile
	}
	genName := s.GeneratedAt.Name
	fail := func(file, quote, raw, msg string) {
		p.Report(finding.Finding{Severity: finding.Fail, Check: "order", File: file, Quote: quote, Raw: raw,
			Source: mtimesFile + ", " + resultsFile, Message: msg})
	}
	mtime := func(pf *archive.ProvFile) stamp {
		st := stamp{path: pf.Path, t: pf.Mtime, text: pf.MtimeText}
		if m, ok := s.Mtimes[pf.Path]; ok {
			if !m.Time.Equal(pf.Mtime) {
				fail(pf.Path, "mtime_local "+pf.MtimeText, "stat "+m.Text,
					fmt.Sprintf("%s: provenance records mtime %s, the file's mtime is %s", pf.Path, pf.MtimeText, m.Text))
			}
			st.t, st.text = m.Time, m.Text
		}
		return st
	}
	var builds []stamp
	var runner *stamp
	for _, pf := range s.Provenance.Files {
		switch {
		case pf.Role == cfg.Runner:
			st := mtime(pf)
			runner = &st
		case slices.Contains(cfg.Builds, pf.Role):
			builds = append(builds, mtime(pf))
		}
	}
	if runner == nil || len(builds) == 0 {
		fail(resultsFile, "provenance.files", "", fmt.Sprintf("provenance has no runner (role %q) or no build files (roles %s) to order, as %s names them",
			cfg.Runner, strings.Join(cfg.Builds, ", "), checkout.File))
		return
	}
	sort.SliceStable(builds, func(i, j int) bool { return builds[i].t.Before(builds[j].t) })
	last := builds[len(builds)-1]
	jsonM, hasJSON := s.Mtimes[resultsFile]
	gen := s.GeneratedAtUTC

	order := fmt.Sprintf("build %s … %s, runner %s", short(builds[0].text), short(last.text), short(runner.text))
	if hasJSON {
		order += ", JSON " + short(jsonM.Text)
	}
	order += fmt.Sprintf(", %s %s", genName, s.GeneratedAt.Text)
	ok := true
	if !last.t.Before(runner.t) {
		ok = false
		fail(runner.path, "runner mtime "+runner.text, last.path+" "+last.text,
			fmt.Sprintf("the runner (%s) was edited before the last build (%s %s): mtimes out of order (%s)", runner.text, last.path, last.text, order))
	}
	if hasJSON {
		if !runner.t.Before(jsonM.Time) {
			ok = false
			fail(resultsFile, "JSON mtime "+jsonM.Text, "runner "+runner.text,
				fmt.Sprintf("the results JSON (%s) is not newer than the runner (%s): mtimes out of order (%s)", jsonM.Text, runner.text, order))
		}
		if d := jsonM.Time.Sub(gen); math.Abs(d.Seconds()) > 1 {
			ok = false
			fail(resultsFile, genName+" "+s.GeneratedAt.Text, "JSON mtime "+jsonM.Text,
				fmt.Sprintf("%s %s and the JSON's mtime %s differ by %.2f s", genName, s.GeneratedAt.Text, jsonM.Text, d.Seconds()))
		}
	}
	if !runner.t.Before(gen) {
		ok = false
		fail(resultsFile, genName+" "+s.GeneratedAt.Text, "runner "+runner.text,
			fmt.Sprintf("%s %s is not after the runner's mtime %s", genName, s.GeneratedAt.Text, runner.text))
	}
	if ok {
		p.Report(finding.Finding{Severity: finding.Pass, Check: "order", File: mtimesFile, Quote: "mtimes",
			Raw: order, Source: mtimesFile + ", " + resultsFile,
			Message: "mtimes in build → runner edit → JSON order: " + order})
	}

	// The re-run runs must fit between the later of the runner edit and the
	// last build, and generated_at_utc.
	start := runner.t
	if last.t.After(start) {
		start = last.t
	}
	sum, n := 0.0, 0
	var untimed []string
	for _, r := range s.Runs {
		if !r.CarriedOver {
			sum += r.DurationS
			n++
			if r.Duration.Null {
				untimed = append(untimed, r.Name)
			}
		}
	}
	window := gen.Sub(start).Seconds()
	if len(untimed) > 0 {
		// A run without a duration counts as none: the sum would pass
		// however long the runs took.
		p.Report(finding.Finding{Severity: finding.Warn, Check: "window", File: resultsFile,
			Quote: fmt.Sprintf("%d of %d re-run runs without a duration", len(untimed), n),
			Raw:   fmt.Sprintf("window %s s (runner %s → generated_at_utc %s)", num.Format(window, 2), short(runner.text), s.GeneratedAt.Text),
			Message: fmt.Sprintf("%d of the %d re-run runs record no duration (%s), so whether the runs fit the %s s between the runner's mtime and generated_at_utc is not checked (map the duration with fields.duration, and fields.duration_unit if it is not in seconds)",
				len(untimed), n, strings.Join(untimed, ", "), num.Format(window, 2))})
		return
	}
	fd := finding.Finding{Severity: finding.Pass, Check: "window", File: resultsFile,
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
	p.Report(fd)
}

// work returns the longest span of time a run's tail logs (a phase or the
// whole run), in seconds, and the metric that logs it.
func work(ms *tail.Metrics) (float64, tail.Metric, bool) {
	var best tail.Metric
	longest, found := 0.0, false
	if ms == nil {
		return 0, best, false
	}
	for _, m := range ms.List {
		var s float64
		switch m.Unit {
		case "ms":
			s = m.Value() / 1000
		case "s":
			s = m.Value()
		default:
			continue
		}
		if s > longest {
			longest, best, found = s, m, true
		}
	}
	return longest, best, found
}

// durations checks every recorded duration_s against the work the run's
// tail logs: a run cannot take less time than one phase it prints. A
// runner that writes 0 (or any short figure) for every run would
// otherwise fit any window.
func durations(p *analysis.Pass, s *archive.Snapshot, metrics map[string]*tail.Metrics) {
	var short []string
	var first *archive.Run
	checked := 0
	for _, r := range s.Runs {
		if r.Duration.Null {
			continue
		}
		w, m, ok := work(metrics[r.Name])
		if !ok {
			continue
		}
		checked++
		// Half the last printed digit of tolerance: both figures are rounded.
		if r.DurationS+0.005 < w {
			if first == nil {
				first = r
			}
			short = append(short, fmt.Sprintf("%s (duration_s %s, tail line %d logs %s %s %s)", r.Name, r.Duration.Lit, m.Line, m.Name, m.Num.Text, m.Unit))
		}
	}
	if checked == 0 {
		return
	}
	if len(short) == 0 {
		p.Report(finding.Finding{Severity: finding.Pass, Check: "durations", File: s.ResultsFile, Source: "runs[].duration_s, output tails",
			Message: fmt.Sprintf("the duration_s of all %d runs whose tails log timings covers the longest span each tail logs", checked)})
		return
	}
	p.Report(finding.Finding{Severity: finding.Fail, Check: "durations", File: first.File, Line: first.Duration.Line, Quote: "duration_s " + first.Duration.Lit,
		Raw: strings.Join(short, "; "), Source: "runs[].duration_s, output tails",
		Message: fmt.Sprintf("%d of %d runs record a duration_s shorter than the work their own tails log: %s", len(short), checked, strings.Join(short, "; "))})
}

// carriedOver reports the runs archived with env: null: carried over from
// an earlier archive, not re-run.
func carriedOver(p *analysis.Pass, s *archive.Snapshot) {
	var runs []*archive.Run
	for _, r := range s.Runs {
		if r.CarriedOver {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	p.Report(finding.Finding{Severity: finding.Warn, Check: "carried-over", File: runs[0].File, Line: runs[0].Line,
		Fix:   "re-run the carried-over runs in this round, or mark them as carried over in the plan",
		Quote: "env: null", Raw: strings.Join(names, ", "), Source: runs[0].File + ": runs[].env",
		Message: fmt.Sprintf("%d runs are carried over (env: null), not re-run in this round: %s", len(runs), strings.Join(names, ", "))})
}

// short trims an RFC 3339 time to its clock part for messages.
func short(t string) string {
	if i := strings.IndexByte(t, 'T'); i >= 0 {
		t = t[i+1:]
	}
	return t
}
