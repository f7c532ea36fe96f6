package llamacpp

import (
	"strings"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// llama-perplexity's results, by generation (tools/perplexity/perplexity.cpp):
//
//	[1]4.1679,[2]7.8456,[3]8.9743,          running estimate after each chunk
//	Final estimate: PPL = 11.2206 +/- 3.51829     (from late 2023)
//
// and, with --kl-divergence, statistics blocks. Early 2024 (b1960 to about
// b2700) printed one block without a closing rule:
//
//	===== KL-divergence statistics
//	Average:   0.010623 ±   0.000065
//	Median :   0.005517
//	Minimum:  …   Maximum:  …   KLD_99 :  …   KLD_95 :  …   KLD_90 :  …
//	KLD_01 :  …   KLD_05 :  …   KLD_10 :  …
//
// Later builds print three blocks:
//
//	====== Perplexity statistics ======
//	Mean PPL(Q)                   :  15.887100 ±   0.246800
//	...
//	====== KL divergence statistics ======
//	Mean    KLD:   0.009876 ±   0.000234
//	Maximum KLD:   2.345678
//	99.9%   KLD:   0.456789
//	...
//	====== Token probability statistics ======
//	Mean    Δp: -0.090 ± 0.010 %
//	...
//	Same top p: 96.418 ±  0.049 %
//
// llama-perplexity prints the blocks only when at least 100 tokens were
// scored. Builds of mid 2024 print "99.0%" twice (the second is the 95th
// percentile); every line is matched by its label, not its position, and
// both are kept as printed.
//
// With --kl-divergence every chunk prints a row of running estimates under a
// header naming its columns, "x ± y" each (2024: "chunk PPL
// ln(PPL(Q)/PPL(base)) KL-Divergence Same top", the last a fraction; later
// "… KL Divergence Δp RMS Same top p", the last two in %). Each column is
// a metric: chunk_ppl, chunk_ln_ppl_ratio, chunk_kld, chunk_dp_rms,
// chunk_same_top (fraction) or chunk_same_top_p (%), with "_unc" for the
// value after ±.
//
// Metric names: chunk_ppl (one per chunk, in order), ppl_final and
// ppl_final_unc; in the blocks ppl_q, ppl_base, ppl_cor, ln_ppl_ratio,
// ppl_ratio, ppl_diff, kld_mean, kld_max, kld_min, kld_median, kld_p99_9,
// kld_p99, kld_p95, kld_p90, kld_p10, kld_p5, kld_p1, kld_p0_1, dp_mean,
// dp_max, dp_min, dp_median, dp_p…, dp_rms, same_top_p; a value printed
// with ± (or +/-) has a second metric named with "_unc". The old block's
// Average, Median, Minimum, Maximum and KLD_NN map to the same kld_ names.

var pplNames = map[string]string{
	"Mean PPL(Q)":                    "ppl_q",
	"Mean PPL(base)":                 "ppl_base",
	"Cor(ln(PPL(Q)), ln(PPL(base)))": "ppl_cor",
	"Mean ln(PPL(Q)/PPL(base))":      "ln_ppl_ratio",
	"Mean PPL(Q)/PPL(base)":          "ppl_ratio",
	"Mean PPL(Q)-PPL(base)":          "ppl_diff",
}

// chunkColumns maps the per-chunk table's column names to metric names.
var chunkColumns = map[string]string{
	"PPL":                  "chunk_ppl",
	"ln(PPL(Q)/PPL(base))": "chunk_ln_ppl_ratio",
	"KL-Divergence":        "chunk_kld",
	"KL Divergence":        "chunk_kld",
	"Δp RMS":               "chunk_dp_rms",
	"Same top":             "chunk_same_top",
	"Same top p":           "chunk_same_top_p",
}

// chunkHeader reads a per-chunk table header ("chunk   PPL   ln(…)   …",
// columns two or more spaces apart) into metric names, one per column after
// "chunk"; false when the line is not such a header (the table of a plain
// perplexity run, "chunk PPL", has no rows this package reads).
func chunkHeader(line string) ([]chunkCol, bool) {
	rest, ok := strings.CutPrefix(line, "chunk")
	if !ok || !strings.Contains(rest, "PPL") {
		return nil, false
	}
	var names []chunkCol
	for _, col := range strings.Split(rest, "  ") {
		col = strings.TrimSpace(col)
		if col == "" {
			continue
		}
		name, ok := chunkColumns[col]
		if !ok {
			return nil, false
		}
		names = append(names, chunkCol{name, name + "_unc"})
	}
	// Every generation prints at least PPL, the log ratio and the KLD.
	return names, len(names) >= 3
}

// chunkCol is one column of the per-chunk table: its metric names.
type chunkCol struct{ name, unc string }

// chunkRow reads one row of the per-chunk table: the chunk number, then per
// column "x [± y] [%]".
func (p *parser) chunkRow(n int, line string, cols []chunkCol) {
	sc := scanner{s: line}
	if _, ok := p.number(n, &sc, "perplexity chunk row"); !ok {
		return
	}
	type val struct {
		v, u num.Number
		unc  bool
		unit string
		col  chunkCol
	}
	var buf [8]val
	vals := buf[:0]
	for _, col := range cols {
		v, unit, ok := p.valueUnit(n, &sc, col.name)
		if !ok {
			return
		}
		x := val{v: v, unit: unit, col: col}
		if sc.expect("±") {
			u, uUnit, ok := p.valueUnit(n, &sc, col.unc)
			if !ok {
				return
			}
			x.u, x.unc = u, true
			if uUnit != "" {
				x.unit = uUnit
			}
		}
		vals = append(vals, x)
	}
	if !sc.done() {
		p.errorf(n, "perplexity chunk row: %d columns in the header, more values in %q", len(cols), strings.TrimSpace(line))
		return
	}
	for _, x := range vals {
		p.add(n, x.col.name, x.v, x.unit)
		if x.unc {
			p.add(n, x.col.unc, x.u, x.unit)
		}
	}
}

// Block names, as the headers print them after the '=' are trimmed.
const (
	blockPPL    = "Perplexity statistics"
	blockKLD    = "KL divergence statistics"
	blockKLDOld = "KL-divergence statistics"
	blockDP     = "Token probability statistics"
)

// statName maps a label of the KLD or Δp blocks ("Mean    KLD", "99.9%
// KLD", " 5.0%   Δp", "RMS Δp", "Same top p") to a metric name.
func statName(label string) (string, bool) {
	f := strings.Fields(label)
	if len(f) == 3 && f[0] == "Same" && f[1] == "top" && f[2] == "p" {
		return "same_top_p", true
	}
	if len(f) != 2 {
		return "", false
	}
	var prefix string
	switch f[1] {
	case "KLD":
		prefix = "kld_"
	case "Δp":
		prefix = "dp_"
	default:
		return "", false
	}
	switch f[0] {
	case "Mean":
		return prefix + "mean", true
	case "Maximum":
		return prefix + "max", true
	case "Minimum":
		return prefix + "min", true
	case "Median":
		return prefix + "median", true
	case "RMS":
		return prefix + "rms", true
	}
	if p, ok := strings.CutSuffix(f[0], "%"); ok {
		if _, err := num.Parse(p); err == nil {
			return prefix + "p" + strings.TrimSuffix(strings.ReplaceAll(p, ".", "_"), "_0"), true
		}
	}
	return "", false
}

// oldStatName maps a label of the early-2024 block to a metric name.
func oldStatName(label string) (string, bool) {
	switch label {
	case "Average":
		return "kld_mean", true
	case "Median":
		return "kld_median", true
	case "Minimum":
		return "kld_min", true
	case "Maximum":
		return "kld_max", true
	}
	if p, ok := strings.CutPrefix(label, "KLD_"); ok && len(p) == 2 && p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9' {
		return "kld_p" + strings.TrimPrefix(p, "0"), true
	}
	return "", false
}

