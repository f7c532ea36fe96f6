// Package input holds the input.* rules, about what the runs read: every
// input a run read is archived and is the file the run read
// (input.archive).
//
// Paths in run records are data. A path that leads outside the snapshot
// (or outside its machine folder) is reported as such and never opened:
// no finding holds the size, hash or content of a file outside.
package input

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/runconf"
)

// Archive checks, for every input a run's command line names, that the
// archive holds a copy with the same content (a path on the audited
// machine, /tmp/…, is read from the spec's machine folder), that each
// archived input's sha256 matches its provenance record, and that the
// archived copy contains the prompt the run's output echoes.
var Archive = &analysis.Analyzer{
	Name:     "input.archive",
	Doc:      "every file a run read is archived, its sha256 matches the provenance record, and it contains the run's prompt echo",
	Fix:      "archive every file a run read, exactly as it read it",
	Requires: []*analysis.Analyzer{facts.Files.Analyzer, facts.RunConfigs.Analyzer, facts.PromptEchoes.Analyzer},
	Run:      runArchive,
}

// input is one file the runs read, with the runs that read it.
type input struct {
	file   *facts.RecordedFile
	runs   []*archive.Run
	prompt bool // a run read it as its prompt (-f), not as its model
}

func runArchive(p *analysis.Pass) (any, error) {
	snap := p.Snap
	files := facts.Files.Of(p)
	cfgs := facts.RunConfigs.Of(p)
	echoes := facts.PromptEchoes.Of(p)

	// Every input a run read, with the runs that read it.
	var inputs []*input
	byName := map[string]*input{}
	for _, r := range snap.Runs {
		names := cfgs[r.Name].Files
		if r.Inputs != nil {
			// A sidecar that lists the run's inputs holds its model and
			// KL-divergence base files to account too.
			names = append(slices.Clip(names), cfgs[r.Name].Models...)
		}
		for i, name := range names {
			in := byName[name]
			if in == nil {
				in = &input{file: files[name]}
				byName[name] = in
				inputs = append(inputs, in)
			}
			in.runs = append(in.runs, r)
			in.prompt = in.prompt || i < len(cfgs[r.Name].Files)
		}
	}
	sidecars := sidecarInputs(snap)
	if len(inputs) == 0 && len(snap.Provenance.Prompts) == 0 && len(sidecars) == 0 {
		return nil, analysis.NotApplicable("no run names an input file and the snapshot records no prompt")
	}

	// The archived inputs: the provenance record's prompt files.
	ar := archived{files: map[string]*facts.RecordedFile{}}
	for _, pf := range snap.Provenance.Prompts {
		f := files[pf.Path]
		ar.files[pf.Path] = f
		ar.names = append(ar.names, pf.Path)
		fd := finding.Finding{Severity: finding.Pass, Check: "provenance", File: pf.Path, Quote: "sha256 " + runconf.ShortHash(pf.SHA256),
			Raw: pf.Path + " " + f.Describe(), Source: fmt.Sprintf("%s line %d (%s)", snap.ProvenanceFile, pf.Line, pf.JSONPath)}
		switch {
		case f.Outside:
			fd.Severity, fd.Raw = finding.Fail, "not read"
			fd.Message = fmt.Sprintf("the provenance record names %s as an archived input, a path outside the snapshot: not archived, not read", pf.Path)
		case !f.Read():
			fd.Severity, fd.Message = finding.Fail, fmt.Sprintf("archived input %s is not in the snapshot", pf.Path)
		case f.SHA256 != pf.SHA256:
			fd.Severity = finding.Fail
			fd.Message = fmt.Sprintf("archived input %s has sha256 %s on disk; the provenance record says %s", pf.Path, runconf.ShortHash(f.SHA256), runconf.ShortHash(pf.SHA256))
		default:
			fd.Message = fmt.Sprintf("archived input %s matches its provenance sha256 %s", pf.Path, runconf.ShortHash(f.SHA256))
		}
		p.Report(fd)
	}

	// The inputs the runs' sidecars list with their sha256 (a log folder's
	// provenance): one finding per file and recorded hash.
	for _, sc := range sidecars {
		f := files[sc.path]
		if _, ok := ar.files[sc.path]; !ok {
			ar.files[sc.path] = f
			ar.names = append(ar.names, sc.path)
		}
		fd := finding.Finding{Severity: finding.Pass, Check: "provenance", File: sc.path, Quote: "sha256 " + runconf.ShortHash(sc.sha256),
			Raw: sc.path + " " + f.Describe(), Source: sc.where()}
		switch {
		case f == nil || f.Outside:
			fd.Severity, fd.Raw = finding.Fail, "not read"
			fd.Message = fmt.Sprintf("%s names %s as an input, a path outside the snapshot: not archived, not read", sc.where(), sc.path)
		case !f.Read():
			fd.Severity = finding.Fail
			fd.Message = fmt.Sprintf("%s, an input %s lists with its sha256, is not in the snapshot: not archived", sc.path, sc.where())
		case f.SHA256 != sc.sha256:
			fd.Severity = finding.Fail
			fd.Message = fmt.Sprintf("archived input %s has sha256 %s on disk; %s records %s", sc.path, runconf.ShortHash(f.SHA256), sc.where(), runconf.ShortHash(sc.sha256))
		default:
			fd.Message = fmt.Sprintf("archived input %s matches the sha256 %s %s records", sc.path, runconf.ShortHash(f.SHA256), sc.where())
		}
		p.Report(fd)
	}

	for _, in := range inputs {
		copyName := checkInput(p, in, ar)
		if in.file.Outside || !in.prompt {
			continue // nothing of the file is known, or it is no prompt: no echo is checked against it
		}
		for _, r := range in.runs {
			if e, ok := echoes[r.Name]; ok {
				p.Report(checkEcho(r, e, in.file, copyName, ar))
			}
		}
	}
	return nil, nil
}

