package llamacpp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// Bench is what llama-bench printed: one row per test and configuration.
//
// llama-bench prints (tools/llama-bench, -o md|json|jsonl|csv):
//
//   - md (the default): a table "| model | size | params | backend | ngl |
//     … | test | t/s |" whose last cell is "avg ± stddev", then "build:
//     <commit> (<number>)". Tests are named "pp 512" and "tg 128" until
//     2024, then "pp512", "tg128", "pp512+tg128" and "pp512 @ d1024".
//   - json: an array of objects, one per row, with every configuration
//     field (build_commit, model_type, n_batch, n_ubatch, n_threads,
//     n_gpu_layers, type_k, flash_attn, n_prompt, n_gen, n_depth, … and newer
//     ones such as n_cpu_moe, devices, no_host) and the results avg_ns,
//     stddev_ns, avg_ts, stddev_ts, samples_ns and samples_ts.
//   - jsonl: the same objects, one per line.
//   - csv: a header line "build_commit,…" and one quoted row per test, with
//     the results but without the samples.
//
// Loader and backend logs may come before and between (stderr in the same
// tail). Every format may occur in one tail, and several times.
type Bench struct {
	Source string
	Rows   []BenchRow
	Errors []*tail.Error
	// Max is the most rows kept, 0 for no limit; Over says a row past it
	// was found, and the rest of the text was not read.
	Max  int
	Over bool
}

// BenchRow is one test of one configuration.
type BenchRow struct {
	Line   int    // the row's line (a JSON object's opening line)
	Format string // "md", "json", "jsonl" or "csv"
	// Test is the test as llama-bench names it ("pp512", "tg128",
	// "pp512+tg128", "pp512 @ d1024"; "pp 512" in old tables), from the
	// table's test cell or from n_prompt, n_gen and n_depth.
	Test string
	// Config is every field of the row that is not a result, in printed
	// order, as printed: the configuration the row was measured under.
	Config []tail.Field
	// AvgTS and StddevTS are the mean and standard deviation of the
	// repetitions' tokens per second, as printed.
	AvgTS, StddevTS num.Number
	// Samples are the repetitions' tokens per second (samples_ts; JSON and
	// JSONL only).
	Samples []float64
}

// Metric returns the row's metric name: the test with spaces removed and
// " @ d" and "+" written "_": pp512, tg128, pp512_tg128, pp512_d1024.
func (r BenchRow) Metric() string { return MetricName(r.Test) }

// MetricName turns a llama-bench test name into a metric name.
func MetricName(test string) string {
	s := strings.ReplaceAll(test, " ", "")
	s = strings.ReplaceAll(s, "@", "_")
	return strings.ReplaceAll(s, "+", "_")
}

// Get returns the value of a configuration field.
func (r BenchRow) Get(key string) (string, bool) {
	for _, f := range r.Config {
		if f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}

// Unlike returns the configuration fields in which two rows differ, each as
// "key: a vs b" ("key: a vs (none)" for a field only one row has): every
// field counts, including ones llama.cpp added after compare-llama-bench.py
// fixed its key list (n_cpu_moe, devices, no_host). Two rows are like for
// like only when it returns nothing.
func Unlike(a, b []tail.Field) []string {
	var out []string
	seen := map[string]bool{}
	get := func(l []tail.Field, k string) (string, bool) {
		for _, f := range l {
			if f.Key == k {
				return f.Value, true
			}
		}
		return "", false
	}
	for _, f := range a {
		seen[f.Key] = true
		v, ok := get(b, f.Key)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: %s vs (none)", f.Key, f.Value))
		case v != f.Value:
			out = append(out, fmt.Sprintf("%s: %s vs %s", f.Key, f.Value, v))
		}
	}
	for _, f := range b {
		if !seen[f.Key] {
			out = append(out, fmt.Sprintf("%s: (none) vs %s", f.Key, f.Value))
		}
	}
	return out
}

