package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tail"
	"github.com/strataspec/strataspec/engine/tf"
)

// What the tf and kld rules share: the snapshot's teacher-forcing files,
// runs and vocabulary, loaded once per audit, and where PLAN quotes them.

// tfSet is what the tf and kld rules read: the snapshot's vocabulary, its TF
// files with their layouts, the TF runs and the plan's caveats.
type tfSet struct {
	snap      *archive.Snapshot
	vocab     *gguf.Vocab
	vocabFile string     // relative to the root
	files     []*tfEntry // in path order
	runs      []*tfRun   // in results order
	metrics   map[string]*tail.Metrics

	plan       *plan.Doc // nil when the snapshot has no PLAN.md
	claimLine  int       // first PLAN line quoting a figure bound to a TF run (0: none; see findClaim)
	claimPlace string    // its section place
}

// tfEntry is one TF file.
type tfEntry struct {
	rel       string // path relative to the snapshot root
	file      *tf.File
	layout    tf.Layout
	layoutErr error
}

// line returns the file line of the id at position i (1 if unknown).
func (e *tfEntry) line(i int) int {
	if i >= 0 && i < len(e.file.IDLine) {
		return e.file.IDLine[i]
	}
	return 1
}

// tfRun is one TF run: its TF file and command-line token counts.
type tfRun struct {
	run           *archive.Run
	file          *tfEntry
	nPrompt, nGen int
	flagErr       error
}

// loadTF reads the snapshot's TF data once per audit.
func loadTF(c *Context) (*tfSet, error) {
	// The plan check is loaded first, outside the memo: Memo holds the
	// context's lock while it computes, so a memoized load cannot load another.
	pc, pcErr := LoadPlanCheck(c)
	v, err := c.Memo("rules.tf", func() (any, error) { return readTF(c, pc, pcErr) })
	if err != nil {
		return nil, err
	}
	return v.(*tfSet), nil
}

func readTF(c *Context, pc *PlanCheck, pcErr error) (*tfSet, error) {
	s := &tfSet{snap: c.Snap, metrics: c.Metrics}
	root := c.Snap.Root
	byPath := map[string]*tfEntry{}
	for _, r := range c.Snap.Group(archive.GroupTF) {
		tr := &tfRun{run: r}
		rel := ""
		for _, a := range r.Cmd {
			if strings.HasPrefix(path.Base(filepath.ToSlash(a)), "eval_tf_") {
				rel = filepath.ToSlash(a)
			}
		}
		if rel == "" {
			return nil, fmt.Errorf("%s: run %s: no eval_tf_* token file in its command %q", r.Source, r.Name, strings.Join(r.Cmd, " "))
		}
		e, ok := byPath[rel]
		if !ok {
			data, err := c.Snap.ReadFile(rel)
			if err != nil {
				return nil, fmt.Errorf("run %s: %w", r.Name, err)
			}
			f, err := tf.Parse(rel, data) // errors name the file as the snapshot does
			if err != nil {
				return nil, fmt.Errorf("run %s: %w", r.Name, err)
			}
			f.Path = rel
			e = &tfEntry{rel: rel, file: f}
			byPath[rel] = e
			s.files = append(s.files, e)
		}
		tr.file = e
		tr.nPrompt, tr.nGen, tr.flagErr = tfFlags(r.Cmd)
		s.runs = append(s.runs, tr)
	}
	sort.Slice(s.files, func(i, j int) bool { return s.files[i].rel < s.files[j].rel })
	if len(s.files) > 0 {
		var err error
		if s.vocab, s.vocabFile, err = findVocab(root); err != nil {
			return nil, err
		}
		for _, e := range s.files {
			e.layout, e.layoutErr = tf.Find(e.file.IDs, s.vocab)
		}
	}
	if err := s.findClaim(c, pc, pcErr); err != nil {
		return nil, err
	}
	return s, nil
}

// findClaim finds where PLAN quotes the teacher-forcing figures: the first
// PLAN line holding a quote that a claims row binds to metrics of TF runs
// alone (directly or through a set, e.g. mean(@tf_iq3_s:kld_mean); a row over
// every strata run, such as each(@strata:arena_gb), is not a TF figure). The rules
// point their plan findings at that line and look for their caveats in its
// section. Without PLAN.claims, or with no row reading a TF run, there is no
// such place: findings point at PLAN.md with no line, and a caveat anywhere in
// PLAN counts.
func (s *tfSet) findClaim(c *Context, pc *PlanCheck, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		b, err := c.Snap.ReadFile(PlanFile)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err == nil {
			s.plan = plan.Parse(PlanFile, b)
		}
		return nil
	}
	if err != nil {
		return err
	}
	s.plan = pc.Doc
	tfRuns := map[string]bool{}
	for _, r := range s.runs {
		tfRuns[r.run.Name] = true
	}
	for _, b := range pc.Result.Bindings {
		if b.Status == claims.Stale || b.Token.Line == 0 || !onlyTF(b.Row.MetricRuns(pc.Env), tfRuns) {
			continue
		}
		if s.claimLine == 0 || b.Token.Line < s.claimLine {
			s.claimLine, s.claimPlace = b.Token.Line, b.Place
		}
	}
	return nil
}

