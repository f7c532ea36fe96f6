// Command mkfixtures writes the fixture snapshots fixtures/m5-v3 (the M5
// validation as audited) and fixtures/m5 (fixed) from tables of the audit's
// figures, deterministically.
//
// It writes only the files it owns (the results JSON, the route_parity and
// self-test logs, the residency records of the page-cache probe
// (residency.go), the strata prompts, the stand-ins for hashed sources and
// binaries, machine/mtimes.json, VALUES.md) and rewrites a file only when
// its content changes. Files other helpers own are never overwritten: when
// one that provenance hashes is missing, a placeholder marked
// MKFIXTURES-PLACEHOLDER stands in until its owner writes it. The 8 llama.cpp
// runs are read from tools/mkfixtures/llama/; the TF files and their
// vocabulary are built by tfFiles (tf.go). Provenance hashes are computed from the
// files on disk, so run it again after any helper changes a hashed file.
//
// Usage:
//
//	go run ./tools/mkfixtures [-out fixtures] [-llama tools/mkfixtures/llama]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

func run(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("mkfixtures", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "fixtures", "directory holding the snapshots")
	llamaDir := fs.String("llama", "tools/mkfixtures/llama", "directory of the llama.cpp runs")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mkfixtures: unexpected arguments %q\n", fs.Args())
		return 2
	}
	llama, err := readLlama(*llamaDir)
	if err != nil {
		fmt.Fprintf(stderr, "mkfixtures: %v\n", err)
		return 1
	}
	for _, snap := range []string{"m5-v3", "m5"} {
		changed, err := generate(joinRoot(*out, snap), snap, llama)
		if err != nil {
			fmt.Fprintf(stderr, "mkfixtures: %s: %v\n", snap, err)
			return 1
		}
		for _, c := range changed {
			fmt.Fprintf(stdout, "wrote %s/%s/%s\n", *out, snap, c)
		}
	}
	changed, err := generateShapes(joinRoot(*out, "m5-shapes"), joinRoot(*out, "m5-v3"))
	if err != nil {
		fmt.Fprintf(stderr, "mkfixtures: m5-shapes: %v\n", err)
		return 1
	}
	for _, c := range changed {
		fmt.Fprintf(stdout, "wrote %s/m5-shapes/%s\n", *out, c)
	}
	return 0
}
