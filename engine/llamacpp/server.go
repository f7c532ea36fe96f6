package llamacpp

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// The server's timing prints, by generation:
//
//   - 2023 to mid 2024, text log: "print_timings: prompt eval time = … ms /
//     N tokens (…)", "generation eval time = … ms / N runs (…)", "total time
//     = … ms", with "INFO [           print_timings] " before and " | tid=…"
//     after; or the JSON log, {"function":"print_timings",…,"msg":"prompt
//     eval time = …",…}.
//   - late 2024 on: a header "slot print_timing: id  0 | task 0 | " and, on
//     the lines after it, "prompt eval time = … ms / N tokens (…)", "eval
//     time = … ms / N tokens (…)", "total time = … ms / N tokens", from
//     2026 "graphs reused = N" and, with a draft model, "draft acceptance
//     rate = R (A accepted / G generated)" ("draft acceptance = …" from
//     2026); lines may carry a "[pid] " prefix. Progress lines share the
//     header ("… | n_decoded = …, tg = … t/s", "… | prompt processing, …"):
//     they are known and skipped.
//   - a response's "timings" object: prompt_n, prompt_ms,
//     prompt_per_token_ms, prompt_per_second, predicted_n, predicted_ms,
//     predicted_per_token_ms, predicted_per_second, cache_n and, with a
//     draft model, draft_n and draft_n_accepted.
//
// Metric names are the summary's (Parse): prompt_eval_ms,
// prompt_eval_tokens, prompt_ms_per_tok, prompt_tok_s, eval_ms,
// eval_tokens ("runs" in 2024: one token each), eval_ms_per_tok, eval_tok_s, total_ms,
// total_tokens, graphs_reused; and draft_acceptance_rate, cache_tokens,
// draft_tokens, draft_accepted_tokens. Any other member of timings is timings_<member>.
// Each request adds its own.

const (
	markSlotTiming = "slot print_timing:"
	markOldTiming  = "print_timings]"
	markJSONTiming = `"function":"print_timings"`
	markTimings    = `"timings":`
)

var timingsNames = map[string]struct{ name, unit string }{
	"prompt_n":               {"prompt_eval_tokens", "tokens"},
	"prompt_ms":              {"prompt_eval_ms", "ms"},
	"prompt_per_token_ms":    {"prompt_ms_per_tok", "ms/tok"},
	"prompt_per_second":      {"prompt_tok_s", "tok/s"},
	"predicted_n":            {"eval_tokens", "tokens"},
	"predicted_ms":           {"eval_ms", "ms"},
	"predicted_per_token_ms": {"eval_ms_per_tok", "ms/tok"},
	"predicted_per_second":   {"eval_tok_s", "tok/s"},
	"cache_n":                {"cache_tokens", "tokens"},
	"draft_n":                {"draft_tokens", "tokens"},
	"draft_n_accepted":       {"draft_accepted_tokens", "tokens"},
}

// ParseServer reads llama-server's per-request timings from its log and
// from response bodies in text. A line that carries a timing marker and does
// not read is an error with its line.
func ParseServer(source, text string) *tail.Metrics { return parseServer(source, text, 0) }

// parseServer is ParseServer keeping at most max metrics (0: no limit).
func parseServer(source, text string, max int) *tail.Metrics {
	p := parser{ms: &tail.Metrics{Source: source, Max: max}, source: source}
	pending := 0 // continuation lines still expected after a slot header
	ls := newLines(text)
	for !p.ms.Over && ls.next() {
		line, s := ls.n, strings.TrimRight(ls.line, "\r")
		if pending > 0 {
			pending = p.slotContinuation(line, s, pending)
		} else if strings.HasPrefix(strings.TrimLeft(stripLogPrefix(s), " "), "prompt eval time =") {
			// A timing block whose header the tail cut off.
			pending = p.slotContinuation(line, s, 4)
		}
		if strings.IndexByte(s, 't') < 0 { // every marker has a 't'
			continue
		}
		switch {
		case strings.Contains(s, markSlotTiming):
			pending = p.slotHeader(line, s[strings.Index(s, markSlotTiming)+len(markSlotTiming):])
		case strings.Contains(s, markJSONTiming):
			p.jsonLogTiming(line, s)
		case strings.Contains(s, markOldTiming):
			rest := s[strings.Index(s, markOldTiming)+len(markOldTiming):]
			if i := strings.Index(rest, " | "); i >= 0 {
				rest = rest[:i]
			}
			p.summary(line, rest)
		}
		if i := strings.Index(s, markTimings); i >= 0 {
			// The object may be pretty-printed over several lines.
			p.timingsJSON(line, text, ls.start+i+len(markTimings))
		}
	}
	return p.ms
}