// sidecarInput is one input file the runs' sidecars list, with one
// recorded sha256, and the sidecars that record it.
type sidecarInput struct {
	path, sha256 string
	files        []string // the sidecars, "file:line"
}

// where names the sidecars that record the input.
func (sc *sidecarInput) where() string {
	if len(sc.files) == 1 {
		return "sidecar " + sc.files[0]
	}
	return fmt.Sprintf("sidecars %s and %d more", sc.files[0], len(sc.files)-1)
}

// sidecarInputs returns the inputs the runs' sidecars list, one per path
// and recorded sha256, in archive order.
func sidecarInputs(snap *archive.Snapshot) []*sidecarInput {
	var out []*sidecarInput
	by := map[[2]string]*sidecarInput{}
	for _, r := range snap.Runs {
		for _, in := range r.Inputs {
			k := [2]string{in.Path, in.SHA256}
			sc := by[k]
			if sc == nil {
				sc = &sidecarInput{path: in.Path, sha256: in.SHA256}
				by[k] = sc
				out = append(out, sc)
			}
			sc.files = append(sc.files, fmt.Sprintf("%s:%d", in.File, in.Line))
		}
	}
	return out
}

// archived holds the archived inputs by path, in provenance order.
type archived struct {
	files map[string]*facts.RecordedFile
	names []string
}

