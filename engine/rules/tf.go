package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/kld"
	"github.com/strataspec/strataspec/engine/tf"
)

// Caveat ids the tf and kld rules look for in PLAN.md, in the section that
// quotes the teacher-forcing figures.
const (
	CaveatTFTruncated     = "tf-truncated-turns" // F33: user turns start mid-document
	CaveatTFTemplateToken = "tf-template-token"  // F34: the first scored token is a template token
	CaveatTFDomainLabel   = "tf-domain-label"    // F35: a domain label its content does not fit
	CaveatKLDSampleSize   = "kld-sample-size"    // F37: fewer than kld.MinDocs documents per domain
)

func init() {
	Register(Rule{
		Name: "tf",
		Doc:  "teacher-forcing token files: layout found by template-token text, run flags and eval_tokens agree, hashes match provenance; truncated turns, scored template token, domain labels, <think> newline",
		Check: func(c *Context) ([]finding.Finding, error) {
			set, err := loadTF(c)
			if err != nil {
				return nil, err
			}
			return checkTF(set), nil
		},
	})
}

func checkTF(s *tfSet) []finding.Finding {
	resultsFile := s.snap.ResultsFile
	var out []finding.Finding
	add := adder("tf", &out)
	if len(s.runs) == 0 {
		add(finding.Warn, "F32", resultsFile, 0, "", "", "", "no teacher-forcing runs (group %s) in the archive: nothing to check", archive.GroupTF)
		return out
	}
	vsrc := s.vocabFile
	// F32: the layout of each file, found by the template tokens' text.
	for _, e := range s.files {
		if e.layoutErr != nil {
			add(finding.Fail, "F32", e.rel, 1, "", fmt.Sprint(len(e.file.IDs), " ids"), vsrc,
				"no teacher-forcing layout (user turn, assistant header, scored span): %v", e.layoutErr)
			continue
		}
		l := e.layout
		add(finding.Pass, "F32", e.rel, e.line(0), "",
			fmt.Sprintf("%d ids = %d user + %d header + %d scored", len(e.file.IDs), l.User.Len(), l.Header.Len(), l.Scored.Len()), vsrc,
			"layout: user turn ids %d–%d (%d), assistant header %d–%d (%d), scored %d–%d (%d)",
			l.User.Start, l.User.End-1, l.User.Len(), l.Header.Start, l.Header.End-1, l.Header.Len(), l.Scored.Start, l.Scored.End-1, l.Scored.Len())
	}
	// F32: each run's flags and eval_tokens agree with its file's layout.
	for _, r := range s.runs {
		checkTFRun(s, r, add)
	}
	// F32: hashes match provenance.
	for _, e := range s.files {
		checkTFHash(s, e, add)
	}
	templateFirst := false
	for _, e := range s.files {
		if e.layoutErr != nil {
			continue
		}
		checkTFContent(s, e, add)
		templateFirst = templateFirst || tf.IsTemplateToken(s.vocab, e.file.IDs[e.layout.Scored.Start])
	}
	if templateFirst {
		if summary := s.macrosWithout(); summary != "" {
			sev, src := finding.Warn, s.vocabFile
			if where, ok := s.caveat(CaveatTFTemplateToken); ok {
				sev, src = finding.Pass, where
			}
			add(sev, "F34", PlanFile, s.claimLine, s.claimQuote(), summary, src,
				"the macros count the template token that opens every scored span; with and without it (assuming it agreed at zero divergence): %s", summary)
		}
	}
	return out
}

