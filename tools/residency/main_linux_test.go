//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/pagecache"
	"github.com/strataspec/strataspec/engine/pagecache/pagecachetest"
)

// byMincore counts pages with mincore: the tests' independent reading.
var byMincore = pagecache.Options{Mincore: true}

func TestEvictJSON(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", 4<<20)
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"-evict", "-format", "json", path})
	var got struct {
		Op       string
		Verified bool
		Files    []struct{ Result pagecache.Result }
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	if code != 0 || !got.Verified || len(got.Files) != 1 {
		t.Fatalf("run(-evict) = %d, %+v, stderr %q; want 0, verified", code, got, errb.String())
	}
	r := got.Files[0].Result
	if r.Before.Fraction() != 1 || r.After.Fraction() > pagecache.EvictTolerance {
		t.Errorf("evict reported %v → %v; want 100 %% → ≤ 1 %%", r.Before.Count, r.After.Count)
	}
	// The report must match an independent reading.
	now, err := byMincore.Residency(path)
	if err != nil || now.Fraction() > pagecache.EvictTolerance {
		t.Errorf("after run(-evict): %v, %v; want ≤ 1 %% resident", now.Count, err)
	}

	out.Reset()
	if code := run(&out, &errb, []string{"-warm", "-mincore", path}); code != 0 || !strings.Contains(out.String(), "(100.00 %) resident (mincore), verified") {
		t.Errorf("run(-warm) = %d, %q; want 0 and 100 %% verified", code, out.String())
	}
	if now, err := byMincore.Residency(path); err != nil || now.Resident != now.Total {
		t.Errorf("after run(-warm): %v, %v; want all resident", now.Count, err)
	}
}

func TestEvictTmpfs(t *testing.T) {
	if !pagecachetest.MemoryFS("/dev/shm") {
		t.Skip("no tmpfs at /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "residency-test-")
	if err != nil {
		t.Fatalf("/dev/shm is a tmpfs but not writable: %v", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"-evict", path})
	if code != 1 || !strings.Contains(out.String(), "NOT verified") || !strings.Contains(out.String(), "pages tmpfs") {
		t.Errorf("run(-evict %s) = %d, %q; want 1, not verified, tmpfs named", path, code, out.String())
	}
	out.Reset()
	code = run(&out, &errb, []string{"-evict", "-format", "json", path})
	var got struct {
		Verified bool
		Files    []struct{ Result pagecache.Result }
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	if code != 1 || got.Verified || len(got.Files) != 1 || len(got.Files[0].Result.Reasons) == 0 ||
		got.Files[0].Result.Reasons[0].Reason != pagecache.ReasonTmpfs {
		t.Errorf("run(-evict -format json %s) = %d, %+v; want 1, not verified, reason tmpfs", path, code, got)
	}
	if now, err := byMincore.Residency(path); err != nil || now.Resident != now.Total {
		t.Errorf("tmpfs file after evict: %v, %v; want still all resident", now.Count, err)
	}
}