// Metrics returns the rows as metrics, in tail order: per row, <test>
// (avg_ts, tok/s, with the row's samples and configuration) and
// <test>_stddev (stddev_ts, tok/s).
func (b *Bench) Metrics() *tail.Metrics {
	ms := &tail.Metrics{Source: b.Source, Errors: b.Errors, List: make([]tail.Metric, 0, 2*len(b.Rows)), Max: b.Max, Over: b.Over}
	for _, r := range b.Rows {
		name := r.Metric()
		ms.Add(tail.Metric{Name: name, Num: r.AvgTS, Unit: "tok/s", Line: r.Line,
			Detail: &tail.Detail{Samples: r.Samples, Config: r.Config}})
		if r.StddevTS.Text != "" {
			ms.Add(tail.Metric{Name: name + "_stddev", Num: r.StddevTS, Unit: "tok/s", Line: r.Line,
				Detail: &tail.Detail{Config: r.Config}})
		}
	}
	return ms
}

// ParseBench reads every llama-bench result in text, in any of its output
// formats. A line that starts like a result (a table row after a table
// header, a JSON row, a CSV row after a CSV header) and does not read as
// one is an error with its line; parsing goes on after it.
func ParseBench(source, text string) *Bench { return parseBench(source, text, 0) }

// parseBench is ParseBench keeping at most max rows (0: no limit).
func parseBench(source, text string, max int) *Bench {
	p := &benchParser{b: &Bench{Source: source, Max: max}, text: text}
	p.run()
	return p.b
}

type benchParser struct {
	b    *Bench
	text string
	// the markdown table being read: its header cells, nil when none
	mdHeader []string
	// the CSV header being read
	csvHeader []string
}