// ParsePerplexity reads llama-perplexity's results in text: the chunk
// estimates, the final estimate and the statistics blocks. A line inside a
// block that does not read, a chunk line that does not read, and a "Final
// estimate" that does not read are errors with their line; parsing goes on.
// A tail with a KL-divergence block but no mean KLD line is an error.
func ParsePerplexity(source, text string) *tail.Metrics { return parsePerplexity(source, text, 0) }

// parsePerplexity is ParsePerplexity keeping at most max metrics (0: no
// limit).
func parsePerplexity(source, text string, max int) *tail.Metrics {
	p := parser{ms: &tail.Metrics{Source: source, Max: max}, source: source}
	// Most values are printed with an uncertainty: two metrics per "±".
	p.ms.List = make([]tail.Metric, 0, p.ms.Prealloc(2*strings.Count(text, "±")+16))
	block := ""
	var chunkCols []chunkCol                    // the per-chunk table's columns while reading its rows
	lastHeader, lastCols := "", []chunkCol(nil) // later builds repeat the header before every row
	sawMean := false
	kldLine := 0 // line of the KL-divergence block's header, 0 if none
	ls := newLines(text)
	for !p.ms.Over && ls.next() {
		n, line := ls.n, ls.line
		if len(line) > 0 && line[0] >= '0' && line[0] <= '9' {
			line = stripLogPrefix(line)
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			block, chunkCols = "", nil
			continue
		}
		if chunkCols != nil {
			if trimmed[0] >= '0' && trimmed[0] <= '9' {
				p.chunkRow(n, trimmed, chunkCols)
				continue
			}
			if trimmed != "..." { // an elision in a posted excerpt
				chunkCols = nil
			}
		}
		switch trimmed[0] {
		case 'c':
			if trimmed == lastHeader {
				chunkCols = lastCols
				continue
			}
			if cols, ok := chunkHeader(trimmed); ok {
				chunkCols, lastHeader, lastCols = cols, trimmed, cols
				continue
			}
		case '=':
			if strings.HasPrefix(trimmed, "=====") {
				block = strings.Trim(trimmed, "= ")
				if (block == blockKLD || block == blockKLDOld) && kldLine == 0 {
					kldLine = n
				}
				continue
			}
		case '[':
			if len(trimmed) > 1 && trimmed[1] >= '0' && trimmed[1] <= '9' {
				p.chunks(n, trimmed)
				continue
			}
		case 'F':
			if rest, ok := strings.CutPrefix(trimmed, "Final estimate:"); ok {
				p.finalEstimate(n, rest)
				continue
			}
		}
		if block == "" {
			continue
		}
		label, value, ok := strings.Cut(line, ":")
		if !ok {
			p.errorf(n, "%s: unreadable line %q", block, trimmed)
			continue
		}
		label = strings.TrimSpace(label)
		var name string
		switch block {
		case blockPPL:
			name, ok = pplNames[strings.Join(strings.Fields(label), " ")]
		case blockKLD, blockDP:
			name, ok = statName(label)
		case blockKLDOld:
			name, ok = oldStatName(label)
		default:
			continue // a block this package does not read
		}
		if !ok {
			p.errorf(n, "%s: unknown statistic %q", block, label)
			continue
		}
		if p.stat(n, name, value, block, trimmed) && name == "kld_mean" {
			sawMean = true
		}
	}
	if kldLine > 0 && !sawMean {
		p.errorf(kldLine, `"KL divergence statistics" block has no "Mean    KLD:" line`)
	}
	return p.ms
}

