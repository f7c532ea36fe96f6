// Package tf holds the tf rule, about teacher-forcing token files: their
// layout (user turn, assistant header, scored span), that runs read them
// with the flags and token counts they hold, their hashes, and the caveats
// the plan states for truncated turns, scored template tokens and domain
// labels.
package tf

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/gate"
	"github.com/strataspec/strataspec/engine/kld"
	"github.com/strataspec/strataspec/engine/rules/internal/tfstate"
	"github.com/strataspec/strataspec/engine/tf"
)

// Caveat ids the tf rule looks for in the plan, in the section that quotes
// the teacher-forcing figures.
const (
	CaveatTFTruncated     = "tf-truncated-turns" // user turns start mid-document
	CaveatTFTemplateToken = "tf-template-token"  // the first scored token is a template token
	CaveatTFDomainLabel   = "tf-domain-label"    // a domain label its content does not fit
)

// TF is the rule on teacher-forcing token files.
var TF = &analysis.Analyzer{
	Name:     "tf",
	Doc:      "teacher-forcing token files: layout found by template-token text, run flags and eval_tokens agree, hashes match provenance; truncated turns, scored template token, domain labels, <think> newline",
	Fix:      "score teacher forcing on whole turns in the template's format, without template tokens, or state a caveat",
	Requires: []*analysis.Analyzer{facts.RunMetrics.Analyzer, facts.TF.Analyzer},
	Uses:     []*analysis.Analyzer{gate.Analyzer.Analyzer, facts.Plan.Analyzer},
	Metrics:  []string{"top1_count", "top1_total", "kld_mean", "eval_tokens", "tf_n_prompt", "tf_n_gen"},
	Run:      runTF,
}

// state is what the tf rule reads, gathered once per pass; its methods are
// the rule's checks.
type state struct{ *tfstate.State }

func load(p *analysis.Pass) (*state, error) { s, err := tfstate.Load(p); return &state{s}, err }

func runTF(p *analysis.Pass) (any, error) {
	s, err := load(p)
	if err != nil {
		return nil, err
	}
	results := s.Snap.ResultsFile
	if len(s.Set.Runs) == 0 {
		s.Add(finding.Warn, "layout", results, 0, "", "", "", "no run's command names a token file of the manifest (rules.tf.files): the runs are not checked against their files")
	}
	vsrc := s.Set.VocabFile
	for _, e := range s.Set.Files {
		if e.LayoutErr != nil {
			s.Add(finding.Fail, "layout", e.Rel, 1, "", fmt.Sprint(len(e.IDs), " ids"), vsrc,
				"no teacher-forcing layout (user turn, assistant header, scored span): %v", e.LayoutErr)
			continue
		}
		l := e.Layout
		s.Add(finding.Pass, "layout", e.Rel, e.Line(0), "",
			fmt.Sprintf("%d ids = %d user + %d header + %d scored", len(e.IDs), l.User.Len(), l.Header.Len(), l.Scored.Len()), vsrc,
			"layout: user turn ids %d–%d (%d), assistant header %d–%d (%d), scored %d–%d (%d)",
			l.User.Start, l.User.End-1, l.User.Len(), l.Header.Start, l.Header.End-1, l.Header.Len(), l.Scored.Start, l.Scored.End-1, l.Scored.Len())
	}
	for _, r := range s.Set.Runs {
		s.checkRun(r)
	}
	for _, e := range s.Set.Files {
		s.checkHash(e)
	}
	templateFirst := false
	for _, e := range s.Set.Files {
		if e.LayoutErr != nil {
			continue
		}
		s.checkContent(e)
		templateFirst = templateFirst || tf.IsTemplateToken(s.Set.Vocab, e.IDs[e.Layout.Scored.Start])
	}
	if templateFirst {
		if summary := s.macrosWithout(); summary != "" {
			sev, src := finding.Warn, vsrc
			if where, ok := s.Place.Caveat(CaveatTFTemplateToken); ok {
				sev, src = finding.Pass, where
			}
			s.Add(sev, "template", s.Place.File, s.Place.Line, s.Place.Quote(), summary, src,
				"the macros count the template token that opens every scored span; with and without it (assuming it agreed at zero divergence): %s", summary)
		}
	}
	return nil, nil
}

