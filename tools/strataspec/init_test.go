package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/checkout"
)

func TestInit(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "runs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "runs", "a.log"), []byte("llama_perf_context_print: load time = 1.00 ms\n"), 0o644))
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"-init", dir})
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "runs/*.log", "it says what it guessed")
	b, err := os.ReadFile(filepath.Join(dir, checkout.File))
	require.NoError(t, err)
	s, err := checkout.Parse(checkout.File, b)
	require.NoError(t, err)
	assert.Equal(t, "runs/*.log", s.Logs[0].Glob)

	// A second -init refuses to overwrite, and leaves the file as it was.
	stdout.Reset()
	stderr.Reset()
	require.NoError(t, os.WriteFile(filepath.Join(dir, checkout.File), []byte("{}\n"), 0o644))
	code = run(&stdout, &stderr, []string{"-init", dir})
	assert.Equal(t, 2, code)
	assert.True(t, strings.Contains(stderr.String(), "already exists"), "stderr: %s", stderr.String())
	b, _ = os.ReadFile(filepath.Join(dir, checkout.File))
	assert.Equal(t, "{}\n", string(b))
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "no temporary file left behind")
}

// TestInitNeverReplacesALink: a spec file that is a link (to a file outside,
// or to nothing) is the user's; -init refuses, and its own file is shared
// (0644), not private.
func TestInitNeverReplacesALink(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Symlink("/nonexistent/strataspec.json", filepath.Join(dir, checkout.File)))
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, run(&stdout, &stderr, []string{"-init", dir}))
	target, err := os.Readlink(filepath.Join(dir, checkout.File))
	require.NoError(t, err, "the link is still there")
	assert.Equal(t, "/nonexistent/strataspec.json", target)

	dir = t.TempDir()
	require.Equal(t, 0, run(&stdout, &stderr, []string{"-init", dir}), stderr.String())
	st, err := os.Stat(filepath.Join(dir, checkout.File))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

func TestListFormats(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(&stdout, &stderr, []string{"-list", "-format", "json"}), stderr.String())
	var rules []struct{ Name, Doc string }
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rules))
	require.Equal(t, len(audit.Names()), len(rules))
	for _, r := range rules {
		assert.NotEmpty(t, r.Doc, "rule %s has a doc line", r.Name)
	}
	stdout.Reset()
	assert.Equal(t, 2, run(&stdout, &stderr, []string{"-list", "-format", "sarif"}), "a format -list cannot print is refused")
}

func TestInitWriteErrorNamesTheSpecFile(t *testing.T) {
	const dst = "/logs/strataspec.json"
	for _, err := range []error{
		&fs.PathError{Op: "open", Path: "/logs/.strataspec.json.3792534361", Err: syscall.EACCES},
		&os.LinkError{Op: "link", Old: "/logs/.strataspec.json.3792534361", New: dst, Err: syscall.EACCES},
	} {
		got := writeError(dst, err).Error()
		if want := "-init: cannot write /logs/strataspec.json: permission denied"; got != want {
			t.Errorf("writeError(%q) = %q; want %q", err, got, want)
		}
	}
}