// claimQuote returns the text of the PLAN line quoting the TF figures, ""
// where there is none.
func (s *tfSet) claimQuote() string {
	if s.plan == nil || s.claimLine < 1 || s.claimLine > len(s.plan.Lines) {
		return ""
	}
	return strings.TrimSpace(s.plan.Lines[s.claimLine-1].Text)
}

// onlyTF reports whether runs is not empty and every run in it is a TF run.
func onlyTF(runs []string, tf map[string]bool) bool {
	for _, r := range runs {
		if !tf[r] {
			return false
		}
	}
	return len(runs) > 0
}

// runMetrics returns a run's parsed tail.
func (s *tfSet) runMetrics(run string) (*tail.Metrics, bool) {
	ms, ok := s.metrics[run]
	return ms, ok && ms != nil
}

// metricValue returns a metric's value and printed text.
func metricValue(ms *tail.Metrics, name string) (float64, string, bool) {
	m, ok := ms.Get(name)
	return m.Value(), m.Num.Text, ok
}

// findVocab returns the one GGUF under data/ that holds a tokenizer.
func findVocab(root string) (*gguf.Vocab, string, error) {
	matches, err := filepath.Glob(filepath.Join(root, "data", "*.gguf"))
	if err != nil {
		return nil, "", err
	}
	sort.Strings(matches)
	var found []string
	var vocab *gguf.Vocab
	for _, m := range matches {
		f, err := gguf.Open(m)
		if err != nil {
			return nil, "", err
		}
		if _, ok := f.Strings(gguf.KeyTokens); !ok {
			continue
		}
		v, err := f.Vocab()
		if err != nil {
			return nil, "", err
		}
		rel, _ := filepath.Rel(root, m)
		found = append(found, filepath.ToSlash(rel))
		vocab = v
	}
	switch len(found) {
	case 0:
		return nil, "", fmt.Errorf("%s: no GGUF vocabulary under data/ to decode the TF token files", root)
	case 1:
		return vocab, found[0], nil
	}
	return nil, "", fmt.Errorf("%s: several GGUF vocabularies under data/ (%s): which decodes the TF files is ambiguous", root, strings.Join(found, ", "))
}

// tfFlags reads --n-prompt and --n-gen from a command line.
func tfFlags(cmd []string) (nPrompt, nGen int, err error) {
	vals := map[string]int{}
	for i := 0; i < len(cmd); i++ {
		for _, name := range []string{"--n-prompt", "--n-gen"} {
			var text string
			switch {
			case cmd[i] == name && i+1 < len(cmd):
				text = cmd[i+1]
			case strings.HasPrefix(cmd[i], name+"="):
				text = strings.TrimPrefix(cmd[i], name+"=")
			default:
				continue
			}
			n, perr := strconv.Atoi(text)
			if perr != nil || n <= 0 {
				return 0, 0, fmt.Errorf("%s %q is not a positive integer", name, text)
			}
			vals[name] = n
		}
	}
	for _, name := range []string{"--n-prompt", "--n-gen"} {
		if _, ok := vals[name]; !ok {
			return 0, 0, fmt.Errorf("no %s in the command", name)
		}
	}
	return vals["--n-prompt"], vals["--n-gen"], nil
}

// caveat returns the PLAN caveat with the id placed where the TF figures are
// quoted, and a description of where it is.
func (s *tfSet) caveat(id string) (string, bool) {
	if s.plan == nil {
		return "", false
	}
	c, ok := s.plan.Caveat(id, s.claimPlace)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("PLAN.md:%d: caveat (%s)", c.Line, id), true
}

// where names the PLAN section a missing caveat belongs in.
func (s *tfSet) where() string {
	if s.claimPlace != "" {
		return "PLAN.md " + s.claimPlace
	}
	return "PLAN.md"
}

// addFunc appends a finding of one rule; see adder.
type addFunc func(sev finding.Severity, id, file string, line int, quote, raw, source, format string, args ...any)

// adder returns an addFunc that appends the rule's findings to out.
func adder(rule string, out *[]finding.Finding) addFunc {
	return func(sev finding.Severity, id, file string, line int, quote, raw, source, format string, args ...any) {
		*out = append(*out, finding.Finding{Rule: rule, ID: id, Severity: sev, File: file, Line: line,
			Quote: quote, Raw: raw, Source: source, Message: fmt.Sprintf(format, args...)})
	}
}
