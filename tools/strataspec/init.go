package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/format"
	"github.com/strataspec/strataspec/engine/report"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// runInit writes a starter spec file for dir by inspecting it, and prints
// what it guessed. It never overwrites a spec file: a person adopts the
// guess by reading it.
func runInit(stdout, stderr io.Writer, dir string) int {
	fsys, err := snapfs.Open(dir)
	if err != nil {
		fail(stderr, fmt.Errorf("-init: %w", err))
		return 2
	}
	defer fsys.Close()
	dst := filepath.Join(dir, checkout.File)
	// Anything at that name, a link included (even one leading outside or
	// nowhere), is the user's: never replaced.
	if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
		fail(stderr, fmt.Errorf("-init: %s already exists; remove it first to write a new guess", dst))
		return 2
	}
	spec, said, err := checkout.Guess(fsys, format.LooksLikeBench)
	if err != nil {
		fail(stderr, fmt.Errorf("-init: %w", err))
		return 2
	}
	b, err := spec.Marshal()
	if err != nil {
		fail(stderr, fmt.Errorf("-init: %w", err))
		return 2
	}
	// Check the guess reads back before writing it.
	back, err := checkout.Parse(checkout.File, b)
	if err == nil {
		err = back.CheckFormats(format.Builtins())
	}
	if err != nil {
		fail(stderr, fmt.Errorf("-init: the guessed spec does not parse: %w", err))
		return 2
	}
	tmp, err := os.CreateTemp(dir, "."+checkout.File+".*")
	if err == nil {
		_, err = tmp.Write(b)
		if err == nil {
			err = tmp.Chmod(0o644) // CreateTemp makes 0600; a spec file is shared
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			// Link, not rename: it fails if something appeared at dst since
			// the check, instead of replacing it.
			err = os.Link(tmp.Name(), dst)
		}
		os.Remove(tmp.Name())
	}
	if err != nil {
		fail(stderr, writeError(dst, err))
		return 2
	}
	fmt.Fprintf(stdout, "wrote %s; what it guessed:\n", report.Clean(dst))
	for _, s := range said {
		fmt.Fprintf(stdout, "  %s\n", report.Clean(s))
	}
	fmt.Fprintf(stdout, "read it, correct it, then: go run ./tools/strataspec -metrics -root %s   (to write PLAN.claims rows)\n", report.Clean(dir))
	return 0
}

// writeError names the spec file -init was asked to write, not the
// temporary file it is written through: of a path or link error it keeps
// only the system's cause.
func writeError(dst string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("-init: cannot write %s: %w", dst, err)
}