// macrosWithout returns, per configuration, the macro top-1 agreement and
// mean KLD with the first scored token and without it (where it is a
// template token, assumed agreed at zero divergence). Top-1 is rounded to
// 2 dp per domain before the macro, as the runner does.
func (s *tfSet) macrosWithout() string {
	type vals struct{ top1, top1W, kld, kldW map[string]float64 }
	byConfig := map[string]*vals{}
	var configs []string
	for _, r := range s.runs {
		if r.file.layoutErr != nil {
			continue
		}
		ms, ok := s.runMetrics(r.run.Name)
		if !ok {
			return ""
		}
		k, _, okK := metricValue(ms, "top1_count")
		n, _, okN := metricValue(ms, "top1_total")
		mean, _, okM := metricValue(ms, "kld_mean")
		if !okK || !okN || !okM || n < 2 {
			return ""
		}
		cfg := s.configOf(r.run.Name)
		v := byConfig[cfg]
		if v == nil {
			v = &vals{map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}}
			byConfig[cfg] = v
			configs = append(configs, cfg)
		}
		d := r.file.file.Domain
		v.top1[d], v.kld[d] = 100*k/n, mean
		v.top1W[d], v.kldW[d] = 100*k/n, mean
		if tf.IsTemplateToken(s.vocab, r.file.file.IDs[r.file.layout.Scored.Start]) && k >= 1 {
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

func checkTFRun(s *tfSet, r *tfRun, add addFunc) {
	resultsFile := s.snap.ResultsFile
	cmd := strings.Join(r.run.Cmd, " ")
	if r.flagErr != nil {
		add(finding.Fail, "F32", resultsFile, r.run.Line, cmd, "", r.run.Source, "run %s: %v", r.run.Name, r.flagErr)
		return
	}
	var problems []string
	l := r.file.layout
	if r.file.layoutErr == nil {
		if r.nPrompt != l.Prompt() {
			problems = append(problems, fmt.Sprintf("--n-prompt %d but %s has %d prompt ids (user turn + header)", r.nPrompt, r.file.rel, l.Prompt()))
		}
		if r.nGen != l.Scored.Len() {
			problems = append(problems, fmt.Sprintf("--n-gen %d but %s has %d scored ids", r.nGen, r.file.rel, l.Scored.Len()))
		}
	}
	evalText := "no parsed tail"
	if ms, ok := s.runMetrics(r.run.Name); ok {
		eval, text, found := metricValue(ms, "eval_tokens")
		switch {
		case !found:
			problems = append(problems, "its tail has no eval_tokens")
			evalText = "no eval_tokens"
		case int(eval) != r.nGen || float64(int(eval)) != eval:
			problems = append(problems, fmt.Sprintf("eval_tokens=%s but --n-gen %d", text, r.nGen))
			evalText = "eval_tokens=" + text
		default:
			evalText = "eval_tokens=" + text
		}
		for _, m := range []struct {
			name string
			want int
		}{{"tf_n_prompt", r.nPrompt}, {"tf_n_gen", r.nGen}} {
			if v, text, ok := metricValue(ms, m.name); ok && v != float64(m.want) {
				problems = append(problems, fmt.Sprintf("its tail logs %s %s but the command says %d", m.name, text, m.want))
			}
		}
	} else {
		problems = append(problems, "no parsed tail")
	}
	raw := fmt.Sprintf("--n-prompt %d --n-gen %d; %s", r.nPrompt, r.nGen, evalText)
	if len(problems) > 0 {
		add(finding.Fail, "F32", resultsFile, r.run.Line, cmd, raw, r.run.Source, "run %s: %s", r.run.Name, strings.Join(problems, "; "))
		return
	}
	add(finding.Pass, "F32", resultsFile, r.run.Line, cmd, raw, r.run.Source,
		"run %s: --n-prompt %d --n-gen %d and %s agree with %s (%d prompt + %d scored ids)",
		r.run.Name, r.nPrompt, r.nGen, evalText, r.file.rel, l.Prompt(), l.Scored.Len())
}

func checkTFHash(s *tfSet, e *tfEntry, add addFunc) {
	resultsFile := s.snap.ResultsFile
	data, err := s.snap.ReadFile(e.rel)
	if err != nil {
		add(finding.Fail, "F32", e.rel, 0, "", "", "", "cannot hash: %v", err)
		return
	}
	sum := sha256.Sum256(data)
	got := hex.EncodeToString(sum[:])
	rec := s.snap.Provenance.File(e.rel)
	if rec == nil {
		add(finding.Fail, "F32", e.rel, 0, "", "sha256 "+got, resultsFile+": provenance", "not in provenance: its hash was never recorded")
		return
	}
	src := fmt.Sprintf("%s:%d: %s", resultsFile, rec.Line, rec.JSONPath)
	if !strings.EqualFold(rec.SHA256, got) || (rec.Bytes != 0 && rec.Bytes != int64(len(data))) {
		add(finding.Fail, "F32", e.rel, 0, rec.SHA256, fmt.Sprintf("sha256 %s, %d bytes", got, len(data)), src,
			"file on disk does not match provenance (sha256 %s, %d bytes recorded)", rec.SHA256, rec.Bytes)
		return
	}
	add(finding.Pass, "F32", e.rel, 0, rec.SHA256, "sha256 "+got, src, "sha256 matches provenance")
}

func checkTFContent(s *tfSet, e *tfEntry, add addFunc) {
	v, l, f := s.vocab, e.layout, e.file
	content, err := tf.Text(f.IDs, v, l.Content)
	text, err2 := tf.Text(f.IDs, v, tf.Span{Start: l.Content.Start, End: l.Scored.End})
	if err := errors.Join(err, err2); err != nil {
		add(finding.Fail, "F32", e.rel, e.line(l.Content.Start), "", "", s.vocabFile, "the user turn and scored span do not decode: %v", err)
		return
	}
	// The quote is the turn's opening, escaped so that it stays on one line.
	quote := content
	if r := []rune(quote); len(r) > 60 {
		quote = string(r[:60]) + "…"
	}
	quote = strings.Trim(strconv.Quote(quote), `"`)
	// F33: the user turn starts mid-document.
	if f.SourceOffset > 0 {
		src := fmt.Sprintf("%s: source_offset %d", e.rel, f.SourceOffset)
		if where, ok := s.caveat(CaveatTFTruncated); ok {
			add(finding.Pass, "F33", e.rel, e.line(l.Content.Start), quote, src, where,
				"user turn starts mid-document (byte %d of %q); stated in PLAN", f.SourceOffset, f.Source)
		} else {
			add(finding.Warn, "F33", e.rel, e.line(l.Content.Start), quote, src, s.vocabFile,
				"user turn is a left-truncated fragment: it starts at byte %d of %q, so the scored reply refers to context the prompt does not hold (off-context teacher forcing); state it in %s as caveat (%s)",
				f.SourceOffset, f.Source, s.where(), CaveatTFTruncated)
		}
	} else {
		add(finding.Pass, "F33", e.rel, e.line(l.Content.Start), quote, "source_offset 0", e.rel, "user turn starts at the beginning of its document")
	}
	// F34: the first scored token is a template token.
	first := f.IDs[l.Scored.Start]
	if tf.IsTemplateToken(v, first) {
		raw := fmt.Sprintf("ids[%d] = %d %q (%s)", l.Scored.Start, first, v.Tokens[first], v.Type(first))
		stats := s.withoutFirst(e)
		if where, ok := s.caveat(CaveatTFTemplateToken); ok {
			add(finding.Pass, "F34", e.rel, e.line(l.Scored.Start), v.Tokens[first], raw, where,
				"the first scored token is the template token %s, scored in the runs; stated in PLAN%s", v.Tokens[first], stats)
		} else {
			add(finding.Warn, "F34", e.rel, e.line(l.Scored.Start), v.Tokens[first], raw, s.vocabFile,
				"the first scored token is the template token %s, near-deterministic: free agreement in every run; exclude it from scoring or state it in %s as caveat (%s)%s",
				v.Tokens[first], s.where(), CaveatTFTemplateToken, stats)
		}
	} else {
		add(finding.Pass, "F34", e.rel, e.line(l.Scored.Start), v.Tokens[first], fmt.Sprintf("id %d", first), s.vocabFile,
			"the first scored token is ordinary text, not a template token")
	}
	// F35: the domain label fits the content.
	if checked, fits, want := tf.FitsLabel(f.Domain, text); checked {
		switch {
		case fits:
			add(finding.Pass, "F35", e.rel, 1, f.Domain, quote, e.rel, "domain %s: the text holds %s", f.Domain, want)
		default:
			if where, ok := s.caveat(CaveatTFDomainLabel); ok {
				add(finding.Pass, "F35", e.rel, 1, f.Domain, quote, where, "domain %s: the text holds no %s; stated in PLAN", f.Domain, want)
			} else {
				add(finding.Warn, "F35", e.rel, 1, f.Domain, quote, s.vocabFile,
					"domain %s: neither the user turn nor the scored reply holds %s, so the label does not describe the content; relabel it or state it in %s as caveat (%s)",
					f.Domain, want, s.where(), CaveatTFDomainLabel)
			}
		}
	}
	// F36: <think> followed by its newline, as the chat template writes it.
	if pos, found, newline := tf.ThinkNewline(f.IDs, v, l); found {
		after := ""
		if pos+1 < len(f.IDs) {
			p, _ := v.Piece(f.IDs[pos+1])
			after = string(p)
		}
		raw := fmt.Sprintf("ids[%d] = %s, then %q", pos, tf.Think, after)
		if newline {
			add(finding.Pass, "F36", e.rel, e.line(pos), tf.Think, raw, s.vocabFile, "%s is followed by its newline", tf.Think)
		} else {
			tmpl := ""
			if strings.Contains(v.ChatTemplate, tf.Think+"\n") || strings.Contains(v.ChatTemplate, tf.Think+`\n`) {
				tmpl = ", unlike the chat template, which writes it with one"
			}
			add(finding.Warn, "F36", e.rel, e.line(pos), tf.Think, raw, s.vocabFile,
				"%s has no newline after it%s: the scored span is not in the format the model generates", tf.Think, tmpl)
		}
	}
}

// withoutFirst describes the runs' statistics with and without the first
// scored token, assuming the near-deterministic template token was predicted
// in agreement and with no divergence.
func (s *tfSet) withoutFirst(e *tfEntry) string {
	var parts []string
	for _, r := range s.runs {
		if r.file != e {
			continue
		}
		ms, ok := s.runMetrics(r.run.Name)
		if !ok {
			continue
		}
		k, _, okK := metricValue(ms, "top1_count")
		n, _, okN := metricValue(ms, "top1_total")
		mean, meanText, okM := metricValue(ms, "kld_mean")
		if !okK || !okN || !okM || n < 2 || k < 1 {
			continue
		}
		without, err := kld.ExcludeFirst(mean, int(n), 0)
		if err != nil {
			continue
		}
		pct := fmt.Sprintf("%.2f", 100*k/n)
		if _, text, ok := metricValue(ms, "top1_pct"); ok {
			pct = text
		}
		parts = append(parts, fmt.Sprintf("%s: top-1 %d/%d = %s%% → %d/%d = %.2f%%, mean KLD %s → %.6f",
			r.run.Name, int(k), int(n), pct, int(k)-1, int(n)-1, 100*(k-1)/(n-1), meanText, without))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; with and without it (assuming it agreed at zero divergence): " + strings.Join(parts, "; ")
}
