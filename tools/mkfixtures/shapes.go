package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/pagecache"
)

// fixtures/m5-shapes is fixtures/m5-v3's data written in the shapes of an
// independent strata checkout (issue 19): the runs as JSON Lines with their
// own keys and the runner's vm/io readings as nested record fields, the
// engine's log behind glog's line prefix, the runner's derived tables and
// provenance in a second JSON file, route_parity's six repeats, the
// self-test and the page-cache probe as plain-text transcripts, a TSV
// vocabulary subset beside a TOML manifest, the plan's §2.7.A items as an
// ordered list, /tmp captures in host_tmp/. It is written from the files
// of fixtures/m5-v3 (generated first), so the two hold the same values.
// Its strataspec.json, PLAN.claims and README.md are kept by hand.

// shapesRunsFile and shapesTablesFile are the runs and the runner's tables.
const (
	shapesRunsFile   = "runs/runs.jsonl"
	shapesTablesFile = "runs/derived.json"
	v3ResultsFile    = "results/phase0_phase2_m5_validation.json"
)

// shapesCopied are m5-v3's files m5-shapes holds unchanged (provenance
// hashes them, or runs read them), by path in m5-v3 → path in m5-shapes.
func shapesCopied(v3 string) (map[string]string, error) {
	out := map[string]string{"machine/tmp/m5_prompt_1600tok.txt": "host_tmp/m5_prompt_1600tok.txt"}
	for _, dir := range []string{"build", "scripts", "vendor", "data/m5_val_prompts"} {
		err := filepath.WalkDir(joinRoot(v3, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(v3, p)
			rel = filepath.ToSlash(rel)
			out[rel] = rel
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// generateShapes writes m5-shapes at root from the m5-v3 snapshot at v3
// and returns the files it changed.
func generateShapes(root, v3 string) ([]string, error) {
	owned := map[string][]byte{}
	copied, err := shapesCopied(v3)
	if err != nil {
		return nil, err
	}
	for from, to := range copied {
		b, err := os.ReadFile(joinRoot(v3, from))
		if err != nil {
			return nil, err
		}
		owned[to] = b
	}
	res, err := os.ReadFile(joinRoot(v3, v3ResultsFile))
	if err != nil {
		return nil, err
	}
	runs, tbls, err := shapesResults(res)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v3ResultsFile, err)
	}
	owned[shapesRunsFile], owned[shapesTablesFile] = runs, tbls
	plan, err := os.ReadFile(joinRoot(v3, "PLAN.md"))
	if err != nil {
		return nil, err
	}
	if owned["PLAN.md"], err = orderedItems(plan, "### 2.7.A "); err != nil {
		return nil, fmt.Errorf("PLAN.md: %w", err)
	}
	if owned["transcripts/route_parity.txt"], err = parityTranscript(v3); err != nil {
		return nil, err
	}
	st, err := os.ReadFile(joinRoot(v3, "results/self_test.log"))
	if err != nil {
		return nil, err
	}
	if owned["transcripts/self_test.txt"], err = selfTestTranscript(st); err != nil {
		return nil, err
	}
	if owned["transcripts/mincore_probe.txt"], err = probeTranscript(v3); err != nil {
		return nil, err
	}
	if owned["data/vocab-subset.tsv"], err = vocabSubset(v3); err != nil {
		return nil, err
	}
	mt, err := os.ReadFile(joinRoot(v3, "machine/mtimes.json"))
	if err != nil {
		return nil, err
	}
	owned["machine/mtimes.json"] = bytes.ReplaceAll(mt, []byte(v3ResultsFile), []byte(shapesTablesFile))
	owned["data/m5_val_prompts/tf_manifest.toml"] = tfManifestTOML()
	return writeAll(root, owned)
}

// decodeOrdered reads one JSON value keeping object members in order
// (obj), numbers as written (json.Number).
func decodeOrdered(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		o := obj{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, member{k.(string), v})
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return t, nil
}

func (o obj) get(key string) any {
	for _, m := range o {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// runnerLine matches the validation runner's own lines in a tail; their
// values are the record's vm and io fields in m5-shapes.
var (
	swapLine  = regexp.MustCompile(`^\[runner\] vm_stat: swapouts \+\d+ pages \(([0-9.]+) MiB swapout\)$`)
	availLine = regexp.MustCompile(`^\[runner\] min_avail ([0-9.]+) GiB `)
	diskLine  = regexp.MustCompile(`^\[runner\] iostat: disk0 read ([0-9,.]+) MB$`)
)

// shapesResults splits m5-v3's results JSON into the runs as JSON Lines and
// the runner's tables and provenance as a second document.
func shapesResults(data []byte) (runs, tbls []byte, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, nil, err
	}
	doc, ok := v.(obj)
	if !ok {
		return nil, nil, errors.New("not an object")
	}
	var lines bytes.Buffer
	recs, _ := doc.get("runs").([]any)
	for i, rv := range recs {
		r := rv.(obj)
		name, _ := r.get("name").(string)
		tail, _ := r.get("output_tail").(string)
		argv, _ := r.get("cmd").([]any)
		var kept []string
		var swap, avail, disk string
		for _, l := range strings.SplitAfter(tail, "\n") {
			body := strings.TrimSuffix(l, "\n")
			if m := swapLine.FindStringSubmatch(body); m != nil {
				swap = m[1]
			} else if m := availLine.FindStringSubmatch(body); m != nil {
				avail = m[1]
			} else if m := diskLine.FindStringSubmatch(body); m != nil {
				disk = strings.ReplaceAll(m[1], ",", "")
			} else if l != "" {
				kept = append(kept, l)
			}
		}
		if swap == "" || avail == "" || disk == "" {
			return nil, nil, fmt.Errorf("run %s: the runner's vm_stat, min_avail and iostat lines are not all in its tail", name)
		}
		log := strings.Join(kept, "")
		if len(argv) > 0 && strings.HasSuffix(argv[0].(string), "strata_window_cli") {
			if log, err = timingMicros(log); err != nil {
				return nil, nil, fmt.Errorf("run %s: %w", name, err)
			}
			log = glogPrefix(log, i)
		}
		rec := obj{
			{"id", name}, {"suite", r.get("group")}, {"argv", argv}, {"environ", r.get("env")},
			{"rc", r.get("exit_code")}, {"wall_s", r.get("duration_s")},
			{"vm", obj{{"swapout_mib", json.Number(swap)}, {"min_avail_gib", json.Number(avail)}}},
			{"io", obj{{"disk0_read_mb", json.Number(disk)}}},
			{"log", log},
		}
		b, err := marshal(rec)
		if err != nil {
			return nil, nil, err
		}
		lines.Write(b)
		lines.WriteByte('\n')
	}
	tables := obj{}
	out := obj{{"schema", "m5-shapes derived tables (fixtures/m5-shapes/README.md)"}}
	for _, m := range doc {
		switch m.key {
		case "schema", "runs":
		case "generated_at_utc":
			out = append(out, member{"written_at", m.val})
		case "provenance":
			out = append(out, member{"provenance", m.val})
		default:
			tables = append(tables, m)
		}
	}
	out = append(out, member{"tables", tables})
	tb, err := encode(out)
	return lines.Bytes(), tb, err
}

var timingLine = regexp.MustCompile(`(?m)^timing: host wait ([0-9.]+) ms/tok, T1 GPU ([0-9.]+) ms/tok$`)

// timingMicros rewrites a strata log's timing line in µs/tok, as the
// independent checkout's engine prints its GPU times: the same quantities,
// the decimal point moved three places (14.10 ms/tok is 14100 µs/tok).
func timingMicros(log string) (string, error) {
	var err error
	out := timingLine.ReplaceAllStringFunc(log, func(l string) string {
		m := timingLine.FindStringSubmatch(l)
		host, e1 := milliToMicro(m[1])
		gpu, e2 := milliToMicro(m[2])
		if err = errors.Join(e1, e2); err != nil {
			return l
		}
		return "timing: host wait " + host + " µs/tok, T1 GPU " + gpu + " µs/tok"
	})
	return out, err
}

// milliToMicro moves the decimal point of a printed decimal three places
// right, in the text: no float rounding.
func milliToMicro(ms string) (string, error) {
	whole, frac, _ := strings.Cut(ms, ".")
	if whole == "" || strings.Trim(whole+frac, "0123456789") != "" {
		return "", fmt.Errorf("timing: %q is not a decimal", ms)
	}
	frac += strings.Repeat("0", max(0, 3-len(frac)))
	us := strings.TrimLeft(whole+frac[:3], "0")
	if us == "" {
		us = "0"
	}
	if rest := frac[3:]; rest != "" {
		us += "." + rest
	}
	return us, nil
}

// glogPrefix puts glog's line header before every line of a strata log:
// severity I, the month and day of the audited run (10-15), a synthetic
// time of day that moves on 0.05 s a line from a start 6 s apart per run,
// a synthetic thread id and the source line of the engine's main loop.
func glogPrefix(log string, run int) string {
	var b strings.Builder
	start := (8*3600+1*60+20)*1_000_000 + 866027 + run*6_000_000
	for i, l := range strings.SplitAfter(log, "\n") {
		if l == "" {
			continue
		}
		us := start + i*50_000
		fmt.Fprintf(&b, "I1015 %02d:%02d:%02d.%06d 4127803 main.cc:%d] %s",
			us/3_600_000_000, us/60_000_000%60, us/1_000_000%60, us%1_000_000, 131+i, l)
	}
	return b.String()
}

var itemHeading = regexp.MustCompile(`^#### #(\d+) — (.*)$`)

// orderedItems rewrites the "#### #N — Title" item headings of the section
// that starts with the heading line prefix as an ordered list: "N. **Title.**"
// followed by the item's text, indented to the list item's content.
func orderedItems(plan []byte, section string) ([]byte, error) {
	lines := strings.Split(string(plan), "\n")
	var out []string
	in, items := false, 0
	indent := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, section):
			in = true
		case in && (strings.HasPrefix(l, "### ") || strings.HasPrefix(l, "## ")):
			in, indent = false, ""
		}
		m := itemHeading.FindStringSubmatch(l)
		if !in || m == nil {
			if indent != "" && l != "" {
				l = indent + l
			}
			out = append(out, l)
			continue
		}
		items++
		head := m[1] + ". **" + strings.TrimSuffix(m[2], ".") + ".**"
		indent = strings.Repeat(" ", len(m[1])+2)
		// The first paragraph joins the label's line.
		j := i + 1
		for j < len(lines) && lines[j] == "" {
			j++
		}
		if j < len(lines) && !strings.HasPrefix(lines[j], "#") && !strings.HasPrefix(lines[j], "- ") {
			head += " " + lines[j]
			i = j
		}
		out = append(out, head)
	}
	if items == 0 {
		return nil, fmt.Errorf("no item headings in the section %q", section)
	}
	return []byte(strings.Join(out, "\n")), nil
}