// slotHeader reads what follows "slot print_timing:" and returns how many
// continuation lines to read.
func (p *parser) slotHeader(n int, rest string) int {
	// "id  0 | task 0 | <what>"
	parts := strings.SplitN(rest, "|", 3)
	if len(parts) < 3 {
		p.errorf(n, "llama-server timing: want \"id N | task N | …\", got %q", strings.TrimSpace(rest))
		return 0
	}
	what := strings.TrimSpace(parts[2])
	switch {
	case what == "":
		return 4 // prompt eval, eval, total and maybe draft acceptance
	case strings.HasPrefix(what, "n_decoded"), strings.HasPrefix(what, "prompt processing"):
		return 0 // progress
	case strings.Contains(what, "="):
		// A timing on the header line itself.
		p.summary(n, what)
		return 3
	}
	p.errorf(n, "llama-server timing: unknown %q", what)
	return 0
}

// slotContinuation reads one line after a slot header; it returns how many
// more may follow. A line that is not one of the timing labels ends the
// timing block (another log line follows it).
func (p *parser) slotContinuation(n int, s string, pending int) int {
	s = stripLogPrefix(s)
	label, rest, ok := strings.Cut(s, "=")
	label = strings.TrimSpace(label)
	switch {
	case !ok:
		return 0
	case label == "draft acceptance rate" || label == "draft acceptance":
		// "= 0.57 (   8 accepted /    14 generated)"
		sc := scanner{s: rest}
		v, ok := p.number(n, &sc, label)
		if !ok {
			return 0
		}
		p.add(n, "draft_acceptance_rate", v, "")
		if sc.done() {
			return 0
		}
		if !sc.expect("(") {
			p.errorf(n, "%s: want \"(N accepted / M generated)\" after %s, got %q", label, v.Text, sc.rest())
			return 0
		}
		a, ok := p.number(n, &sc, label)
		if !ok {
			return 0
		}
		if !sc.expect("accepted") || !sc.expect("/") {
			p.errorf(n, "%s: want \"accepted /\" after %s, got %q", label, a.Text, sc.rest())
			return 0
		}
		g, ok := p.number(n, &sc, label)
		if !ok {
			return 0
		}
		if !sc.expect("generated)") {
			p.errorf(n, "%s: want \"generated)\" after %s, got %q", label, g.Text, sc.rest())
			return 0
		}
		p.add(n, "draft_accepted_tokens", a, "tokens")
		p.add(n, "draft_tokens", g, "tokens")
		return 0
	case label == "graphs reused":
		p.summary(n, s)
		return pending - 1
	case strings.HasSuffix(label, "time"):
		p.summary(n, s)
		if label == "total time" {
			return 2 // graphs reused and a draft acceptance may follow
		}
		return pending - 1
	}
	return 0
}

// stripLogPrefix removes the prefixes llama.cpp's log and process
// supervisors put before a message: "[12345] " (a pid) and the common
// log's "0.05.123.456 I ".
func stripLogPrefix(s string) string {
	t := strings.TrimLeft(s, " ")
	if len(t) > 2 && t[0] == '[' {
		i := 1
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i > 1 && i+1 < len(t) && t[i] == ']' && t[i+1] == ' ' {
			t = t[i+2:]
		}
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	if i > 0 && i+2 < len(t) && t[i] == ' ' && strings.IndexByte("DIWE", t[i+1]) >= 0 && t[i+2] == ' ' {
		return t[i+3:]
	}
	if t != strings.TrimLeft(s, " ") {
		return t
	}
	return s
}

// jsonLogTiming reads the msg of a JSON log line of print_timings.
func (p *parser) jsonLogTiming(n int, s string) {
	i := strings.Index(s, `"msg":`)
	if i < 0 {
		p.errorf(n, "llama-server JSON log timing without \"msg\"")
		return
	}
	r := &jsonReader{s: s, i: i + len(`"msg":`), line: n}
	msg, err := r.str()
	if err != nil {
		p.errorf(n, "llama-server JSON log timing: %v", trimLinePrefix(err))
		return
	}
	p.summary(n, msg)
}

// timingsJSON reads a response's timings object at text[at:], on line n.
func (p *parser) timingsJSON(n int, text string, at int) {
	r := &jsonReader{s: text, i: at, line: n}
	err := r.object(func(f jsonField) error {
		if f.isArr || f.str {
			return fmt.Errorf("member %q is not a number", f.key)
		}
		v, err := num.Parse(f.val)
		if err != nil {
			return fmt.Errorf("member %q: %v", f.key, err)
		}
		m, ok := timingsNames[f.key]
		if !ok {
			m.name = "timings_" + f.key
		}
		p.add(n, m.name, v, m.unit)
		return nil
	})
	if err != nil {
		p.errorf(n, "llama-server timings: %v", trimLinePrefix(err))
	}
}
