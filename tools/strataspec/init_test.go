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

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/snaptest"
)

func TestInit(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	snaptest.Write(t, filepath.Join(dir, "runs", "a.log"), "llama_perf_context_print: load time = 1.00 ms\n")
	spec := filepath.Join(dir, checkout.File)
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-init", dir}); code != 0 {
		t.Fatalf("-init %s = exit %d; want 0; stderr: %s", dir, code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "runs/*.log") {
		t.Errorf("-init %s printed %q; want it to say what it guessed, runs/*.log", dir, stdout.String())
	}
	s, err := checkout.Parse(checkout.File, []byte(snaptest.Read(t, spec)))
	if err != nil {
		t.Fatalf("Parse(the spec file -init wrote): %v", err)
	}
	if len(s.Logs) != 1 || s.Logs[0].Glob != "runs/*.log" {
		t.Errorf("-init's spec file logs = %+v; want one, runs/*.log", s.Logs)
	}

	// A second -init refuses to overwrite, and leaves the file as it was.
	stdout.Reset()
	stderr.Reset()
	snaptest.Write(t, spec, "{}\n")
	if code := run(&stdout, &stderr, []string{"-init", dir}); code != 2 || !strings.Contains(stderr.String(), "already exists") {
		t.Errorf("-init over a spec file = exit %d, stderr %q; want 2 saying it already exists", code, stderr.String())
	}
	if got := snaptest.Read(t, spec); got != "{}\n" {
		t.Errorf("spec file after a refused -init = %q; want it as it was, %q", got, "{}\n")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s after a refused -init holds %q; want runs and %s only: no temporary file left behind", dir, names, checkout.File)
	}
}

// TestInitNeverReplacesALink: a spec file that is a link (to a file outside,
// or to nothing) is the user's; -init refuses, and its own file is shared
// (0644), not private.
func TestInitNeverReplacesALink(t *testing.T) {
	dir := t.TempDir()
	const dangling = "/nonexistent/strataspec.json"
	if err := os.Symlink(dangling, filepath.Join(dir, checkout.File)); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-init", dir}); code != 2 {
		t.Errorf("-init over a spec file linked to nothing = exit %d; want 2; stderr: %s", code, stderr.String())
	}
	if target, err := os.Readlink(filepath.Join(dir, checkout.File)); err != nil || target != dangling {
		t.Errorf("spec file link after -init = %q, %v; want the link to %s still there", target, err, dangling)
	}

	dir = t.TempDir()
	if code := run(&stdout, &stderr, []string{"-init", dir}); code != 0 {
		t.Fatalf("-init %s = exit %d; want 0; stderr: %s", dir, code, stderr.String())
	}
	st, err := os.Stat(filepath.Join(dir, checkout.File))
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o644 {
		t.Errorf("-init's spec file mode = %v; want %v", got, os.FileMode(0o644))
	}
}

func TestListFormats(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"-list", "-format", "json"}); code != 0 {
		t.Fatalf("-list -format json = exit %d; want 0; stderr: %s", code, stderr.String())
	}
	var rules []struct{ Name, Doc string }
	if err := json.Unmarshal(stdout.Bytes(), &rules); err != nil {
		t.Fatalf("-list -format json output does not parse: %v\n%s", err, stdout.String())
	}
	var names []string
	for _, r := range rules {
		names = append(names, r.Name)
		if r.Doc == "" {
			t.Errorf("-list -format json: rule %s has no doc line", r.Name)
		}
	}
	if diff := cmp.Diff(audit.Names(), names); diff != "" {
		t.Errorf("-list -format json rule names mismatch audit.Names() (-want +got):\n%s", diff)
	}
	// A format -list cannot print is refused, naming it, and nothing is listed.
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"-list", "-format", "sarif"}); code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), `"sarif"`) {
		t.Errorf("-list -format sarif = exit %d, stdout %q, stderr %q; want exit 2, nothing listed, naming \"sarif\"", code, stdout.String(), stderr.String())
	}
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