// parityTranscript is the six route_parity logs of m5-v3 as one
// transcript, each repeat a block opening with its command, environment
// and exit status.
func parityTranscript(v3 string) ([]byte, error) {
	var b bytes.Buffer
	for _, mode := range []string{"default", "fast"} {
		for i := 1; i <= 3; i++ {
			name := fmt.Sprintf("results/route_parity/%s_%d", mode, i)
			rec, err := os.ReadFile(joinRoot(v3, name+".json"))
			if err != nil {
				return nil, err
			}
			var side struct {
				Cmd  []string          `json:"cmd"`
				Env  map[string]string `json:"env"`
				Exit int               `json:"exit_code"`
			}
			if err := json.Unmarshal(rec, &side); err != nil {
				return nil, fmt.Errorf("%s.json: %w", name, err)
			}
			log, err := os.ReadFile(joinRoot(v3, name+".log"))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "# cmd: %s\n", strings.Join(side.Cmd, " "))
			var env []string
			for k, v := range side.Env {
				env = append(env, k+"="+v)
			}
			sort.Strings(env)
			fmt.Fprintf(&b, "# env:%s\n# exit: %d\n", strings.TrimRight(" "+strings.Join(env, " "), " "), side.Exit)
			b.Write(log)
		}
	}
	return b.Bytes(), nil
}