// checkInput reports whether the archive holds the file the runs read and
// returns the archived file that stands for it ("" when none).
func checkInput(p *analysis.Pass, in *input, ar archived) string {
	f := in.file
	who := runNames(in.runs, 3)
	fd := finding.Finding{Severity: finding.Pass, Check: "archived", File: f.Name, Quote: who + " read " + f.Name,
		Raw: "read " + f.Name + " " + f.Describe(), Source: runSources(in.runs)}
	machine := strings.HasPrefix(f.Name, "/")
	if machine {
		fd.Check = "machine"
	}
	if f.Outside {
		fd.Severity, fd.Check, fd.Raw = finding.Fail, "outside", "not read"
		fd.File = in.runs[0].File
		fd.Line = in.runs[0].Line
		fd.Message = fmt.Sprintf("%s %s read a file outside the snapshot (%s): not archived, not read", plural(in.runs, "run", "runs"), who, f.Name)
		p.Report(fd)
		return ""
	}
	if !machine {
		// A path inside the checkout: the file itself is the archived copy.
		_, recorded := ar.files[f.Name]
		switch {
		case !f.Read():
			fd.Severity = finding.Fail
			fd.Message = fmt.Sprintf("%s, read by %s, is not in the archive", f.Name, who)
		case !recorded:
			// Archived, but nothing records what the runs read: the copy
			// cannot be held to it.
			fd.Severity, fd.Check = finding.Warn, "hashed"
			fd.Message = fmt.Sprintf("%s, read by %s, is archived but not hashed: no provenance record or sidecar lists its sha256, so nothing holds the copy to what the runs read", f.Name, who)
			fd.Fix = "record the sha256 of every input the run read (the results file's provenance, or \"inputs\" in the run's sidecar)"
		default:
			fd.Message = fmt.Sprintf("%s, read by %s, is archived as %s with the same sha256 %s", f.Name, who, f.Name, runconf.ShortHash(f.SHA256))
		}
		p.Report(fd)
		return f.Name
	}
	if !f.Read() {
		// The machine's copy is gone: only the archive and the echo are left.
		fd.Severity = finding.Warn
		fd.Message = fmt.Sprintf("%s, read by %s, is not on this machine any more; its archived copy cannot be compared by hash", f.Name, who)
		p.Report(fd)
		return ""
	}
	copyName, same := ar.copyOf(f)
	switch {
	case same:
		fd.File = copyName
		fd.Message = fmt.Sprintf("%s, read by %s, is archived as %s with the same sha256 %s", f.Name, who, copyName, runconf.ShortHash(f.SHA256))
	case copyName == "":
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s, read by %s, is not archived: no archived file has its sha256 %s", f.Name, who, runconf.ShortHash(f.SHA256))
	default:
		a := ar.files[copyName]
		fd.Severity, fd.File = finding.Fail, copyName
		fd.Raw += "; archived " + a.Name + " " + a.Describe()
		fd.Message = fmt.Sprintf("the runs read %s %s; the archive holds %s %s, %s, not the file the runs read",
			f.Name, f.Describe(), copyName, a.Describe(), relation(a.Data, f.Data))
	}
	p.Report(fd)
	return copyName
}

// copyOf finds the archived file that stands for a file read on the
// machine: one with the same content (same is true), or failing that one
// whose content is part of it (a truncated copy) or that shares its base
// name.
func (ar archived) copyOf(f *facts.RecordedFile) (name string, same bool) {
	for _, n := range ar.names {
		if a := ar.files[n]; a.Read() && a.SHA256 == f.SHA256 {
			return n, true
		}
	}
	for _, n := range ar.names {
		if a := ar.files[n]; a.Read() && len(a.Data) > 0 && strings.Contains(string(f.Data), string(a.Data)) {
			return n, false
		}
	}
	base := f.Name[strings.LastIndexByte(f.Name, '/')+1:]
	for _, n := range ar.names {
		if strings.HasSuffix(n, "/"+base) && ar.files[n].Read() {
			return n, false
		}
	}
	return "", false
}

// relation says how archived content a relates to the content b the run read.
func relation(a, b []byte) string {
	switch {
	case len(a) < len(b) && string(b[:len(a)]) == string(a):
		return fmt.Sprintf("exactly its first %s bytes", num.Format(float64(len(a)), 0))
	case strings.Contains(string(b), string(a)):
		return "a part of it"
	}
	return "different content"
}

