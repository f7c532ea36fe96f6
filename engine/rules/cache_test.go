package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// cacheRun runs the cache rule on a snapshot root.
func cacheRun(t *testing.T, root string) ([]finding.Finding, error) {
	t.Helper()
	return checkCache(&Context{Snap: &archive.Snapshot{Root: root}})
}

// put writes content to root/rel, making its directory.
func put(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cacheSeverities maps "ID helper" to the severity found.
func cacheSeverities(fs []finding.Finding) map[string]finding.Severity {
	m := map[string]finding.Severity{}
	for _, f := range fs {
		m[f.ID+" "+strings.Fields(f.Quote)[0]] = f.Severity
	}
	return m
}

func TestCacheFixtures(t *testing.T) {
	tests := []struct {
		snap string
		want map[string]finding.Severity
	}{
		// audit §3: evict 1.00 → 1.00 returned True (F26), warm 0.00 → 1.00
		// (F27), both on the dense GGUF while the fill reads .experts (F29).
		{"m5-v3", map[string]finding.Severity{
			"F26 evict_file_cache:": finding.Fail,
			"F27 warm_file_cache:":  finding.Pass,
			"F29 evict_file_cache":  finding.Fail,
			"F29 warm_file_cache":   finding.Fail,
			"F29 return":            finding.Fail, // the runner's cache_target
		}},
		{"m5", map[string]finding.Severity{
			"F26 evict_file_cache:": finding.Pass,
			"F27 warm_file_cache:":  finding.Pass,
			"F29 evict_file_cache":  finding.Pass,
			"F29 warm_file_cache":   finding.Pass,
			"F29 return":            finding.Pass,
		}},
	}
	for _, tt := range tests {
		fs, err := cacheRun(t, snaptest.Fixture(t, tt.snap))
		if err != nil {
			t.Fatalf("%s: %v", tt.snap, err)
		}
		got := cacheSeverities(fs)
		for k, want := range tt.want {
			if got[k] != want {
				t.Errorf("cache on %s: %s = %v; want %v", tt.snap, k, got[k], want)
			}
		}
		if len(got) != len(tt.want) {
			t.Errorf("cache on %s: findings %v; want exactly %v", tt.snap, got, tt.want)
		}
		for _, f := range fs {
			if f.File != ProbeFile && f.File != RunnerFile || f.Line == 0 || f.Message == "" {
				t.Errorf("cache on %s: finding %+v lacks file, line or message", tt.snap, f)
			}
		}
	}
}

// TestCacheCases covers the probe outcomes the fixtures do not.
func TestCacheCases(t *testing.T) {
	const tmpl = `{"format": "strataspec-mincore-probe/1",
 "probe": {"tool": "t", "page_size": 16384, "file_size": 268435456},
 "arena_fill": {"files": ["a.experts", "b.experts"], "io": "pread"},
 "helpers": [{"name": "h", "op": "OP", "mechanism": "m", "targets": TARGETS,
   "returned": RET, "before": BEFORE, "after": AFTER}]}`
	tests := []struct {
		op, targets, ret, before, after string
		wantRes, wantTarget             finding.Severity
		msg                             string
	}{
		{"evict", `["a.experts", "b.experts"]`, "true", "1.00", "0.01", finding.Pass, finding.Pass, "evicts"},
		{"evict", `["a.experts", "b.experts"]`, "true", "1.00", "0.02", finding.Fail, finding.Pass, "returns success and evicts nothing"},
		{"evict", `["a.experts", "b.experts"]`, "false", "1.00", "0.50", finding.Fail, finding.Pass, "fails to evict"},
		{"evict", `["a.experts", "b.experts"]`, "true", "0.00", "0.00", finding.Warn, finding.Pass, "cannot show an eviction"},
		{"evict", `["a.experts"]`, "true", "1.00", "0.00", finding.Pass, finding.Fail, "never touches b.experts"},
		{"warm", `["a.experts", "b.experts"]`, "true", "0.00", "0.50", finding.Fail, finding.Pass, "leaves the file cold"},
		{"warm", `["a.experts", "b.experts"]`, "true", "1.00", "1.00", finding.Warn, finding.Pass, "cannot show a warm-up"},
		{"warm", `["a.gguf"]`, "true", "0.00", "1.00", finding.Pass, finding.Fail, "targets a.gguf, which the arena fill does not read"},
	}
	for _, tt := range tests {
		root := t.TempDir()
		body := strings.NewReplacer("OP", tt.op, "TARGETS", tt.targets, "RET", tt.ret, "BEFORE", tt.before, "AFTER", tt.after).Replace(tmpl)
		put(t, root, ProbeFile, body)
		fs, err := cacheRun(t, root)
		if err != nil {
			t.Fatalf("%+v: %v", tt, err)
		}
		// residency, target, and a warn for the op that was not probed.
		if len(fs) != 3 || fs[0].Severity != tt.wantRes || fs[1].Severity != tt.wantTarget || fs[2].Severity != finding.Warn {
			t.Errorf("cache(%s %s %s→%s returned %s) = %v; want %v, %v, warn", tt.op, tt.targets, tt.before, tt.after, tt.ret, fs, tt.wantRes, tt.wantTarget)
			continue
		}
		if all := fs[0].Message + fs[1].Message; !strings.Contains(all, tt.msg) {
			t.Errorf("cache(%s %s→%s) messages %q; want %q", tt.op, tt.before, tt.after, all, tt.msg)
		}
	}
}

func TestCacheInput(t *testing.T) {
	root := t.TempDir()
	fs, err := cacheRun(t, root)
	if err != nil || len(fs) != 1 || fs[0].Severity != finding.Warn {
		t.Errorf("cache on a snapshot without a probe = %v, %v; want one warn", fs, err)
	}
	put(t, root, ProbeFile, `{"format": 1}`)
	if _, err := cacheRun(t, root); err == nil || !strings.Contains(err.Error(), ProbeFile+": $.probe: missing") {
		t.Errorf("cache on a bad probe: error %v; want one naming %s and $.probe", err, ProbeFile)
	}
}

func TestCacheRunnerTarget(t *testing.T) {
	probe, err := os.ReadFile(filepath.Join(snaptest.Fixture(t, "m5"), ProbeFile))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src  string
		want finding.Severity
		line int
	}{
		{"x = 1\ndef cache_target(quant):\n    \"\"\"doc\"\"\"\n    return os.path.join(MODELS, f\"K256-{quant}-metal.gguf.experts\")\n", finding.Pass, 4},
		{"def cache_target(quant):\n    return os.path.join(MODELS, f\"K256-{quant}-metal.gguf\")\n", finding.Fail, 2},
		{"def cache_target(quant):\n    return os.path.join(MODELS, f\"{quant}-metal.bin\")\n", finding.Fail, 2},
		{"def cache_target(quant):\n    return MODELS + quant\n", finding.Warn, 1},
		{"def evict(path):\n    pass\n", finding.Warn, 0},
	}
	for _, tt := range tests {
		root := t.TempDir()
		put(t, root, ProbeFile, string(probe))
		put(t, root, RunnerFile, tt.src)
		fs, err := cacheRun(t, root)
		if err != nil {
			t.Fatal(err)
		}
		var got *finding.Finding
		for i := range fs {
			if fs[i].File == RunnerFile {
				got = &fs[i]
			}
		}
		if got == nil || got.Severity != tt.want || got.Line != tt.line || got.ID != "F29" {
			t.Errorf("cache on runner %q = %+v; want %v at line %d", tt.src, got, tt.want, tt.line)
		}
	}
}