// selfTestTranscript is the self-test's output as a terminal shows it: the
// command after a "$ " prompt, the output, then the shell's "exit N" line.
func selfTestTranscript(log []byte) ([]byte, error) {
	var cmd, exit string
	var body []string
	for _, l := range strings.SplitAfter(string(log), "\n") {
		switch {
		case strings.HasPrefix(l, "# cmd: "):
			cmd = strings.TrimPrefix(l, "# cmd: ")
		case strings.HasPrefix(l, "# exit: "):
			exit = strings.TrimSpace(strings.TrimPrefix(l, "# exit: "))
		case l != "":
			body = append(body, l)
		}
	}
	if cmd == "" || exit == "" {
		return nil, errors.New("results/self_test.log: no # cmd: or # exit: header")
	}
	return []byte("$ " + cmd + strings.Join(body, "") + "exit " + exit + "\n"), nil
}

// probeTranscript is the page-cache probe as a terminal transcript: each
// helper called between two readings of the probe file, every reading a
// line of `tools/residency FILE`'s text output.
func probeTranscript(v3 string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# page-cache probe of the runner's helpers (m5-shapes: readings as tools/residency prints them)\n")
	for _, h := range []string{"evict_file_cache", "warm_file_cache"} {
		for _, when := range []string{"before", "after"} {
			data, err := os.ReadFile(joinRoot(v3, "results/residency/"+h+"."+when+".json"))
			if err != nil {
				return nil, err
			}
			d, err := pagecache.ParseDocument(h+"."+when, data)
			if err != nil || len(d.Files) != 1 || d.Files[0].Reading == nil {
				return nil, fmt.Errorf("results/residency/%s.%s.json: want one reading (%v)", h, when, err)
			}
			r := *d.Files[0].Reading
			if when == "after" {
				fmt.Fprintf(&b, "$ python3 -c 'import runner; print(runner.%s(%q))'\nTrue\n", h, r.Path)
			}
			fmt.Fprintf(&b, "$ tools/residency %s\n%s\n", r.Path, pagecache.FormatText(r.Path, r))
		}
	}
	return b.Bytes(), nil
}

