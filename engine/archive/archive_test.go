package archive

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/snaptest"
)

func TestLoadFixtures(t *testing.T) {
	for _, name := range []string{"m5-v3", "m5"} {
		t.Run(name, func(t *testing.T) {
			s, err := Load(snaptest.Fixture(t, name), fakeFormats)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := len(s.Runs); got != 22 {
				t.Errorf("len(Runs) = %d; want 22", got)
			}
			counts := map[string]int{}
			carried := 0
			for _, r := range s.Runs {
				counts[r.Group]++
				if r.CarriedOver {
					carried++
				}
			}
			want := map[string]int{"speed": 5, "tf_kld": 9, "llama_unpatched": 4, "llama_patched": 4}
			for g, n := range want {
				if counts[g] != n {
					t.Errorf("group %s: %d runs; want %d", g, counts[g], n)
				}
			}
			if carried != 8 {
				t.Errorf("carried-over runs = %d; want 8", carried)
			}
			if got := s.GeneratedAtUTC.Format("2006-01-02T15:04:05.000Z07:00"); got != "2026-10-15T05:03:32.517Z" {
				t.Errorf("GeneratedAtUTC = %s", got)
			}
			if len(s.Provenance.Files) != 5 || len(s.Provenance.Prompts) != 7 {
				t.Errorf("provenance: %d files, %d prompts; want 5, 7", len(s.Provenance.Files), len(s.Provenance.Prompts))
			}
			if len(s.Parity) != 6 {
				t.Errorf("route_parity records = %d; want 6", len(s.Parity))
			}
			fast := 0
			for _, p := range s.Parity {
				if p.Env["STRATA_METAL_MATH"] == "fast" {
					fast++
				}
				if p.Exit != 0 || len(p.Cmd) == 0 {
					t.Errorf("%s: exit %d cmd %q", p.File, p.Exit, p.Cmd)
				}
			}
			if fast != 3 {
				t.Errorf("fast-math parity records = %d; want 3", fast)
			}
			if s.SelfTest == nil || s.Mtimes == nil {
				t.Fatalf("SelfTest or Mtimes missing")
			}
			if got := s.Mtimes[snaptest.ResultsFile].Text; got != "2026-10-15T08:03:32.52+03:00" {
				t.Errorf("results mtime = %q", got)
			}
			for _, n := range s.Notes {
				if strings.HasPrefix(n.Path, "prev_llama_") || strings.HasPrefix(n.Path, "llama_cpp_") {
					t.Errorf("the runner's table %s is noted as unused: %v", n.Path, n)
				}
			}
			if got, ok := s.Rel("/tmp/m5_prompt_1600tok.txt"); !ok || got != "machine/tmp/m5_prompt_1600tok.txt" {
				t.Errorf("Rel(/tmp/...) = %s, %v; want machine/tmp/m5_prompt_1600tok.txt", got, ok)
			}
		})
	}
}

// goodResults returns the committed results file of m5-v3.
func goodResults(t *testing.T) (string, []byte) {
	root := snaptest.Fixture(t, "m5-v3")
	data, err := os.ReadFile(filepath.Join(root, snaptest.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	return root, data
}

func TestLoadBadResults(t *testing.T) {
	_, good := goodResults(t)
	s := string(good)
	first := strings.Index(s, `"name": "strata_q2_0_moce0_short_43tok"`)
	second := strings.Index(s, `"name": "strata_metal_optimized_k256_q2_0_moce085"`)
	if first < 0 || second < 0 {
		t.Fatal("fixture layout changed: run names not found")
	}
	tests := []struct {
		name     string
		data     string
		wantPath string // substring of Error.Path
		wantMsg  string // substring of Error.Msg
	}{
		{"truncated", s[:len(s)/2], "", "unexpected end of JSON"},
		{"duplicate run name", s[:second] + `"name": "strata_q2_0_moce0_short_43tok"` + s[second+len(`"name": "strata_metal_optimized_k256_q2_0_moce085"`):],
			"runs[1].name", "duplicate run name"},
		{"duplicate key", strings.Replace(s, `"exit_code": 0,`, `"exit_code": 0, "exit_code": 1,`, 1), "runs[0].exit_code", "duplicate key"},
		{"wrong type", strings.Replace(s, `"exit_code": 0,`, `"exit_code": "0",`, 1), "runs[0].exit_code", "want an integer"},
		{"invalid UTF-8 in a tail", strings.Replace(s, "init: 339.50 ms", "init: 339.50 ms \xff\xfe", 1), "runs[0].output_tail", "invalid UTF-8"},
		{"trailing data", s + "{}", "", "after the top-level value"},
		{"no runs", "[1, 2]", "", "no array of runs"},
		{"runs not an array", `{"runs": 3}`, "runs", "want an array of runs"},
		{"empty", "", "", "unexpected end of JSON"},
		{"byte-order mark", "\xef\xbb\xbf" + s, "", "byte-order mark"}, // found in acceptance: "invalid character 'ï'"
		{"deep nesting", strings.Repeat("[", 200) + strings.Repeat("]", 200), "", "nesting deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadResults("root", []byte(tt.data))
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("LoadResults(%s) error = %v; want *archive.Error", tt.name, err)
			}
			if ae.File != ResultsFile || ae.Line < 1 || ae.Col < 1 {
				t.Errorf("error place = %s:%d:%d; want %s with line and column", ae.File, ae.Line, ae.Col, snaptest.ResultsFile)
			}
			if !strings.Contains(ae.Path, tt.wantPath) || !strings.Contains(ae.Msg, tt.wantMsg) {
				t.Errorf("LoadResults(%s) = %q; want path containing %q and message containing %q", tt.name, ae.Error(), tt.wantPath, tt.wantMsg)
			}
		})
	}
}