// macrosWithout returns, per configuration, the macro top-1 agreement and
// mean KLD with the first scored token and without it (where it is a
// template token, assumed agreed at zero divergence). Top-1 is rounded to
// 2 dp per domain before the macro, as the runner does.
func (s *state) macrosWithout() string {
	type vals struct{ top1, top1W, kld, kldW map[string]float64 }
	byConfig := map[string]*vals{}
	var configs []string
	for _, r := range s.Set.Runs {
		if r.File.LayoutErr != nil {
			continue
		}
		ms := s.MS[r.Run.Name]
		k, _, okK := tfstate.Value(ms, "top1_count")
		n, _, okN := tfstate.Value(ms, "top1_total")
		mean, _, okM := tfstate.Value(ms, "kld_mean")
		if !okK || !okN || !okM || n < 2 {
			return ""
		}
		cfg := s.ConfigOf(r.Run.Name)
		v := byConfig[cfg]
		if v == nil {
			v = &vals{map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}}
			byConfig[cfg] = v
			configs = append(configs, cfg)
		}
		d := r.File.Domain
		v.top1[d], v.kld[d] = 100*k/n, mean
		v.top1W[d], v.kldW[d] = 100*k/n, mean
		if tf.IsTemplateToken(s.Set.Vocab, r.File.IDs[r.File.Layout.Scored.Start]) && k >= 1 {
			v.top1W[d] = 100 * (k - 1) / (n - 1)
			v.kldW[d], _ = kld.ExcludeFirst(mean, int(n), 0)
		}
	}
	sort.Strings(configs)
	var parts []string
	for _, cfg := range configs {
		v := byConfig[cfg]
		t, err1 := kld.Macro(v.top1, 2)
		tw, err2 := kld.Macro(v.top1W, 2)
		m, err3 := kld.Macro(v.kld, -1)
		mw, err4 := kld.Macro(v.kldW, -1)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return ""
		}
		parts = append(parts, fmt.Sprintf("%s top-1 %.3f → %.3f, mean KLD %.6f → %.6f", cfg, t, tw, m, mw))
	}
	return strings.Join(parts, "; ")
}

func (s *state) checkRun(r *facts.TFRun) {
	results := s.Snap.ResultsFile
	cmd := strings.Join(r.Run.Cmd, " ")
	if r.FlagErr != nil {
		s.Add(finding.Fail, "layout", results, r.Run.Line, cmd, "", r.Run.Source, "run %s: %v", r.Run.Name, r.FlagErr)
		return
	}
	var problems []string
	l := r.File.Layout
	np, ng := s.Set.Flags.Prompt, s.Set.Flags.Gen
	if r.File.LayoutErr == nil {
		if r.NPrompt != l.Prompt() {
			problems = append(problems, fmt.Sprintf("%s %d but %s has %d prompt ids (user turn + header)", np, r.NPrompt, r.File.Rel, l.Prompt()))
		}
		if r.NGen != l.Scored.Len() {
			problems = append(problems, fmt.Sprintf("%s %d but %s has %d scored ids", ng, r.NGen, r.File.Rel, l.Scored.Len()))
		}
	}
	evalText := "no parsed tail"
	if ms := s.MS[r.Run.Name]; ms != nil {
		eval, text, found := tfstate.Value(ms, "eval_tokens")
		switch {
		case !found:
			problems = append(problems, "its tail has no eval_tokens")
			evalText = "no eval_tokens"
		case int(eval) != r.NGen || float64(int(eval)) != eval:
			problems = append(problems, fmt.Sprintf("eval_tokens=%s but %s %d", text, ng, r.NGen))
			evalText = "eval_tokens=" + text
		default:
			evalText = "eval_tokens=" + text
		}
		for _, m := range []struct {
			name string
			want int
		}{{"tf_n_prompt", r.NPrompt}, {"tf_n_gen", r.NGen}} {
			if v, text, ok := tfstate.Value(ms, m.name); ok && v != float64(m.want) {
				problems = append(problems, fmt.Sprintf("its tail logs %s %s but the command says %d", m.name, text, m.want))
			}
		}
	} else {
		problems = append(problems, "no parsed tail")
	}
	raw := fmt.Sprintf("%s %d %s %d; %s", np, r.NPrompt, ng, r.NGen, evalText)
	if len(problems) > 0 {
		s.Add(finding.Fail, "layout", results, r.Run.Line, cmd, raw, r.Run.Source, "run %s: %s", r.Run.Name, strings.Join(problems, "; "))
		return
	}
	s.Add(finding.Pass, "layout", results, r.Run.Line, cmd, raw, r.Run.Source,
		"run %s: %s %d %s %d and %s agree with %s (%d prompt + %d scored ids)",
		r.Run.Name, np, r.NPrompt, ng, r.NGen, evalText, r.File.Rel, l.Prompt(), l.Scored.Len())
}