// stat reads "v [%] [± u [%]]" and adds name (and name_unc).
func (p *parser) stat(n int, name, value, block, line string) bool {
	sc := scanner{s: value}
	v, unit, ok := p.valueUnit(n, &sc, name)
	if !ok {
		return false
	}
	var u num.Number
	hasUnc := false
	if w := sc.word(); w != "" {
		rest := ""
		switch {
		case w == "±" || w == "+/-":
		case strings.HasPrefix(w, "±"):
			rest = strings.TrimPrefix(w, "±")
		default:
			p.errorf(n, "%s: unreadable line %q", block, line)
			return false
		}
		if rest != "" {
			sc.s = rest + " " + sc.s
		}
		var uUnit string
		u, uUnit, ok = p.valueUnit(n, &sc, name+"_unc")
		if !ok {
			return false
		}
		if uUnit != "" {
			unit = uUnit
		}
		hasUnc = true
	}
	if !sc.done() {
		p.errorf(n, "%s: unreadable line %q", block, line)
		return false
	}
	p.add(n, name, v, unit)
	if hasUnc {
		p.add(n, name+"_unc", u, unit)
	}
	return true
}

// valueUnit reads a number and an optional "%", glued or not.
func (p *parser) valueUnit(n int, sc *scanner, name string) (num.Number, string, bool) {
	w := sc.word()
	unit := ""
	if t, ok := strings.CutSuffix(w, "%"); ok && t != "" {
		w, unit = t, "%"
	} else if sc.expect("%") {
		unit = "%"
	}
	if w == "" {
		p.errorf(n, "%s: missing number", name)
		return num.Number{}, "", false
	}
	v, err := parseNumber(w)
	if err != nil {
		p.errorf(n, "%s: %v", name, err)
		return v, "", false
	}
	return v, unit, true
}

// chunks reads "[1]4.1679,[2]7.8456,…".
func (p *parser) chunks(n int, s string) {
	for s != "" {
		if s[0] != '[' {
			p.errorf(n, "perplexity chunk list: want \"[N]\", got %q", clip(s, 30))
			return
		}
		close := strings.IndexByte(s, ']')
		if close < 0 {
			p.errorf(n, "perplexity chunk list: unterminated %q", clip(s, 30))
			return
		}
		s = s[close+1:]
		v := s
		if i := strings.IndexByte(s, ','); i >= 0 {
			v, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		x, err := parseNumber(strings.TrimSpace(v))
		if err != nil {
			p.errorf(n, "perplexity chunk list: %v", err)
			return
		}
		p.add(n, "chunk_ppl", x, "")
		s = strings.TrimLeft(s, " \t\r")
	}
}

// finalEstimate reads " PPL = x +/- y".
func (p *parser) finalEstimate(n int, s string) {
	const label = "Final estimate"
	sc := scanner{s: s}
	if !sc.expect("PPL") || !sc.expect("=") {
		p.errorf(n, "%s: want \"PPL = x +/- y\", got %q", label, strings.TrimSpace(s))
		return
	}
	v, ok := p.number(n, &sc, label)
	if !ok {
		return
	}
	p.add(n, "ppl_final", v, "")
	if sc.done() {
		return
	}
	if !sc.expect("+/-") && !sc.expect("±") {
		p.errorf(n, "%s: want \"+/-\" after %s, got %q", label, v.Text, sc.rest())
		return
	}
	u, ok := p.number(n, &sc, label)
	if !ok {
		return
	}
	if !sc.done() {
		p.errorf(n, "%s: unexpected %q after %s", label, sc.rest(), u.Text)
		return
	}
	p.add(n, "ppl_final_unc", u, "")
}