// TestLoadKeepsUnknownKeys: keys no mapping uses are kept and noted once,
// never an error (a runner may add "host" to every run, or "notes" at the top).
func TestLoadKeepsUnknownKeys(t *testing.T) {
	_, data := goodResults(t)
	s := strings.Replace(string(data), `"schema":`, `"notes": ["free text"], "schema":`, 1)
	s = strings.ReplaceAll(s, `"exit_code": 0,`, `"exit_code": 0, "host": "m5-studio",`)
	// With the fixture's spec, whose rules read the runner's own tables,
	// only the added keys are unused.
	root := snaptest.Fixture(t, "m5-v3")
	snap, err := LoadResults(root, []byte(s))
	if err != nil {
		t.Fatalf("LoadResults(m5-v3 spec, unknown keys added): %v", err)
	}
	var notes []string
	for _, n := range snap.Notes {
		notes = append(notes, n.Path)
	}
	slices.Sort(notes)
	if diff := cmp.Diff([]string{"notes", "runs[0].host", "schema"}, notes); diff != "" {
		t.Errorf("LoadResults(m5-v3 spec, unknown keys added) noted paths mismatch (-want +got):\n%s\neach unknown key noted once; no rule reads the runner's schema", diff)
	}
	// With no spec, no rule reads the runner's tables: they are noted too.
	snap, err = LoadResults("", []byte(s))
	if err != nil {
		t.Fatalf("LoadResults(no spec, unknown keys added): %v", err)
	}
	notes = nil
	for _, n := range snap.Notes {
		notes = append(notes, n.Path)
	}
	for _, want := range []string{"summary_comparison", "notes"} {
		if !slices.Contains(notes, want) {
			t.Errorf("LoadResults(no spec, unknown keys added) noted %q; want %q among them", notes, want)
		}
	}
	for _, r := range snap.Runs {
		if r.ExitCode == 0 && r.Extra["host"] != `"m5-studio"` {
			t.Errorf("run %s Extra[host] = %q; want the raw JSON kept", r.Name, r.Extra["host"])
		}
	}
}

func TestLoadTruncatedNamesLine(t *testing.T) {
	_, good := goodResults(t)
	cut := len(good) / 3
	_, err := LoadResults("root", good[:cut])
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v; want *archive.Error", err)
	}
	wantLine := strings.Count(string(good[:cut]), "\n") + 1
	if ae.Line != wantLine {
		t.Errorf("truncated file: line %d; want %d (the end of the data)", ae.Line, wantLine)
	}
}

func TestLoadMissingFile(t *testing.T) {
	root := snaptest.CopyFixture(t, "m5-v3")
	snaptest.Remove(t, filepath.Join(root, "build", "route_parity"))
	_, err := Load(root, fakeFormats)
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("Load error = %v; want *archive.Error", err)
	}
	if !strings.Contains(ae.Msg, "build/route_parity does not exist") || !strings.HasPrefix(ae.Path, "provenance.files[") || ae.Line < 1 {
		t.Errorf("Load = %q; want the missing build/route_parity named at its provenance entry", ae.Error())
	}
}

// recordErr returns err, else the first record the snapshot could not
// read (Snapshot.RecordErrs: left out, the bad input of its rule).
func recordErr(snap *Snapshot, err error) error {
	if err != nil || len(snap.RecordErrs) == 0 {
		return err
	}
	return snap.RecordErrs[0].Err
}

