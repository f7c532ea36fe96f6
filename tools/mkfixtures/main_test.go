package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// owned reports whether the generator owns a file of a snapshot.
func owned(snap, rel string) bool {
	if snap == "m5-shapes" { // written from m5-v3 but for its spec, claims and README
		return rel != "strataspec.json" && rel != "PLAN.claims" && rel != "README.md"
	}
	switch {
	case rel == "VALUES.md", rel == "results/phase0_phase2_m5_validation.json", rel == "results/self_test.log",
		rel == "machine/mtimes.json", strings.HasPrefix(rel, "results/route_parity/"), strings.HasPrefix(rel, "results/residency/"),
		strings.HasPrefix(rel, "data/m5_val_prompts/strata_prompt_"), strings.HasPrefix(rel, "build/"),
		strings.HasPrefix(rel, "data/m5_val_prompts/eval_tf_"), rel == "data/vocab-synthetic-chatml.gguf", rel == "data/SYNTHETIC-TF.md",
		rel == "scripts/patch_strata_metal.py", rel == "vendor/strata/metal/moe.metal":
		return true
	}
	return false
}

// copyForeign copies the committed snapshots' files the generator does not
// own into dst, and returns the owned files' committed contents.
func copyForeign(t *testing.T, src, dst string) map[string][]byte {
	t.Helper()
	want := map[string][]byte{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if parts := strings.SplitN(rel, "/", 2); owned(parts[0], parts[1]) {
			want[rel] = b
			return nil
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// TestRegenerate regenerates both snapshots into a temporary directory that
// holds only the other helpers' files, and compares every file the
// generator owns with the committed fixture byte for byte; then it runs the
// generator again and checks that it changes nothing.
func TestRegenerate(t *testing.T) {
	src := filepath.Join("..", "..", "fixtures")
	if _, err := os.Stat(filepath.Join(src, "m5-v3", "results", "phase0_phase2_m5_validation.json")); err != nil {
		t.Fatalf("committed fixtures absent (a broken checkout): %v", err)
	}
	dst := t.TempDir()
	want := copyForeign(t, src, dst)
	foreign := map[string][]byte{}
	filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			foreign[p] = b
		}
		return nil
	})
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-out", dst, "-llama", "llama"}); code != 0 {
		t.Fatalf("run = %d; stderr: %s", code, stderr.String())
	}
	for rel, b := range want {
		got, err := os.ReadFile(filepath.Join(dst, rel))
		if err != nil {
			t.Errorf("regenerated %s: %v", rel, err)
			continue
		}
		if !bytes.Equal(got, b) {
			t.Errorf("regenerated %s differs from the committed file (re-run go run ./tools/mkfixtures)", rel)
		}
	}
	for p, b := range foreign {
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("the generator changed %s, which it does not own", p)
		}
	}
	stdout.Reset()
	if code := run(&stdout, &stderr, []string{"-out", dst, "-llama", "llama"}); code != 0 || stdout.Len() != 0 {
		t.Errorf("second run = %d, wrote %q; want 0 and nothing written", code, stdout.String())
	}
}

// TestPlaceholders checks that a missing foreign file gets a placeholder,
// that a placeholder is replaced by nothing but the owner, and that an
// owner's file is never touched.
func TestPlaceholders(t *testing.T) {
	root := t.TempDir()
	rel := "scripts/run_phase0_phase2_m5_validation.py"
	if c, err := ensurePlaceholder(root, rel); err != nil || !c {
		t.Fatalf("ensurePlaceholder(missing) = %v, %v; want written", c, err)
	}
	b, _ := os.ReadFile(filepath.Join(root, rel))
	if !bytes.Contains(b, []byte(placeholderMarker)) {
		t.Errorf("placeholder lacks the marker: %q", b)
	}
	if c, _ := ensurePlaceholder(root, rel); c {
		t.Errorf("ensurePlaceholder rewrote an unchanged placeholder")
	}
	os.WriteFile(filepath.Join(root, rel), []byte("owner's file\n"), 0o644)
	if c, err := ensurePlaceholder(root, rel); err != nil || c {
		t.Errorf("ensurePlaceholder(owner's file) = %v, %v; want untouched", c, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, rel)); string(b) != "owner's file\n" {
		t.Errorf("owner's file changed to %q", b)
	}
}

func TestRunUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"extra"}); code != 2 || !strings.Contains(stderr.String(), `unexpected arguments ["extra"]`) {
		t.Errorf("run(extra) = %d, %q; want 2 naming the argument", code, stderr.String())
	}
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"-llama", t.TempDir()}); code != 1 || !strings.Contains(stderr.String(), "want the 8 llama runs") {
		t.Errorf("run(empty llama dir) = %d, %q; want 1 naming the llama runs", code, stderr.String())
	}
}

func TestCheckTables(t *testing.T) {
	if err := checkTables(); err != nil {
		t.Fatalf("checkTables: %v", err)
	}
	old := tfRuns[0].kld[0]
	tfRuns[0].kld[0] = "0.058227"
	defer func() { tfRuns[0].kld[0] = old }()
	if err := checkTables(); err == nil || !strings.Contains(err.Error(), "0.064461") {
		t.Errorf("checkTables with a changed KLD = %v; want the macro mismatch", err)
	}
}

func TestThousands(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"105851.73", "105,851.73"}, {"985.29", "985.29"}, {"1000", "1,000"}, {"6985.29", "6,985.29"}} {
		if got := thousands(c.in); got != c.want {
			t.Errorf("thousands(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}
