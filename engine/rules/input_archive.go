package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/runconf"
)

func init() {
	Register(Rule{
		Name:  "input.archive",
		Doc:   "every file a run read is archived, its sha256 matches the provenance record, and it contains the run's prompt echo",
		Check: checkInputArchive,
	})
}

// fileFacts is what input.archive knows about one file.
type fileFacts struct {
	Name  string // as the command line or the provenance record names it
	Bytes []byte
	SHA   string
	Err   error
}

func (f fileFacts) describe() string {
	if f.Err != nil {
		return fmt.Sprintf("%s (unreadable: %v)", f.Name, f.Err)
	}
	return fmt.Sprintf("%s (%s bytes, sha256 %s)", f.Name, num.Format(float64(len(f.Bytes)), 0), runconf.ShortHash(f.SHA))
}

func readFacts(s *archive.Snapshot, name string) fileFacts {
	b, err := s.ReadFile(name)
	f := fileFacts{Name: name, Bytes: b, Err: err}
	if err == nil {
		f.SHA = runconf.SHA256(b)
	}
	return f
}

// checkInputArchive checks, for every input file a run's command line
// names: that the archive holds a copy with the same content (a path
// outside the checkout, /tmp/…, is read from the machine/ folder that
// stands for the audited machine), that the archived copy's sha256 matches
// its provenance record, and that the archived copy contains the prompt
// echo in the run's tail.
func checkInputArchive(c *Context) ([]finding.Finding, error) {
	resultsFile := c.Snap.ResultsFile
	s := c.Snap
	if s == nil {
		return nil, fmt.Errorf("input.archive: no snapshot")
	}
	var out []finding.Finding

	// The archived inputs: the provenance record's prompt files.
	archived := map[string]fileFacts{}
	var archivedNames []string
	for _, p := range s.Provenance.Prompts {
		f := readFacts(s, p.Path)
		archived[p.Path] = f
		archivedNames = append(archivedNames, p.Path)
		fd := finding.Finding{Severity: finding.Pass, Rule: "input.archive", File: p.Path, Quote: "sha256 " + runconf.ShortHash(p.SHA256),
			Raw: f.describe(), Source: fmt.Sprintf("%s line %d (%s)", resultsFile, p.Line, p.JSONPath)}
		switch {
		case f.Err != nil:
			fd.Severity, fd.Message = finding.Fail, fmt.Sprintf("archived input %s cannot be read: %v", p.Path, f.Err)
		case f.SHA != p.SHA256:
			fd.Severity = finding.Fail
			fd.Message = fmt.Sprintf("archived input %s has sha256 %s on disk; the provenance record says %s", p.Path, runconf.ShortHash(f.SHA), runconf.ShortHash(p.SHA256))
		default:
			fd.Message = fmt.Sprintf("archived input %s matches its provenance sha256 %s", p.Path, runconf.ShortHash(f.SHA))
		}
		out = append(out, fd)
	}

	// Every input a run read, with the runs that read it.
	type input struct {
		name string
		runs []*archive.Run
	}
	var inputs []*input
	byName := map[string]*input{}
	for _, r := range s.Runs {
		cfg := runconf.Of(nil, r, c.Metrics[r.Name])
		for _, f := range cfg.Files {
			in := byName[f]
			if in == nil {
				in = &input{name: f}
				byName[f] = in
				inputs = append(inputs, in)
			}
			in.runs = append(in.runs, r)
		}
	}
	for _, in := range inputs {
		read := readFacts(s, in.name)
		copyName, ok := archivedCopy(in.name, read, archived, archivedNames)
		fd := finding.Finding{Severity: finding.Pass, Rule: "input.archive", Quote: runNames(in.runs, 3) + " read " + in.name,
			Raw: "read " + read.describe(), Source: runSources(in.runs)}
		switch {
		case read.Err != nil && !strings.HasPrefix(in.name, "/"):
			fd.Severity, fd.File = finding.Fail, in.name
			fd.Message = fmt.Sprintf("%s, read by %s, is not in the archive", in.name, runNames(in.runs, 3))
		case read.Err != nil:
			// The machine's copy is gone: only the archive and the echo are left.
			fd.Severity, fd.File = finding.Warn, in.name
			fd.Message = fmt.Sprintf("%s, read by %s, is not on this machine any more; its archived copy cannot be compared by hash", in.name, runNames(in.runs, 3))
		case ok:
			if anyLlama(in.runs) {
				fd.ID = "F38"
			}
			fd.File = copyName
			fd.Message = fmt.Sprintf("%s, read by %s, is archived as %s with the same sha256 %s", in.name, runNames(in.runs, 3), copyName, runconf.ShortHash(read.SHA))
		default:
			fd.Severity = finding.Fail
			fd.File = copyName
			if copyName == "" {
				fd.File = in.name
				fd.Message = fmt.Sprintf("%s, read by %s, is not archived: no archived file has its sha256 %s", in.name, runNames(in.runs, 3), runconf.ShortHash(read.SHA))
			} else {
				a := archived[copyName]
				fd.Raw += "; archived " + a.describe()
				fd.Message = fmt.Sprintf("the runs read %s; the archive holds %s, %s, not the file the runs read",
					read.describe(), a.describe(), relation(a.Bytes, read.Bytes))
			}
			if anyLlama(in.runs) {
				fd.ID = "F38"
			}
		}
		out = append(out, fd)

		// The prompt echo of each run that read this file.
		for _, r := range in.runs {
			if fd, ok := checkEcho(r, in.name, read, copyName, archived, archivedNames); ok {
				out = append(out, fd)
			}
		}
	}
	return out, nil
}

