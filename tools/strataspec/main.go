// Command strataspec checks a strata checkout (or a fixture snapshot laid out like
// one) against its plan: every quoted number bound to the run that produced
// it, every derived number recomputed from raw tails, and the engine's
// invariants.
//
// Usage:
//
//	strataspec [-root DIR] [-format text|markdown|json|github|sarif|junit|html] [-rules a,b]
//	           [-v] [-previous FILE] [-path-prefix PATH] [-strict] [-suggest]
//	strataspec -metrics [-root DIR] [-format text|json] [RUN…]
//	strataspec -list [-format text|json]
//	strataspec -init DIR
//
// -strict fails the measurement-like numbers outside the claim sections
// (rule plan.uncovered warns by default); -suggest prints PLAN.claims rows
// for the numbers the gate cannot source, and writes nothing. -metrics
// lists every metric of every run (or of the runs named): run, metric,
// value, printed text, unit and tail line.
//
// The default root is fixtures/m5. Exit status: 0 when no finding fails,
// 1 when one does (verdict FALSIFIER HIT; a rule's bad setting or input is
// that rule's fail finding; under -suggest and -metrics, a claims row the
// audit fails as plan.stale's for its own mistake), 2 on bad usage or a
// snapshot that cannot be read.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/strataspec/strataspec/engine/audit"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/report"
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

// DefaultRoot is the snapshot audited when -root is not given.
const DefaultRoot = "fixtures/m5"

func run(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("strataspec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", DefaultRoot, "snapshot `dir`ectory (a strata checkout or a fixture)")
	format := fs.String("format", "text", "output `format`: "+strings.Join(report.Formats(), ", "))
	ruleList := fs.String("rules", "", "comma-separated rule `ids` (a prefix selects its sub-rules: plan = plan.*); empty for all")
	list := fs.Bool("list", false, "list the rules and exit")
	metrics := fs.Bool("metrics", false, "list every metric of every run (or of the runs named after the flags) and exit")
	gate := addGateFlags(fs)
	lim := addLimitFlags(fs)
	initDir := fs.String("init", "", "write a starter "+checkout.File+" for `dir` by inspecting it, and exit")
	var rf reportFlags
	rf.register(fs)
	version := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: strataspec [-root DIR] [-format %s] [-rules a,b] [-v] [-previous FILE] [-path-prefix PATH] [-list] [-init DIR] [-strict] [-suggest]\n", strings.Join(report.Formats(), "|"))
		fmt.Fprintf(stderr, "       strataspec -metrics [-root DIR] [-format text|json] [RUN...]\n")
		fmt.Fprintf(stderr, "       strataspec -version\n\n")
		fmt.Fprint(stderr, usageText)
		fmt.Fprintf(stderr, "\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *version {
		fmt.Fprintf(stdout, "strataspec %s\n", toolVersion())
		return 0
	}
	if err := checkLimits(*lim); err != nil {
		fail(stderr, err)
		return 2
	}
	if *metrics {
		nerr, bad, err := listMetrics(stdout, *root, *format, fs.Args())
		if err != nil {
			fail(stderr, err)
			return 2
		}
		// A claims row the archive cannot source (plan.stale) and an
		// output with a malformed metric line (runs.parse) are the
		// audit's fail findings, so exit 1 as the audit would.
		code := reportBadRows(stderr, bad)
		if nerr > 0 {
			fmt.Fprintf(stderr, "strataspec: -metrics listed %d parse error(s); the audit reports them under runs.parse\n", nerr)
			code = 1
		}
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "strataspec: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	}
	if *initDir != "" {
		return runInit(stdout, stderr, *initDir)
	}
	if *list {
		switch *format {
		case "text":
			for _, r := range audit.Rules() {
				fmt.Fprintf(stdout, "%-16s %s\n", r.Name, r.Doc)
			}
		case "json":
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(audit.Rules()); err != nil {
				fail(stderr, err)
				return 2
			}
		default:
			fmt.Fprintf(stderr, "strataspec: -list prints text or json, not %q\n", *format)
			return 2
		}
		return 0
	}
	if *gate.suggest {
		return runSuggest(stdout, stderr, *root, *format)
	}
	if !validFormat(*format) {
		fmt.Fprintf(stderr, "strataspec: unknown -format %q (want one of %s)\n", *format, strings.Join(report.Formats(), ", "))
		return 2
	}
	prev, err := rf.readPrevious()
	if err != nil {
		fail(stderr, err)
		return 2
	}
	rep, err := audit.AuditLimits(*root, *ruleList, *lim)
	if err != nil {
		fail(stderr, err)
		return 2
	}
	if *gate.strict {
		rep = strictReport(rep)
	}
	if rf.previous != "" {
		rep.Compare(rf.previous, prev)
	}
	opts := rf.options(*root)
	opts.Width = textWidth(stdout)
	if err := rep.WriteOptions(stdout, *format, opts); err != nil {
		fail(stderr, err)
		return 2
	}
	if *format == "github" {
		if err := writeStepSummary(os.Getenv("GITHUB_STEP_SUMMARY"), rep, opts); err != nil {
			fail(stderr, err)
			return 2
		}
	}
	if rep.Failed() {
		return 1
	}
	return 0
}

// usageText is what -h prints before the flags: examples and exit codes.
const usageText = `Audit a strata checkout (or a folder of llama.cpp logs) against its plan:
every number the plan quotes bound to the archived run that printed it.

examples:
  strataspec -root ~/strata                         audit a checkout; text report
  strataspec -root ~/strata -format github          annotations for a pull request (+ job summary)
  strataspec -root ~/strata -format sarif > a.sarif for GitHub code scanning
  strataspec -root ~/strata -rules plan             the plan gate only
  strataspec -root ~/strata -suggest                PLAN.claims rows for unsourced numbers
  strataspec -root ~/strata -previous old.json      mark findings fixed, still or new
  strataspec -metrics -root ~/strata                every metric of every run
  strataspec -init ~/logs                           write a starter strataspec.json

exit codes:
  0  no fail finding (verdict PASS)
  1  a fail finding (verdict FALSIFIER HIT); a rule's bad setting or input
     file is one too, that rule's, and the rest of the audit runs; under
     -suggest and -metrics, a bad claims row (named at PLAN.claims:LINE)
  2  bad usage, a snapshot that cannot be read (the message names the file
     and place), a limit passed, or a -root with nothing to audit
`

// fail prints err on stderr as one line, escaped as every text the
// snapshot supplies is (report.Clean): a file name cannot forge a line or
// a workflow command.
func fail(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "strataspec: %s\n", report.Clean(err.Error()))
}

func validFormat(f string) bool {
	for _, g := range report.Formats() {
		if f == g {
			return true
		}
	}
	return false
}
