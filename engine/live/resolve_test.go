package live_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/live"
)

// TestResolveIn: a program recorded by a bare name (llama-bench, found on
// $PATH when it ran; ./llama-cli, run from its build folder) is found in
// the checkout's declared bin folders, in order, and nowhere else: not on
// $PATH, not at the root once folders are declared. A path with a folder is
// read from the root as before; a bin folder that leads out is refused; a
// program in none of the places is ErrNoProgram naming each.
func TestResolveIn(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need Unix")
	}
	root := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("build/bin/llama-cli")
	write("build/bin/llama-bench")
	write("tools/llama-bench")
	write("llama-server") // at the root: found only when no bin folder is declared
	write("bin/llama-cli")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "llama-cli"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "outbin")); err != nil {
		t.Fatal(err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		bin     []string
		argv0   string
		want    string // resolved, relative to the checkout
		missing bool   // ErrNoProgram
		refused bool   // ErrOutsideCheckout
		errHas  string
	}{
		{bin: []string{"build/bin"}, argv0: "llama-bench", want: "build/bin/llama-bench"},
		{bin: []string{"build/bin"}, argv0: "./llama-cli", want: "build/bin/llama-cli"},
		{bin: []string{"tools", "build/bin"}, argv0: "llama-bench", want: "tools/llama-bench"}, // in order
		{bin: []string{"tools", "build/bin"}, argv0: "llama-cli", want: "build/bin/llama-cli"},
		{bin: []string{"build/bin"}, argv0: "bin/llama-cli", want: "bin/llama-cli"}, // a folder: from the root
		{bin: nil, argv0: "llama-server", want: "llama-server"},
		{bin: []string{"build/bin"}, argv0: "llama-server", missing: true, errHas: "build/bin/llama-server"},
		{bin: []string{"tools", "build/bin"}, argv0: "llama-quantize", missing: true, errHas: "tools/llama-quantize or build/bin/llama-quantize"},
		{bin: nil, argv0: "llama-bench", missing: true, errHas: "llama-bench"}, // never $PATH's, never a bin folder not declared
		{bin: []string{"../elsewhere"}, argv0: "llama-cli", refused: true, errHas: "../elsewhere"},
		{bin: []string{"/usr/local/bin"}, argv0: "llama-cli", refused: true, errHas: "/usr/local/bin"},
		{bin: []string{"outbin"}, argv0: "llama-cli", refused: true, errHas: "symbolic link"}, // a bin folder linked out
		{bin: []string{"outbin"}, argv0: "llama-bench", missing: true, errHas: "outbin/llama-bench"},
	} {
		got, err := live.ResolveIn(root, tt.bin, tt.argv0)
		switch {
		case tt.want != "":
			if want := filepath.Join(realRoot, filepath.FromSlash(tt.want)); err != nil || got != want {
				t.Errorf("ResolveIn(%q, %q) = %q, %v; want %q", tt.bin, tt.argv0, got, err, want)
			}
		case err == nil:
			t.Errorf("ResolveIn(%q, %q) = %q; want an error", tt.bin, tt.argv0, got)
		case errors.Is(err, live.ErrNoProgram) != tt.missing || errors.Is(err, live.ErrOutsideCheckout) != tt.refused || !strings.Contains(err.Error(), tt.errHas):
			t.Errorf("ResolveIn(%q, %q) = %v; want missing=%v refused=%v naming %q", tt.bin, tt.argv0, err, tt.missing, tt.refused, tt.errHas)
		}
	}
}