// TestLoadBadRecords: a record that cannot be read is kept in RecordErrs
// with its error naming the file, and left out.
func TestLoadBadRecords(t *testing.T) {
	tests := []struct {
		name, file, text, want string
	}{
		{"header without exit", "results/self_test.log", "# cmd: x\nself-test: PASS\n", `needs "# cmd:" and "# exit:"`},
		{"bad sidecar", "results/route_parity/fast_1.json", `{"cmd": "x", "exit_code": "zero"}`, "want an integer"},
		{"bad exit", "results/route_parity/fast_1.log", "# cmd: x\n# exit: zero\n", `exit status "zero"`},
		{"bad env", "results/route_parity/fast_1.log", "# cmd: x\n# env: FAST\n# exit: 0\n", `env entry "FAST"`},
		{"bad mtimes", "machine/mtimes.json", `{"tz": "+03:00", "files": {"a": "yesterday"}}`, "not an RFC 3339 time"},
		{"mtimes unknown key", "machine/mtimes.json", `{"tz": "+03:00", "files": {}, "x": 1}`, `unknown key "x"`},
		// From review: a tz of the wrong type passed when files was empty.
		{"mtimes tz not a string", "machine/mtimes.json", `{"tz": 3, "files": {}}`, "tz: want a string, found number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5-v3")
			if strings.HasSuffix(tt.file, ".json") && strings.HasPrefix(tt.file, "results/route_parity/") {
				// A sidecar is read only for a log without a header.
				log := strings.TrimSuffix(tt.file, ".json") + ".log"
				snaptest.Write(t, filepath.Join(root, filepath.FromSlash(log)), "route_parity: 0/0 PASS\n")
			}
			snaptest.Write(t, filepath.Join(root, filepath.FromSlash(tt.file)), tt.text)
			err := recordErr(Load(root, fakeFormats))
			var ae *Error
			if !errors.As(err, &ae) || ae.File != tt.file || !strings.Contains(ae.Error(), tt.want) {
				t.Errorf("Load with bad %s = %v; want an *archive.Error in %s containing %q", tt.file, err, tt.file, tt.want)
			}
		})
	}
}

// A record without a header is the program's own output; its argv, env
// and exit come from a sidecar run record when there is one, and are
// unknown when there is none.
func TestLoadRecordWithoutHeader(t *testing.T) {
	const log = "results/route_parity/fast_1.log"
	body := "route_parity: K=512 moce=0.00 max_abs_err 2.15e-07 mean_abs_err 2.69e-09 PASS\nroute_parity: 1/1 PASS\n"
	tests := []struct {
		name    string
		sidecar string // "" for none
		cmd     []string
		env     map[string]string
		exit    int
		hasExit bool
	}{
		{"no sidecar", "", nil, nil, -1, false},
		{"sidecar", `{"cmd": ["build/route_parity", "--tokens", "64"], "env": {"STRATA_METAL_MATH": "fast"}, "exit_code": 0}`,
			[]string{"build/route_parity", "--tokens", "64"}, map[string]string{"STRATA_METAL_MATH": "fast"}, 0, true},
		{"sidecar with a command line, exit 3", `{"cmd": "build/route_parity --tokens 64", "exit_code": 3}`,
			[]string{"build/route_parity", "--tokens", "64"}, map[string]string{}, 3, true},
		// A header, where the log has one, is the record; the sidecar is not read.
		{"header", `{"cmd": ["x"], "exit_code": 3}`, []string{"build/route_parity"}, map[string]string{"A": "1"}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5-v3")
			text := body
			if tt.name == "header" {
				text = "# cmd: build/route_parity\n# env: A=1\n# exit: 0\n" + body
			}
			snaptest.Write(t, filepath.Join(root, filepath.FromSlash(log)), text)
			side := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(log, ".log")+".json"))
			if tt.sidecar == "" {
				snaptest.Remove(t, side)
			} else {
				snaptest.Write(t, side, tt.sidecar)
			}
			s, err := Load(root, fakeFormats)
			if err != nil {
				t.Fatalf("Load(%s): %v", tt.name, err)
			}
			var rec *Record
			for _, p := range s.Parity {
				if p.File == log {
					rec = p
				}
			}
			if rec == nil {
				t.Fatalf("Load(%s).Parity has no record %s", tt.name, log)
			}
			if rec.Text != text {
				t.Errorf("record %s Text = %q; want %q", log, rec.Text, text)
			}
			if diff := cmp.Diff(tt.cmd, rec.Cmd); diff != "" {
				t.Errorf("record %s Cmd mismatch (-want +got):\n%s", log, diff)
			}
			if diff := cmp.Diff(tt.env, rec.Env); diff != "" {
				t.Errorf("record %s Env mismatch (-want +got):\n%s", log, diff)
			}
			if rec.Exit != tt.exit || rec.HasExit != tt.hasExit {
				t.Errorf("record %s exit = %d, known %v; want %d, %v", log, rec.Exit, rec.HasExit, tt.exit, tt.hasExit)
			}
		})
	}
}