// vocabSubset is the TSV vocabulary subset: every id the TF files hold,
// with its piece as text (\t, \n, \r and \\ escaped) and, for control and
// user-defined tokens, their type.
func vocabSubset(v3 string) ([]byte, error) {
	data, err := os.ReadFile(joinRoot(v3, tfVocabFile))
	if err != nil {
		return nil, err
	}
	f, err := gguf.Parse(tfVocabFile, data)
	if err != nil {
		return nil, err
	}
	v, err := f.Vocab()
	if err != nil {
		return nil, err
	}
	ids := map[int32]bool{}
	for _, d := range []string{"chat_json", "ja", "ops_tools"} {
		b, err := os.ReadFile(joinRoot(v3, tfPath(d)))
		if err != nil {
			return nil, err
		}
		for _, w := range strings.Fields(string(b)) {
			n, err := strconv.ParseInt(w, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", tfPath(d), err)
			}
			ids[int32(n)] = true
		}
	}
	sorted := make([]int32, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var b bytes.Buffer
	b.WriteString("# id\tpiece\t[type]: the ids of the TF files (synthetic vocabulary of fixtures/m5-v3)\n")
	esc := strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)
	for _, id := range sorted {
		p, err := v.Piece(id)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%d\t%s", id, esc.Replace(string(p)))
		switch v.Type(id) {
		case gguf.TokenControl:
			b.WriteString("\tcontrol")
		case gguf.TokenUserDefined:
			b.WriteString("\tuser-defined")
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// tfManifestTOML is the runner's own manifest of the TF files, in TOML:
// the domain, source document and offset of each (the checkout's
// strataspec.json names it: rules.tf.manifest).
func tfManifestTOML() []byte {
	var b strings.Builder
	b.WriteString("# TF token files: plain ids, decoded with data/vocab-subset.tsv\n")
	docs := append([]tfDoc(nil), tfDocs...)
	sort.Slice(docs, func(i, j int) bool { return docs[i].domain < docs[j].domain })
	for _, d := range docs {
		fmt.Fprintf(&b, "\n[[file]]\npath = %q\ndomain = %q\nsource = %q\nsource_offset = %d\n", tfPath(d.domain), d.domain, d.source, len(d.before))
	}
	return []byte(b.String())
}