func (s *state) checkHash(e *facts.TFFile) {
	results := s.Snap.ResultsFile
	rec := s.Snap.Provenance.File(e.Rel)
	if rec == nil {
		s.Add(finding.Fail, "layout", e.Rel, 0, "", "sha256 "+e.SHA256, results+": provenance", "not in provenance: its hash was never recorded")
		return
	}
	src := fmt.Sprintf("%s:%d: %s", results, rec.Line, rec.JSONPath)
	if !strings.EqualFold(rec.SHA256, e.SHA256) || (rec.Bytes != 0 && rec.Bytes != e.Size) {
		s.Add(finding.Fail, "layout", e.Rel, 0, rec.SHA256, fmt.Sprintf("sha256 %s, %d bytes", e.SHA256, e.Size), src,
			"file on disk does not match provenance (sha256 %s, %d bytes recorded)", rec.SHA256, rec.Bytes)
		return
	}
	s.Add(finding.Pass, "layout", e.Rel, 0, rec.SHA256, "sha256 "+e.SHA256, src, "sha256 matches provenance")
}

func (s *state) checkContent(e *facts.TFFile) {
	v, l := s.Set.Vocab, e.Layout
	vsrc := s.Set.VocabFile
	content, err := tf.Text(e.IDs, v, l.Content)
	text, err2 := tf.Text(e.IDs, v, tf.Span{Start: l.Content.Start, End: l.Scored.End})
	if err := errors.Join(err, err2); err != nil {
		s.Add(finding.Fail, "layout", e.Rel, e.Line(l.Content.Start), "", "", vsrc, "the user turn and scored span do not decode: %v", err)
		return
	}
	// The quote is the turn's opening, escaped so that it stays on one line.
	quote := content
	if r := []rune(quote); len(r) > 60 {
		quote = string(r[:60]) + "…"
	}
	quote = strings.Trim(strconv.Quote(quote), `"`)
	s.checkTruncated(e, content, quote)
	// The first scored token is a template token.
	first := e.IDs[l.Scored.Start]
	if tf.IsTemplateToken(v, first) {
		raw := fmt.Sprintf("ids[%d] = %d %q (%s)", l.Scored.Start, first, v.Tokens[first], v.Type(first))
		stats := s.withoutFirst(e)
		if where, ok := s.Place.Caveat(CaveatTFTemplateToken); ok {
			s.Add(finding.Pass, "template", e.Rel, e.Line(l.Scored.Start), v.Tokens[first], raw, where,
				"the first scored token is the template token %s, scored in the runs; stated in PLAN%s", v.Tokens[first], stats)
		} else {
			s.Add(finding.Warn, "template", e.Rel, e.Line(l.Scored.Start), v.Tokens[first], raw, vsrc,
				"the first scored token is the template token %s, near-deterministic: free agreement in every run; exclude it from scoring or state it in %s as caveat (%s)%s",
				v.Tokens[first], s.Place.Where(), CaveatTFTemplateToken, stats)
		}
	} else {
		s.Add(finding.Pass, "template", e.Rel, e.Line(l.Scored.Start), v.Tokens[first], fmt.Sprintf("id %d", first), vsrc,
			"the first scored token is ordinary text, not a template token")
	}
	// The domain label fits the content.
	if checked, fits, want := tf.FitsLabel(e.Domain, text); checked {
		switch {
		case fits:
			s.Add(finding.Pass, "label", e.Rel, 1, e.Domain, quote, e.Rel, "domain %s: the text holds %s", e.Domain, want)
		default:
			if where, ok := s.Place.Caveat(CaveatTFDomainLabel); ok {
				s.Add(finding.Pass, "label", e.Rel, 1, e.Domain, quote, where, "domain %s: the text holds no %s; stated in PLAN", e.Domain, want)
			} else {
				s.Add(finding.Warn, "label", e.Rel, 1, e.Domain, quote, vsrc,
					"domain %s: neither the user turn nor the scored reply holds %s, so the label does not describe the content; relabel it or state it in %s as caveat (%s)",
					e.Domain, want, s.Place.Where(), CaveatTFDomainLabel)
			}
		}
	}
	// <think> followed by its newline, as the chat template writes it.
	if pos, found, newline := tf.ThinkNewline(e.IDs, v, l); found {
		after := ""
		if pos+1 < len(e.IDs) {
			p, _ := v.Piece(e.IDs[pos+1])
			after = string(p)
		}
		raw := fmt.Sprintf("ids[%d] = %s, then %q", pos, tf.Think, after)
		if newline {
			s.Add(finding.Pass, "think", e.Rel, e.Line(pos), tf.Think, raw, vsrc, "%s is followed by its newline", tf.Think)
		} else {
			tmpl := ""
			if strings.Contains(v.ChatTemplate, tf.Think+"\n") || strings.Contains(v.ChatTemplate, tf.Think+`\n`) {
				tmpl = ", unlike the chat template, which writes it with one"
			}
			s.Add(finding.Warn, "think", e.Rel, e.Line(pos), tf.Think, raw, vsrc,
				"%s has no newline after it%s: the scored span is not in the format the model generates", tf.Think, tmpl)
		}
	}
}