func (p *benchParser) errorf(line int, format string, args ...any) {
	p.b.Errors = append(p.b.Errors, &tail.Error{File: p.b.Source, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// run walks the text line by line. Only lines whose first non-blank byte is
// '|', '[', '{', '"' or 'b' can start a result; the rest are skipped after
// one byte test.
// addRow keeps a row, or marks the result Over when it holds Max rows.
func (p *benchParser) addRow(row BenchRow) {
	if p.b.Max > 0 && len(p.b.Rows) >= p.b.Max {
		p.b.Over = true
		return
	}
	p.b.Rows = append(p.b.Rows, row)
}

func (p *benchParser) run() {
	ls := newLines(p.text)
	for !p.b.Over && ls.next() {
		s, line := ls.line, ls.n
		j := 0
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		c := byte(0)
		if j < len(s) {
			c = s[j]
		}
		if c != '|' {
			p.mdHeader = nil
		}
		if c != '"' {
			p.csvHeader = nil
		}
		switch c {
		case '|':
			p.mdLine(line, strings.TrimRight(s[j:], " \t\r"))
		case '[':
			if rest := strings.TrimSpace(s[j+1:]); rest == "" || rest[0] == '{' {
				ls.seek(p.jsonArray(ls.start+j, line))
			}
		case '{':
			if strings.HasPrefix(s[j:], `{"build_commit"`) {
				p.jsonlLine(ls.start+j, line)
			}
		case '"':
			if p.csvHeader != nil {
				p.csvRow(line, strings.TrimRight(s[j:], "\r"))
			}
		case 'b':
			switch {
			case strings.HasPrefix(s[j:], "build_commit,"):
				p.csvHeader = strings.Split(strings.TrimRight(s[j:], "\r"), ",")
			case strings.HasPrefix(s[j:], "build: "):
				p.buildLine(strings.TrimSpace(s[j+len("build: "):]))
			}
		}
	}
}

// buildLine adds the markdown output's closing "build: <commit> (<n>)" to
// the rows of the tables before it that have no build.
func (p *benchParser) buildLine(build string) {
	for i := len(p.b.Rows) - 1; i >= 0; i-- {
		r := &p.b.Rows[i]
		if r.Format != "md" {
			continue
		}
		if _, ok := r.Get("build"); ok {
			break
		}
		r.Config = append(r.Config, tail.Field{Key: "build", Value: build})
	}
}

// cells splits a markdown table line "| a | b |" into its trimmed cells.
func cells(s string) []string {
	s = strings.TrimPrefix(s, "|")
	s = strings.TrimSuffix(s, "|")
	out := strings.Split(s, "|")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

func (p *benchParser) mdLine(line int, s string) {
	cs := cells(s)
	if p.mdHeader == nil {
		if len(cs) >= 2 && cs[len(cs)-1] == "t/s" && cs[len(cs)-2] == "test" {
			p.mdHeader = cs
		}
		return
	}
	if strings.HasPrefix(cs[0], "---") || strings.HasPrefix(cs[0], ":--") {
		return // the separator line
	}
	if len(cs) != len(p.mdHeader) {
		p.errorf(line, "llama-bench table row has %d cells, its header %d: %q", len(cs), len(p.mdHeader), clip(s, 120))
		return
	}
	n := len(cs)
	row := BenchRow{Line: line, Format: "md", Test: cs[n-2]}
	for i, h := range p.mdHeader[:n-2] {
		row.Config = append(row.Config, tail.Field{Key: h, Value: cs[i]})
	}
	avg, dev, hasDev := strings.Cut(cs[n-1], "±")
	v, err := parseNumber(strings.TrimSpace(avg))
	if err != nil {
		p.errorf(line, "llama-bench t/s %q: %v", cs[n-1], err)
		return
	}
	row.AvgTS = v
	if hasDev {
		d, err := parseNumber(strings.TrimSpace(dev))
		if err != nil {
			p.errorf(line, "llama-bench t/s %q: %v", cs[n-1], err)
			return
		}
		row.StddevTS = d
	}
	if row.Test == "" {
		p.errorf(line, "llama-bench table row without a test: %q", clip(s, 120))
		return
	}
	p.addRow(row)
}

// jsonArray reads a JSON array of rows starting at text[at] ('['), and
// returns where to go on: after the array, or after the line it started on
// when it does not read (the error names the line).
func (p *benchParser) jsonArray(at, line int) (int, int) {
	r := &jsonReader{s: p.text, i: at + 1, line: line}
	fail := func(err error) (int, int) {
		p.errorf(r.line, "llama-bench JSON: %v", trimLinePrefix(err))
		end := strings.IndexByte(p.text[at:], '\n')
		if end < 0 {
			return len(p.text), line + 1
		}
		return at + end + 1, line + 1
	}
	r.ws()
	if r.peek() == ']' {
		r.i++
		return p.afterJSON(r)
	}
	for {
		r.ws()
		rowLine := r.line
		if err := p.jsonRow(r, rowLine, "json"); err != nil {
			return fail(err)
		}
		r.ws()
		switch r.peek() {
		case ',':
			r.i++
			continue
		case ']':
			r.i++
			return p.afterJSON(r)
		}
		return fail(r.errorf("want ',' or ']' after a row"))
	}
}

// afterJSON returns the offset and line after the rest of the line the
// reader stopped on.
func (p *benchParser) afterJSON(r *jsonReader) (int, int) {
	end := strings.IndexByte(p.text[r.i:], '\n')
	if end < 0 {
		return len(p.text), r.line + 1
	}
	if rest := strings.TrimSpace(p.text[r.i : r.i+end]); rest != "" {
		p.errorf(r.line, "llama-bench JSON: unexpected %q after the array", clip(rest, 40))
	}
	return r.i + end + 1, r.line + 1
}

func (p *benchParser) jsonlLine(at, line int) {
	r := &jsonReader{s: p.text, i: at, line: line}
	if err := p.jsonRow(r, line, "jsonl"); err != nil {
		p.errorf(r.line, "llama-bench JSONL: %v", trimLinePrefix(err))
		return
	}
	r.ws2()
}

// ws2 skips blanks up to the end of the line (JSONL rows end there).
func (r *jsonReader) ws2() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t' || r.s[r.i] == '\r') {
		r.i++
	}
}

// jsonRow reads one row object.
func (p *benchParser) jsonRow(r *jsonReader, line int, format string) error {
	var fields []tail.Field
	var samples []string
	var test string
	err := r.object(func(f jsonField) error {
		switch {
		case f.isArr:
			if f.key == "samples_ts" {
				samples = f.arr
			}
			if !isResult(f.key) {
				fields = append(fields, tail.Field{Key: f.key, Value: "[" + strings.Join(f.arr, ", ") + "]"})
			}
		case f.key == "test":
			test = f.val
		default:
			fields = append(fields, tail.Field{Key: f.key, Value: f.val})
		}
		return nil
	})
	if err != nil {
		return err
	}
	row, err := benchRow(fields, test, line, format)
	if err != nil {
		return fmt.Errorf("line %d: %w", line, err)
	}
	for _, s := range samples {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("line %d: samples_ts: %q is not a number", line, s)
		}
		row.Samples = append(row.Samples, v)
	}
	p.addRow(row)
	return nil
}

// isResult reports whether a llama-bench field is a result, not
// configuration: the test's time and every avg_, stddev_ and samples_ field.
func isResult(key string) bool {
	return key == "test_time" || strings.HasPrefix(key, "avg_") || strings.HasPrefix(key, "stddev_") ||
		strings.HasPrefix(key, "samples_")
}

// benchRow builds a row from the fields of a JSON object or CSV line.
func benchRow(fields []tail.Field, test string, line int, format string) (BenchRow, error) {
	row := BenchRow{Line: line, Format: format, Test: test, Config: make([]tail.Field, 0, len(fields))}
	var nPrompt, nGen, nDepth string
	hasAvg := false
	for _, f := range fields {
		switch f.Key {
		case "avg_ts":
			v, err := num.Parse(f.Value)
			if err != nil {
				return row, fmt.Errorf("avg_ts %q: %v", f.Value, err)
			}
			row.AvgTS, hasAvg = v, true
		case "stddev_ts":
			v, err := num.Parse(f.Value)
			if err != nil {
				return row, fmt.Errorf("stddev_ts %q: %v", f.Value, err)
			}
			row.StddevTS = v
		case "n_prompt":
			nPrompt = f.Value
		case "n_gen":
			nGen = f.Value
		case "n_depth":
			nDepth = f.Value
		}
		if !isResult(f.Key) {
			row.Config = append(row.Config, f)
		}
	}
	if !hasAvg {
		return row, fmt.Errorf("row has no avg_ts")
	}
	if row.Test == "" {
		t, err := testName(nPrompt, nGen, nDepth)
		if err != nil {
			return row, err
		}
		row.Test = t
	}
	return row, nil
}

// testName names a test as llama-bench's markdown printer does.
func testName(nPrompt, nGen, nDepth string) (string, error) {
	p, err1 := strconv.Atoi(nPrompt)
	g, err2 := strconv.Atoi(nGen)
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("row has no test name and no integer n_prompt and n_gen (%q, %q)", nPrompt, nGen)
	}
	var t string
	switch {
	case p > 0 && g == 0:
		t = "pp" + nPrompt
	case p == 0 && g > 0:
		t = "tg" + nGen
	case p > 0 && g > 0:
		t = "pp" + nPrompt + "+tg" + nGen
	default:
		return "", fmt.Errorf("row has n_prompt 0 and n_gen 0")
	}
	if d, err := strconv.Atoi(nDepth); err == nil && d > 0 {
		t += " @ d" + nDepth
	}
	return t, nil
}