// checkEcho checks the prompt echo in r's tail against the file the run
// read (f, inside the snapshot) and its archived copy (copyName; "" when
// none is known, as when the file the run read is gone: then any archived
// file that holds the echo stands for it).
func checkEcho(r *archive.Run, e facts.Echo, f *facts.RecordedFile, copyName string, ar archived) finding.Finding {
	echo := e.Text
	if f.Read() {
		echo = longestContainedPrefix(e.Text, string(f.Data))
	}
	fd := finding.Finding{Severity: finding.Pass, Check: "echo", File: r.File, Line: r.Line,
		Quote: "…" + lastRunes(echo, 40), Source: fmt.Sprintf("%s, tail line %d", r.Source, e.Line)}
	if echo == "" {
		fd.Severity = finding.Warn
		fd.Message = fmt.Sprintf("%s: the prompt echo in the tail is not in %s, the file its command line names", r.Name, f.Name)
		return fd
	}
	chars := num.Format(float64(len(echo)), 0)
	if copyName == "" && !f.Read() {
		// The file is gone: look for the echo in every archived file.
		for _, n := range ar.names {
			if a := ar.files[n]; a.Read() && strings.Contains(string(a.Data), echo) {
				fd.Raw = fmt.Sprintf("echo of %s chars; archived %s %s", chars, n, a.Describe())
				fd.Message = fmt.Sprintf("%s: %s is not on this machine any more; its prompt echo (%s chars) is in the archived %s", r.Name, f.Name, chars, n)
				return fd
			}
		}
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s: %s is not on this machine any more, and its prompt echo, ending %q, is in no archived file", r.Name, f.Name, "…"+lastRunes(echo, 40))
		return fd
	}
	arch := ar.files[copyName]
	if arch == nil && copyName == f.Name {
		arch = f // archived in place, though not hashed (checkInput warns)
	}
	if copyName == "" || !arch.Read() {
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s: no archived copy of %s to hold its prompt echo", r.Name, f.Name)
		return fd
	}
	fd.Raw = fmt.Sprintf("echo of %s chars; archived %s %s", chars, copyName, arch.Describe())
	if strings.Contains(string(arch.Data), echo) {
		fd.Message = fmt.Sprintf("%s: its prompt echo (%s chars) is in the archived %s", r.Name, chars, copyName)
		return fd
	}
	fd.Severity = finding.Fail
	where := ""
	if f.Read() {
		if i := strings.LastIndex(string(f.Data), echo); i >= 0 {
			where = fmt.Sprintf(", which is bytes %s–%s of %s (%s bytes)", num.Format(float64(i+1), 0), num.Format(float64(i+len(echo)), 0), f.Name, num.Format(float64(len(f.Data)), 0))
		}
	}
	fd.Message = fmt.Sprintf("%s: the prompt echo ends %q%s; it is not in the archived %s %s", r.Name, "…"+lastRunes(echo, 40), where, copyName, arch.Describe())
	return fd
}

// longestContainedPrefix returns the longest prefix of s that occurs in f.
func longestContainedPrefix(s, f string) string {
	if strings.Contains(f, s) {
		return s
	}
	lo, hi := 0, len(s) // s[:lo] occurs in f; s[:hi+1] does not (or hi = len)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if strings.Contains(f, s[:mid]) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return s[:lo]
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[len(r)-n:]
	}
	return string(r)
}

func plural(runs []*archive.Run, one, many string) string {
	if len(runs) == 1 {
		return one
	}
	return many
}

// runNames lists up to max run names, then how many more.
func runNames(runs []*archive.Run, max int) string {
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	sort.Strings(names)
	if len(names) > max {
		return fmt.Sprintf("%s and %d more runs", strings.Join(names[:max], ", "), len(names)-max)
	}
	return strings.Join(names, ", ")
}

func runSources(runs []*archive.Run) string {
	if len(runs) == 0 {
		return ""
	}
	if len(runs) == 1 {
		return runs[0].Source
	}
	return fmt.Sprintf("%s (and %d more runs' cmd)", runs[0].Source, len(runs)-1)
}