// checkTruncated reports whether the user turn starts mid-document: from
// the recorded source offset, or, where none is recorded, from the text.
func (s *state) checkTruncated(e *facts.TFFile, content, quote string) {
	line := e.Line(e.Layout.Content.Start)
	truncated, src := e.SourceOffset > 0, fmt.Sprintf("%s: source_offset %d", e.Rel, e.SourceOffset)
	what := fmt.Sprintf("it starts at byte %d of %q", e.SourceOffset, e.Source)
	if !e.HasOffset {
		var test string
		truncated, test = tf.LooksTruncated(content)
		src = e.Rel + ": no source offset recorded; judged from the decoded text"
		what = "by the text test, " + test
		if !truncated {
			s.Add(finding.Pass, "truncated", e.Rel, line, quote, "no source offset", e.Rel,
				"no source offset recorded; the text test finds no sign that the user turn starts mid-document: %s", test)
			return
		}
	}
	switch {
	case !truncated:
		s.Add(finding.Pass, "truncated", e.Rel, line, quote, "source_offset 0", e.Rel, "user turn starts at the beginning of its document")
	case e.HasOffset:
		if where, ok := s.Place.Caveat(CaveatTFTruncated); ok {
			s.Add(finding.Pass, "truncated", e.Rel, line, quote, src, where,
				"user turn starts mid-document (byte %d of %q); stated in PLAN", e.SourceOffset, e.Source)
			return
		}
		s.Add(finding.Warn, "truncated", e.Rel, line, quote, src, s.Set.VocabFile,
			"user turn is a left-truncated fragment: %s, so the scored reply refers to context the prompt does not hold (off-context teacher forcing); state it in %s as caveat (%s)",
			what, s.Place.Where(), CaveatTFTruncated)
	default:
		if where, ok := s.Place.Caveat(CaveatTFTruncated); ok {
			s.Add(finding.Pass, "truncated", e.Rel, line, quote, src, where, "user turn starts mid-document (%s); stated in PLAN", what)
			return
		}
		s.Add(finding.Warn, "truncated", e.Rel, line, quote, src, s.Set.VocabFile,
			"user turn looks left-truncated (%s; no source offset recorded), so the scored reply may refer to context the prompt does not hold; state it in %s as caveat (%s)",
			what, s.Place.Where(), CaveatTFTruncated)
	}
}

// withoutFirst describes the runs' statistics with and without the first
// scored token, assuming the near-deterministic template token was
// predicted in agreement and with no divergence.
func (s *state) withoutFirst(e *facts.TFFile) string {
	var parts []string
	for _, r := range s.Set.Runs {
		if r.File != e {
			continue
		}
		ms := s.MS[r.Run.Name]
		k, _, okK := tfstate.Value(ms, "top1_count")
		n, _, okN := tfstate.Value(ms, "top1_total")
		mean, meanText, okM := tfstate.Value(ms, "kld_mean")
		if !okK || !okN || !okM || n < 2 || k < 1 {
			continue
		}
		without, err := kld.ExcludeFirst(mean, int(n), 0)
		if err != nil {
			continue
		}
		pct := fmt.Sprintf("%.2f", 100*k/n)
		if _, text, ok := tfstate.Value(ms, "top1_pct"); ok {
			pct = text
		}
		parts = append(parts, fmt.Sprintf("%s: top-1 %d/%d = %s%% → %d/%d = %.2f%%, mean KLD %s → %.6f",
			r.Run.Name, int(k), int(n), pct, int(k)-1, int(n)-1, 100*(k-1)/(n-1), meanText, without))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; with and without it (assuming it agreed at zero divergence): " + strings.Join(parts, "; ")
}
