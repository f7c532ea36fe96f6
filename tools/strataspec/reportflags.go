package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/report"
)

// reportFlags are the flags that shape the report: -v, -previous and
// -path-prefix.
type reportFlags struct {
	verbose    bool
	previous   string
	pathPrefix string
}

func (rf *reportFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&rf.verbose, "v", false, "list every finding, pass findings included (text, markdown, html)")
	fs.StringVar(&rf.previous, "previous", "", "an earlier JSON report `file`: mark every finding fixed, still or new")
	fs.StringVar(&rf.pathPrefix, "path-prefix", "", "the `path` from the repository root to -root, for file paths in github, sarif and junit output (default: found from the enclosing .git)")
}

// readPrevious reads the -previous report; "" reads nothing.
func (rf *reportFlags) readPrevious() (prev []finding.Finding, err error) {
	if rf.previous == "" {
		return nil, nil
	}
	b, err := readRegular(rf.previous, 512<<20)
	if err != nil {
		return nil, fmt.Errorf("-previous: %w", err)
	}
	return report.ParsePrevious(rf.previous, b)
}

// options returns the writing options for a report of the snapshot at root.
func (rf *reportFlags) options(root string) report.Options {
	o := report.Options{Verbose: rf.verbose, PathPrefix: rf.pathPrefix, ToolVersion: toolVersion()}
	if o.PathPrefix == "" {
		o.PathPrefix = repoPath(root)
	}
	return o
}

// repoPath returns root's path from the repository that holds it: the
// nearest directory above it with a .git entry (a directory, or a file in a
// worktree). Without one, root is returned as given.
func repoPath(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return root
	}
	for dir := abs; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			if rel, err := filepath.Rel(dir, abs); err == nil {
				return filepath.ToSlash(rel)
			}
			return root
		} else if !errors.Is(err, os.ErrNotExist) {
			return root
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return root
		}
		dir = parent
	}
}

// toolVersion is the module version the binary was built from, "dev" for
// a build from a working tree.
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// readRegular reads a regular file named on the command line, refusing a
// FIFO or device before it can block, and a file over limit bytes.
func readRegular(name string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, over the limit of %d", name, st.Size(), limit)
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}