// archivedCopy finds the archived file that stands for the input the runs
// read: the input itself when it is inside the checkout; otherwise an
// archived file with the same content, or failing that one whose content is
// part of it (a truncated copy) or that shares its base name.
func archivedCopy(name string, read fileFacts, archived map[string]fileFacts, names []string) (string, bool) {
	if !strings.HasPrefix(name, "/") {
		a, ok := archived[name]
		return name, ok && read.Err == nil && a.SHA == read.SHA
	}
	if read.Err == nil {
		for _, n := range names {
			if archived[n].SHA == read.SHA {
				return n, true
			}
		}
		for _, n := range names {
			if a := archived[n]; a.Err == nil && len(a.Bytes) > 0 && strings.Contains(string(read.Bytes), string(a.Bytes)) {
				return n, false
			}
		}
	}
	base := name[strings.LastIndexByte(name, '/')+1:]
	for _, n := range names {
		if strings.HasSuffix(n, "/"+base) {
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
// read and its archived copy (archName; "" when none is known, as when the
// file the run read is gone: then any archived file that holds the echo
// stands for it). It returns false when the tail has no echo.
func checkEcho(r *archive.Run, name string, read fileFacts, archName string, archived map[string]fileFacts, names []string) (finding.Finding, bool) {
	text, _ := r.Text() // an unreadable output is reported by runs.parse
	region, line := llamacpp.PromptEcho(text)
	if region == "" {
		return finding.Finding{}, false
	}
	echo := region
	if read.Err == nil {
		echo = longestContainedPrefix(region, string(read.Bytes))
	}
	fd := finding.Finding{Severity: finding.Pass, Rule: "input.archive", File: r.File, Line: r.Line,
		Quote: "…" + lastRunes(echo, 40), Source: fmt.Sprintf("%s, tail line %d", r.Source, line)}
	if anyLlama([]*archive.Run{r}) {
		fd.ID = "F38"
	}
	if echo == "" {
		fd.Severity = finding.Warn
		fd.Message = fmt.Sprintf("%s: the prompt echo in the tail is not in %s, the file its command line names", r.Name, name)
		return fd, true
	}
	if archName == "" && read.Err != nil {
		// The file is gone: look for the echo in every archived file.
		for _, n := range names {
			if a := archived[n]; a.Err == nil && strings.Contains(string(a.Bytes), echo) {
				fd.Raw = fmt.Sprintf("echo of %s chars; archived %s", num.Format(float64(len(echo)), 0), a.describe())
				fd.Message = fmt.Sprintf("%s: %s is not on this machine any more; its prompt echo (%s chars) is in the archived %s", r.Name, name, num.Format(float64(len(echo)), 0), n)
				return fd, true
			}
		}
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s: %s is not on this machine any more, and its prompt echo, ending %q, is in no archived file", r.Name, name, "…"+lastRunes(echo, 40))
		return fd, true
	}
	arch := archived[archName]
	if archName == "" || arch.Err != nil {
		fd.Severity = finding.Fail
		fd.Message = fmt.Sprintf("%s: no archived copy of %s to hold its prompt echo", r.Name, name)
		return fd, true
	}
	fd.Raw = fmt.Sprintf("echo of %s chars; archived %s", num.Format(float64(len(echo)), 0), arch.describe())
	if strings.Contains(string(arch.Bytes), echo) {
		fd.Message = fmt.Sprintf("%s: its prompt echo (%s chars) is in the archived %s", r.Name, num.Format(float64(len(echo)), 0), archName)
		return fd, true
	}
	fd.Severity = finding.Fail
	where := ""
	if read.Err == nil {
		if i := strings.LastIndex(string(read.Bytes), echo); i >= 0 {
			where = fmt.Sprintf(", which is bytes %s–%s of %s (%s bytes)", num.Format(float64(i+1), 0), num.Format(float64(i+len(echo)), 0), name, num.Format(float64(len(read.Bytes)), 0))
		}
	}
	fd.Message = fmt.Sprintf("%s: the prompt echo ends %q%s; it is not in the archived %s", r.Name, "…"+lastRunes(echo, 40), where, arch.describe())
	return fd, true
}

// longestContainedPrefix returns the longest prefix of s that occurs in f.
func longestContainedPrefix(s, f string) string {
	lo, hi := 0, len(s) // s[:lo] occurs in f; s[:hi+1] does not (or hi = len)
	if strings.Contains(f, s) {
		return s
	}
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

func anyLlama(runs []*archive.Run) bool {
	for _, r := range runs {
		if r.Group == archive.GroupLlamaPatched || r.Group == archive.GroupLlamaUnpatched {
			return true
		}
	}
	return false
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
