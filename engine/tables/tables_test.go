package tables

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/jsontree"
)

const doc = `{
  "perf": {
    "run_a": {"decode_tok_s": 13.52, "init_ms": null},
    "run_b": {"decode_tok_s": 9.51}
  },
  "rows": [{"run": "run_a", "config": "q2", "hit": 82.17}],
  "block": {"x": 1.50, "y": 2},
  "macro": {"runs": ["run_a", "run_b"], "kld": [0.1, 0.2], "mean": 0.15},
  "bad": {"x": true},
  "nested": {"x": 1, "y": {"z": 2}}
}`

func parse(t *testing.T) *jsontree.Doc {
	t.Helper()
	d, err := jsontree.ParseDoc("results/r.json", []byte(doc))
	if err != nil {
		t.Fatalf("ParseDoc(results/r.json): %v", err)
	}
	return d
}

func TestRead(t *testing.T) {
	d := parse(t)
	perf, err := Read(d, "perf")
	if err != nil {
		t.Fatalf("Read(perf): %v", err)
	}
	if len(perf.Rows) != 2 {
		t.Fatalf("Read(perf) = %d rows; want 2", len(perf.Rows))
	}
	if got := perf.Rows[0].Key; got != "run_a" {
		t.Errorf("Read(perf).Rows[0].Key = %q; want run_a", got)
	}
	f, ok := perf.Row("run_b").Get("decode_tok_s")
	if !ok || f.Num.Text != "9.51" || f.Line != 4 || f.Path != "perf.run_b.decode_tok_s" {
		t.Errorf("Read(perf).Row(run_b).Get(decode_tok_s) = %q line %d path %q, %v; want 9.51 line 4 path perf.run_b.decode_tok_s, true",
			f.Num.Text, f.Line, f.Path, ok)
	}
	null, _ := perf.Row("run_a").Get("init_ms")
	if !null.Null || null.Text() != "null" {
		t.Errorf("Read(perf).Row(run_a).Get(init_ms) = Null %v, Text %q; want a null printed null", null.Null, null.Text())
	}
	if got := perf.Row("run_c"); got != nil {
		t.Errorf("Read(perf).Row(run_c) = %+v; want nil", got)
	}

	rows, err := Read(d, "rows")
	if err != nil {
		t.Fatalf("Read(rows): %v", err)
	}
	if len(rows.Rows) != 1 {
		t.Fatalf("Read(rows) = %d rows; want 1", len(rows.Rows))
	}
	if diff := cmp.Diff(map[string]string{"run": "run_a", "config": "q2"}, rows.Rows[0].Strings); diff != "" {
		t.Errorf("Read(rows).Rows[0].Strings mismatch (-want +got):\n%s", diff)
	}
	if got := len(rows.Rows[0].Fields); got != 1 {
		t.Errorf("Read(rows).Rows[0] = %d number fields; want 1", got)
	}

	block, err := Read(d, "block")
	if err != nil {
		t.Fatalf("Read(block): %v", err)
	}
	if block.Dict == nil {
		t.Fatal("Read(block).Dict = nil; want the block")
	}
	x, ok := block.Dict.Get("x")
	if !ok || x.Num.Decimals != 2 {
		t.Errorf("Read(block).Dict.Get(x) = %d decimals, %v; want 2, true: the literal's precision is kept", x.Num.Decimals, ok)
	}

	macro, err := Read(d, "macro")
	if err != nil {
		t.Fatalf("Read(macro): %v", err)
	}
	if macro.Dict == nil {
		t.Fatal("Read(macro).Dict = nil; want the block")
	}
	if diff := cmp.Diff([]string{"run_a", "run_b"}, macro.Dict.Names["runs"]); diff != "" {
		t.Errorf("Read(macro).Dict.Names[runs] mismatch (-want +got):\n%s", diff)
	}
	kld := macro.Dict.Lists["kld"]
	if len(kld) != 2 {
		t.Fatalf("Read(macro).Dict.Lists[kld] = %d numbers; want 2", len(kld))
	}
	if got := kld[1].Value(); got != 0.2 {
		t.Errorf("Read(macro).Dict.Lists[kld][1] = %v; want 0.2", got)
	}
}

func TestReadErrors(t *testing.T) {
	d := parse(t)
	for _, tt := range []struct {
		path, want string
		missing    bool
	}{
		{"nosuch", "results/r.json: \"nosuch\": no such table", true},
		{"perf.run_a.decode_tok_s.x", "no such table", true},
		{"", "no such table", true},
		{"bad", "results/r.json:9:16: bad.x: want a number, a string or an array, found boolean", false},
		{"nested", "results/r.json:10:27: nested.y: want a number, a string or an array, found object", false},
	} {
		_, err := Read(d, tt.path)
		if err == nil {
			t.Errorf("Read(%q) = nil error; want %q", tt.path, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Read(%q) = %v; want an error containing %q", tt.path, err, tt.want)
		}
		if got := errors.Is(err, ErrMissing); got != tt.missing {
			t.Errorf("Read(%q) = %v; errors.Is(ErrMissing) = %v; want %v", tt.path, err, got, tt.missing)
		}
	}
}

// FuzzRead: any document and path give a table or an error, never a
// panic; an error is a missing path or names the file; every field of a
// table lies inside the document.
func FuzzRead(f *testing.F) {
	f.Add([]byte(doc), "perf")
	f.Add([]byte(doc), "macro")
	f.Add([]byte(`[1, {"a": null}]`), "")
	f.Add([]byte(`{"t": [{"a": 1}, 2]}`), "t")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		d, err := jsontree.ParseDoc("r.json", data)
		if err != nil {
			return
		}
		tb, err := Read(d, path)
		if err != nil {
			var je *jsontree.Error
			if !errors.Is(err, ErrMissing) && (!errors.As(err, &je) || je.File != "r.json" || je.Line < 1) {
				t.Fatalf("Read(%q) error %v: neither ErrMissing nor a *jsontree.Error with a line", path, err)
			}
			return
		}
		lines := len(d.Lines)
		dicts := append([]*Dict{tb.Dict}, tb.Rows...)
		for _, dt := range dicts {
			if dt == nil {
				continue
			}
			for _, fl := range dt.Fields {
				if fl.Line < 1 || fl.Line > lines {
					t.Fatalf("field %s at line %d; the document has %d lines", fl.Path, fl.Line, lines)
				}
			}
		}
	})
}
