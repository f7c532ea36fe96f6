// Command residency reports, evicts or warms files' pages in the page cache,
// like vmtouch, and verifies every eviction and warm-up by counting the
// resident pages afterwards.
//
// Usage:
//
//	residency [-evict | -warm] [-mincore] [-format text|json] FILE...
//
// Without -evict or -warm it prints each file's resident pages. With -evict
// it drops the pages and checks that at most 1 % remain; with -warm it reads
// each file and checks that every page is resident. For pages that stayed it
// names the reason: tmpfs, locked, mapped elsewhere, dirty, unverifiable.
// Whole-file counts use cachestat where the kernel has it (Linux 6.5 and
// later: the kernel's exact count of the file's cached pages) and mincore,
// page by page, otherwise (older kernels, a kernel refusing cachestat,
// darwin); -mincore always counts with mincore. The output names the method
// of each reading ("method" in JSON).
//
// Exit status: 0 when every requested eviction or warm-up was verified, 1 when
// one was not, 2 on bad usage or a file that cannot be read or mapped.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/strataspec/strataspec/engine/pagecache"
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

// output is the JSON document: one entry per file, in argument order.
type output struct {
	Op       string  `json:"op"`                 // "residency", "evict" or "warm"
	Verified *bool   `json:"verified,omitempty"` // all files verified (evict, warm)
	Files    []entry `json:"files"`
}

type entry struct {
	*pagecache.Reading `json:"reading,omitempty"`
	*pagecache.Result  `json:"result,omitempty"`
	Error              string `json:"error,omitempty"`
}

func run(stdout, stderr io.Writer, args []string) int {
	fl := flag.NewFlagSet("residency", flag.ContinueOnError)
	fl.SetOutput(stderr)
	evict := fl.Bool("evict", false, "evict the files' pages and verify that at most 1 % remain")
	warm := fl.Bool("warm", false, "read the files into the page cache and verify that every page is resident")
	format := fl.String("format", "text", "output format: text or json")
	byMincore := fl.Bool("mincore", false, "count pages with mincore, page by page; default: cachestat where the kernel has it (Linux 6.5+), mincore otherwise")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: residency [-evict | -warm] [-mincore] [-format text|json] FILE...")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	switch {
	case *evict && *warm:
		fmt.Fprintln(stderr, "residency: -evict and -warm are exclusive")
		return 2
	case *format != "text" && *format != "json":
		fmt.Fprintf(stderr, "residency: unknown format %q (want text or json)\n", *format)
		return 2
	case fl.NArg() == 0:
		fl.Usage()
		return 2
	}
	out := output{Op: "residency"}
	switch {
	case *evict:
		out.Op = string(pagecache.OpEvict)
	case *warm:
		out.Op = string(pagecache.OpWarm)
	}
	opts := pagecache.Options{Mincore: *byMincore}
	code := 0
	allVerified := true
	for _, path := range fl.Args() {
		var e entry
		var err error
		switch out.Op {
		case "residency":
			var r pagecache.Reading
			r, err = opts.Residency(path)
			e.Reading = &r
		case string(pagecache.OpEvict):
			var r pagecache.Result
			r, err = opts.Evict(path)
			e.Result = &r
		default:
			var r pagecache.Result
			r, err = opts.Warm(path)
			e.Result = &r
		}
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				err = fmt.Errorf("%s: %w", path, err)
			}
			fmt.Fprintf(stderr, "residency: %v\n", err)
			e = entry{Error: err.Error()}
			code = 2
			allVerified = false
		} else if e.Result != nil && !e.Result.Verified {
			allVerified = false
			code = max(code, 1)
		}
		out.Files = append(out.Files, e)
		if *format == "text" && err == nil {
			writeText(stdout, path, e)
		}
	}
	if out.Op != "residency" {
		out.Verified = &allVerified
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "residency: %v\n", err)
			return 2
		}
	}
	return code
}

func writeText(w io.Writer, path string, e entry) {
	if r := e.Reading; r != nil {
		fmt.Fprintf(w, "%s: %s resident, %d-byte pages (%s)%s\n", path, r.Count, r.PageSize, r.Method, notes(*r))
		return
	}
	r := e.Result
	verdict := "verified"
	if !r.Verified {
		verdict = "NOT verified"
	}
	fmt.Fprintf(w, "%s: %s %.2f %% → %s resident (%s), %s in %v%s\n", path, r.Op,
		100*r.Before.Fraction(), r.After.Count, r.After.Method, verdict, r.Elapsed.Round(10e3), notes(r.After))
	for _, s := range r.Reasons {
		detail := ""
		if s.Detail != "" {
			detail = ": " + s.Detail
		}
		fmt.Fprintf(w, "  %d pages %s%s\n", s.Pages, s.Reason, detail)
	}
}

func notes(r pagecache.Reading) string {
	var n []string
	if r.Tmpfs {
		n = append(n, "tmpfs")
	}
	if r.Unverifiable != "" {
		n = append(n, "unverifiable: "+r.Unverifiable)
	}
	if len(n) == 0 {
		return ""
	}
	return " [" + strings.Join(n, "; ") + "]"
}
