package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/snapfs"
)

// runInit writes a starter spec file for dir by inspecting it, and prints
// what it guessed. It never overwrites a spec file: a person adopts the
// guess by reading it.
func runInit(stdout, stderr io.Writer, dir string) int {
	fsys, err := snapfs.Open(dir)
	if err != nil {
		fmt.Fprintf(stderr, "audit: -init: %v\n", err)
		return 2
	}
	defer fsys.Close()
	if fsys.Exists(checkout.File) {
		fmt.Fprintf(stderr, "audit: -init: %s already exists; remove it first to write a new guess\n", filepath.Join(dir, checkout.File))
		return 2
	}
	spec, said, err := checkout.Guess(fsys)
	if err != nil {
		fmt.Fprintf(stderr, "audit: -init: %v\n", err)
		return 2
	}
	b, err := spec.Marshal()
	if err != nil {
		fmt.Fprintf(stderr, "audit: -init: %v\n", err)
		return 2
	}
	// Check the guess reads back before writing it.
	if _, err := checkout.Parse(checkout.File, b); err != nil {
		fmt.Fprintf(stderr, "audit: -init: the guessed spec does not parse: %v\n", err)
		return 2
	}
	dst := filepath.Join(dir, checkout.File)
	tmp, err := os.CreateTemp(dir, "."+checkout.File+".*")
	if err == nil {
		_, err = tmp.Write(b)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), dst)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "audit: -init: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "wrote %s; what it guessed:\n", dst)
	for _, s := range said {
		fmt.Fprintf(stdout, "  %s\n", s)
	}
	fmt.Fprintf(stdout, "read it, correct it, then: go run ./tools/audit -metrics -root %s   (to write PLAN.claims rows)\n", dir)
	return 0
}