func FuzzLoadResults(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join(snaptest.FixturePath("m5-v3"), snaptest.ResultsFile)); err == nil {
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte(`{"runs": [{"name": "a"}]}`))
	f.Add([]byte(`{"a": 1, "a": 2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := LoadResults("root", data)
		if err == nil && s == nil {
			t.Fatal("nil snapshot without error")
		}
		var ae *Error
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("error %v is not an *archive.Error", err)
		}
	})
}

// fuzzSeeds adds the committed fixture files at rels (slash paths relative
// to a snapshot root) of both snapshots to a fuzz corpus.
func fuzzSeeds(f *testing.F, rels ...string) {
	for _, snap := range []string{"m5-v3", "m5"} {
		for _, rel := range rels {
			b, err := os.ReadFile(filepath.Join(snaptest.FixturePath(snap), filepath.FromSlash(rel)))
			if err != nil {
				f.Fatalf("fuzz seed: %v", err)
			}
			f.Add(b)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	fuzzSeeds(f, snaptest.SelfTestFile, snaptest.ParityDir+"/default_1.log", snaptest.ParityDir+"/fast_3.log")
	f.Add([]byte("# cmd: x\n# env: A=1 B=\n# exit: -1\nbody\n"))
	f.Add([]byte("# cmd: x\n# cmd: y\n# exit: 0\n"))
	f.Add([]byte("# exit: 99999999999999999999\n# cmd: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := parseRecord("results/x.log", data)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.File != "results/x.log" {
				t.Fatalf("parseRecord error %v is not an *archive.Error naming the file", err)
			}
			return
		}
		header := rec.HasExit
		if rec.Text != string(data) || header != (rec.Env != nil) || header != (rec.Cmd != nil) ||
			header && !strings.Contains(string(data), "# exit:") || !header && rec.Exit != -1 {
			t.Fatalf("parseRecord(%q) = %+v; a header gives argv, env and exit, no header none", data, rec)
		}
	})
}

func FuzzDecodeMtimes(f *testing.F) {
	fuzzSeeds(f, snaptest.MtimesFile)
	f.Add([]byte(`{"tz": "+03:00", "files": {"a": null}}`))
	f.Add([]byte(`{"tz": 3, "files": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeMtimes(snaptest.MtimesFile, data)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.File != snaptest.MtimesFile {
				t.Fatalf("decodeMtimes error %v is not an *archive.Error naming %s", err, snaptest.MtimesFile)
			}
			return
		}
		if m == nil {
			t.Fatal("decodeMtimes: nil map without an error")
		}
	})
}

func TestLine(t *testing.T) {
	text := "a\r\nb\nc"
	for n, want := range map[int]string{-1: "", 0: "", 1: "a", 2: "b", 3: "c", 4: ""} {
		if got := Line(text, n); got != want {
			t.Errorf("Line(%q, %d) = %q; want %q", text, n, got, want)
		}
	}
}

func TestSplitBlocks(t *testing.T) {
	text := "header\n# cmd: a\nx\n# cmd: b\ny\nz\n"
	bs := splitBlocks(text, regexp.MustCompile(`^# cmd:`))
	if len(bs) != 2 || bs[0].First != 2 || bs[0].Last != 3 || bs[1].First != 4 {
		t.Fatalf("splitBlocks = %+v; want lines 2–3 and 4–", bs)
	}
	if got, want := bs[1].Text, "\n\n\n# cmd: b\ny\nz\n"; got != want {
		t.Errorf("block 2 text = %q; want %q (other blocks' lines blank)", got, want)
	}
	if bs := splitBlocks(text, regexp.MustCompile(`^never`)); len(bs) != 1 || bs[0].Text != text {
		t.Errorf("splitBlocks(no start) = %+v; want the whole text as one block", bs)
	}
}

func TestModelFile(t *testing.T) {
	tests := []struct {
		cmd        []string
		flags      []string
		file, flag string
	}{
		{[]string{"cli", "--model", "a.gguf"}, nil, "a.gguf", "--model"},
		{[]string{"cli", "-m", "b.gguf", "--model", "c.gguf"}, nil, "b.gguf", "-m"},
		{[]string{"cli", "--model=d.gguf"}, nil, "d.gguf", "--model"},
		{[]string{"-m", "x"}, nil, "", ""}, // argv[0] is the program
		{[]string{"cli", "--model"}, nil, "", ""},
		{[]string{"cli", "--weights", "e.gguf", "-m", "f.gguf"}, []string{"--weights"}, "e.gguf", "--weights"},
	}
	for _, tt := range tests {
		file, flag := (&Run{Cmd: tt.cmd}).ModelFile(tt.flags...)
		if file != tt.file || flag != tt.flag {
			t.Errorf("ModelFile(%q, %q) = %q, %q; want %q, %q", tt.cmd, tt.flags, file, flag, tt.file, tt.flag)
		}
	}
}
