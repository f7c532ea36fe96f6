package archive

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSnap writes files (path → content) under a temporary root.
func writeSnap(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestPlacedProvenance reads the provenance record and the generation time
// from a JSON file beside JSON Lines runs, and names the file and path when
// it does not hold them.
func TestPlacedProvenance(t *testing.T) {
	spec := `{"results": [{"file": "runs.jsonl", "provenance": {"file": "derived.json", "path": "p"}, "generated": {"file": "derived.json", "path": "at"}}]}`
	files := map[string]string{
		"strataspec.json": spec,
		"runs.jsonl":      `{"name": "a", "cmd": ["x"], "env": {}, "exit_code": 0, "output_tail": ""}` + "\n",
		"derived.json": "{\n\"at\": \"2026-10-15T05:03:32Z\",\n\"p\": {\"files\": [], \"prompts\": [\n{\"path\": \"x\", \"sha256\": \"" +
			strings.Repeat("a", 64) + "\", \"bytes\": 1}]},\n\"extra\": 1\n}\n",
		"x": "1",
	}
	snap, err := Load(writeSnap(t, files), fakeFormats)
	if err != nil {
		t.Fatal(err)
	}
	if snap.ProvenanceFile != "derived.json" || len(snap.Provenance.Prompts) != 1 || snap.Provenance.Prompts[0].Line != 4 {
		t.Errorf("provenance from %q: %+v; want derived.json's one prompt at line 4", snap.ProvenanceFile, snap.Provenance.Prompts)
	}
	if snap.GeneratedFile != "derived.json" || snap.GeneratedAt.Line != 2 || snap.GeneratedAtUTC.IsZero() {
		t.Errorf("generated = %s line %d (%v); want derived.json line 2", snap.GeneratedFile, snap.GeneratedAt.Line, snap.GeneratedAtUTC)
	}
	if len(snap.Notes) != 1 || !strings.Contains(snap.Notes[0].String(), "extra") {
		t.Errorf("notes = %v; want the unused key extra noted", snap.Notes)
	}
	files["strataspec.json"] = strings.Replace(spec, `"path": "p"`, `"path": "nope"`, 1)
	if _, err := Load(writeSnap(t, files), fakeFormats); err == nil || !strings.Contains(err.Error(), `derived.json has no "nope"`) {
		t.Errorf("Load with a misplaced provenance = %v; want the file and path named", err)
	}
}

// TestTranscriptLines reads a record's command and exit status from the
// lines its declared format names, and rejects a bad exit at its line.
func TestTranscriptLines(t *testing.T) {
	files := map[string]string{
		"strataspec.json": `{"formats": {"st": {"wrap": "self-test", "command": "^\\$ (.+)$", "exit": "^exit (\\S+)$"}},
			"records": {"selftest": {"glob": "t.txt", "format": "st"}}}`,
		"t.txt": "$ python3 run.py --self-test\nself-test: PASS\nexit 3\n",
	}
	snap, err := Load(writeSnap(t, files), fakeFormats)
	if err != nil {
		t.Fatal(err)
	}
	st := snap.SelfTest
	if st == nil || strings.Join(st.Cmd, " ") != "python3 run.py --self-test" || !st.HasExit || st.Exit != 3 || st.Env == nil {
		t.Fatalf("self-test record = %+v; want its command and exit 3 from the transcript", st)
	}
	files["t.txt"] = "$ x\nexit three\n"
	if err := recordErr(Load(writeSnap(t, files), fakeFormats)); err == nil || !strings.Contains(err.Error(), "t.txt:2") {
		t.Errorf("Load with exit three = %v; want an error at t.txt:2", err)
	}
}

// TestRunsKeyedByName reads an object of run records keyed by run name:
// the key names a record without a name field, and a record whose name
// field says another name is an error at that field.
func TestRunsKeyedByName(t *testing.T) {
	files := map[string]string{
		"strataspec.json": `{"results": [{"file": "r.json", "runs": "all", "fields": {"argv": "argv", "tail": "out"}}]}`,
		"r.json":          "{\"all\": {\n\"speed\": {\"argv\": [\"x\"], \"out\": \"a\"},\n\"tf\": {\"name\": \"tf\", \"argv\": [\"x\"], \"out\": \"b\"}}}\n",
	}
	snap, err := Load(writeSnap(t, files), fakeFormats)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range snap.Runs {
		got = append(got, r.Name+"="+r.Tail)
	}
	if want := "speed=a tf=b"; strings.Join(got, " ") != want {
		t.Errorf("runs keyed by name = %q; want %q", strings.Join(got, " "), want)
	}
	files["r.json"] = "{\"all\": {\n\"speed\": {\"name\": \"decode\", \"argv\": [\"x\"], \"out\": \"a\"}}}\n"
	if _, err := Load(writeSnap(t, files), fakeFormats); err == nil || !strings.Contains(err.Error(), `keyed "speed" names itself "decode"`) {
		t.Errorf("Load(a record named unlike its key) = %v; want the mismatch named", err)
	}
	files["r.json"] = `{"all": 3}`
	if _, err := Load(writeSnap(t, files), fakeFormats); err == nil || !strings.Contains(err.Error(), "want an array of runs or an object of runs keyed by name, found number") {
		t.Errorf("Load(runs a number) = %v; want the kind named", err)
	}
}

// TestJSONRecords reads a .json record file, an array of records mapped by
// the record kind's fields, as one record each, named NAME#k; a record
// without the output field is an error naming it.
func TestJSONRecords(t *testing.T) {
	files := map[string]string{
		"strataspec.json": `{"records": {"parity": {"glob": "p/rp.json", "fields": {"argv": "argv", "exit": "rc", "tail": "output"}}}}`,
		"p/rp.json":       `[{"argv": ["rp", "--tokens", "64"], "env": {"M": "fast"}, "rc": 0, "output": "one"}, {"argv": "rp", "rc": 1, "output": "two"}]`,
	}
	snap, err := Load(writeSnap(t, files), fakeFormats)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range snap.Parity {
		got = append(got, fmt.Sprintf("%s %s %v %d %q %s", r.Name, strings.Join(r.Cmd, " "), r.Env, r.Exit, r.Text, r.Key()))
	}
	want := []string{`rp#1 rp --tokens 64 map[M:fast] 0 "one" p/rp.json#1`, `rp#2 rp map[] 1 "two" p/rp.json#2`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("JSON records =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	files["p/rp.json"] = `[{"argv": ["rp"], "rc": 0}]`
	if err := recordErr(Load(writeSnap(t, files), fakeFormats)); err == nil || !strings.Contains(err.Error(), `p/rp.json:1:2`) || !strings.Contains(err.Error(), `no "output"`) {
		t.Errorf("Load(a record without output) = %v; want p/rp.json:1:2 naming the field", err)
	}
}

// TestDurationUnit reads a run's duration in the unit fields.duration_unit
// names, and rejects a unit that is no time.
func TestDurationUnit(t *testing.T) {
	for _, tt := range []struct {
		unit string
		want float64
		err  string
	}{
		{"ms", 14.87, ""},
		{"min", 892200, ""},
		{"MB", 0, `duration_unit "MB": a unit of bytes, not of time`},
		{"msec", 0, `duration_unit "msec"`},
	} {
		files := map[string]string{
			"strataspec.json": `{"results": [{"file": "r.json", "runs": "", "fields": {"duration": "wall", "duration_unit": "` + tt.unit + `"}}]}`,
			"r.json":          `[{"name": "a", "cmd": ["x"], "wall": 14870, "output_tail": ""}]`,
		}
		snap, err := Load(writeSnap(t, files), fakeFormats)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "r.json:1:") {
				t.Errorf("duration_unit %q: Load = %v; want an error at r.json containing %q", tt.unit, err, tt.err)
			}
		case err != nil:
			t.Errorf("duration_unit %q: Load = %v", tt.unit, err)
		case snap.Runs[0].DurationS != tt.want:
			t.Errorf("duration_unit %q: DurationS = %v; want %v", tt.unit, snap.Runs[0].DurationS, tt.want)
		}
	}
}
