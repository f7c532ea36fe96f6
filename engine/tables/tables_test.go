package tables

import (
	"errors"
	"testing"

	"github.com/strataspec/strataspec/engine/jsontree"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	return d
}

func TestRead(t *testing.T) {
	d := parse(t)
	perf, err := Read(d, "perf")
	require.NoError(t, err)
	require.Len(t, perf.Rows, 2)
	assert.Equal(t, "run_a", perf.Rows[0].Key)
	f, ok := perf.Row("run_b").Get("decode_tok_s")
	assert.True(t, ok)
	assert.Equal(t, "9.51", f.Num.Text)
	assert.Equal(t, 4, f.Line)
	assert.Equal(t, "perf.run_b.decode_tok_s", f.Path)
	null, _ := perf.Row("run_a").Get("init_ms")
	assert.True(t, null.Null)
	assert.Equal(t, "null", null.Text())
	assert.Nil(t, perf.Row("run_c"))

	rows, err := Read(d, "rows")
	require.NoError(t, err)
	require.Len(t, rows.Rows, 1)
	assert.Equal(t, map[string]string{"run": "run_a", "config": "q2"}, rows.Rows[0].Strings)
	assert.Len(t, rows.Rows[0].Fields, 1)

	block, err := Read(d, "block")
	require.NoError(t, err)
	require.NotNil(t, block.Dict)
	x, _ := block.Dict.Get("x")
	assert.Equal(t, 2, x.Num.Decimals, "the literal's precision is kept")

	macro, err := Read(d, "macro")
	require.NoError(t, err)
	assert.Equal(t, []string{"run_a", "run_b"}, macro.Dict.Names["runs"])
	require.Len(t, macro.Dict.Lists["kld"], 2)
	assert.Equal(t, 0.2, macro.Dict.Lists["kld"][1].Value())
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
		if assert.Error(t, err, "Read(%q)", tt.path) {
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, tt.missing, errors.Is(err, ErrMissing), "Read(%q) = %v; ErrMissing", tt.path, err)
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
