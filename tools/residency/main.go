// Command residency reports, evicts or warms files' pages in the page cache,
// like vmtouch, and verifies every eviction and warm-up by counting the
// resident pages afterwards.
//
// Usage:
//
//	residency [-evict [-sync] | -warm] [-mincore] [-format text|json] FILE...
//
// Without -evict or -warm it prints each file's resident pages. With -warm it
// reads each file and checks that every page is resident. With -evict it
// drops the pages and checks that none remains: an eviction is verified only
// when no page of the file is resident afterwards. Every page that stayed is
// named, in runs of page numbers, with its reason: locked (mlocked by pid N),
// mapped elsewhere (mapped by pid N), tmpfs (a memory file system: shmem is
// the file's only copy), dirty, unknown; or the whole result is unverifiable
// (the caller does not own the file, and the kernel's count cannot be
// trusted). Any page that stayed makes the eviction not verified, whatever
// the pages' share.
//
// Eviction and dirty pages (data another process wrote that is not yet on
// disk):
//   - Without -sync, nothing is written back: only clean pages are evicted,
//     and dirty pages (found with cachestat on Linux, with mincore on darwin)
//     stay and are reported as dirty. Where dirty pages cannot be found
//     (Linux before 6.5, or a kernel that refuses cachestat to a caller who
//     does not own the file) the eviction is refused (exit 2) rather than
//     done blind.
//   - With -sync, the file's dirty pages are written back first (fdatasync;
//     msync on darwin), then every page is evicted.
//
// Only regular files are accepted. A directory, FIFO, socket or device is
// refused without being opened (exit 2; a FIFO never blocks), and so are the
// generated files of the kernel's pseudo file systems (procfs, sysfs,
// cgroupfs, …), which have no page cache: /proc/self/status is refused, never
// "verified" on 0 of 0 pages. Files over 1 TiB are refused.
// Whole-file counts use cachestat where the kernel has it (Linux 6.5 and
// later: the kernel's exact count of the file's cached pages) and mincore,
// page by page, otherwise (older kernels, a kernel refusing cachestat,
// darwin); -mincore always counts with mincore. The output names the method
// of each reading ("method" in JSON).
//
// The JSON output (-format json) is one pagecache.Document, tagged
// "format": "strataspec-residency/1": the operation, whether all files were
// verified, and per file its reading, or its result (before and after
// readings, reasons with their page spans), or its error. It is the record a
// runner archives next to its results; the audit's cache rules read it.
//
// Exit status: 0 when every requested eviction or warm-up was verified, 1 when
// one was not, 2 on bad usage or a file that is refused or cannot be read or
// mapped.
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

func run(stdout, stderr io.Writer, args []string) int {
	fl := flag.NewFlagSet("residency", flag.ContinueOnError)
	fl.SetOutput(stderr)
	evict := fl.Bool("evict", false, "evict the files' clean pages and verify that no page remains")
	sync := fl.Bool("sync", false, "with -evict: write dirty pages back first, so that they are evicted too (default: nothing is written back; dirty pages stay and are reported)")
	warm := fl.Bool("warm", false, "read the files into the page cache and verify that every page is resident")
	format := fl.String("format", "text", "output format: text or json")
	byMincore := fl.Bool("mincore", false, "count pages with mincore, page by page; default: cachestat where the kernel has it (Linux 6.5+), mincore otherwise")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: residency [-evict [-sync] | -warm] [-mincore] [-format text|json] FILE...")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	switch {
	case *evict && *warm:
		fmt.Fprintln(stderr, "residency: -evict and -warm are exclusive")
		return 2
	case *sync && !*evict:
		fmt.Fprintln(stderr, "residency: -sync goes with -evict")
		return 2
	case *format != "text" && *format != "json":
		fmt.Fprintf(stderr, "residency: unknown format %q (want text or json)\n", *format)
		return 2
	case fl.NArg() == 0:
		fl.Usage()
		return 2
	}
	out := pagecache.Document{Format: pagecache.DocumentFormat, Op: "residency"}
	switch {
	case *evict:
		out.Op = string(pagecache.OpEvict)
	case *warm:
		out.Op = string(pagecache.OpWarm)
	}
	opts := pagecache.Options{Mincore: *byMincore, Sync: *sync}
	code := 0
	allVerified := true
	for _, path := range fl.Args() {
		var e pagecache.Entry
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
			e = pagecache.Entry{Error: err.Error()}
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

func writeText(w io.Writer, path string, e pagecache.Entry) {
	if r := e.Reading; r != nil {
		fmt.Fprintln(w, pagecache.FormatText(path, *r))
		return
	}
	r := e.Result
	verdict := "verified"
	if !r.Verified {
		verdict = "NOT verified"
	}
	op := string(r.Op)
	if r.Sync {
		op += " -sync"
	}
	fmt.Fprintf(w, "%s: %s %.2f %% → %s resident (%s), %s in %v%s\n", path, op,
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