// csvRow reads one quoted CSV row under the current header.
func (p *benchParser) csvRow(line int, s string) {
	vals, err := splitCSV(s)
	if err != nil {
		p.errorf(line, "llama-bench CSV: %v", err)
		return
	}
	if len(vals) != len(p.csvHeader) {
		p.errorf(line, "llama-bench CSV row has %d fields, its header %d", len(vals), len(p.csvHeader))
		return
	}
	fields := make([]tail.Field, len(vals))
	test := ""
	for i, v := range vals {
		fields[i] = tail.Field{Key: p.csvHeader[i], Value: v}
		if p.csvHeader[i] == "test" {
			test = v
		}
	}
	row, err := benchRow(fields, test, line, "csv")
	if err != nil {
		p.errorf(line, "llama-bench CSV: %v", err)
		return
	}
	p.addRow(row)
}

// splitCSV splits a line of llama-bench's CSV: every field quoted, a quote
// inside doubled.
func splitCSV(s string) ([]string, error) {
	var out []string
	for i := 0; ; {
		if i >= len(s) || s[i] != '"' {
			return nil, fmt.Errorf("want a quoted field at byte %d", i+1)
		}
		i++
		var b strings.Builder
		for {
			j := strings.IndexByte(s[i:], '"')
			if j < 0 {
				return nil, fmt.Errorf("unterminated quoted field")
			}
			b.WriteString(s[i : i+j])
			i += j + 1
			if i < len(s) && s[i] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			break
		}
		out = append(out, b.String())
		if i == len(s) {
			return out, nil
		}
		if s[i] != ',' {
			return nil, fmt.Errorf("want ',' after a field at byte %d", i+1)
		}
		i++
	}
}

// trimLinePrefix drops a "line N: " the JSON reader put on an error whose
// line the caller reports.
func trimLinePrefix(err error) string {
	s := err.Error()
	if strings.HasPrefix(s, "line ") {
		if i := strings.Index(s, ": "); i >= 0 {
			return s[i+2:]
		}
	}
	return s
}
