package main

import (
	"flag"
	"fmt"

	"github.com/strataspec/strataspec/engine/snapfs"
)

// addLimitFlags registers the flags that raise snapfs.Limits, one a limit;
// their defaults are snapfs.DefaultLimits.
func addLimitFlags(fs *flag.FlagSet) *snapfs.Limits {
	lim := snapfs.DefaultLimits
	d := snapfs.DefaultLimits
	fs.Int64Var(&lim.Bytes, "max-bytes", d.Bytes, "most `bytes` read from the snapshot in all, each file counted once")
	fs.IntVar(&lim.Logs, "max-logs", d.Logs, "most log files (`n`) the spec's log globs may match")
	fs.IntVar(&lim.Runs, "max-runs", d.Runs, "most runs (`n`), from records and logs")
	fs.IntVar(&lim.Metrics, "max-metrics", d.Metrics, "most metrics (`n`) parsed from one run's output")
	fs.IntVar(&lim.ClaimsRows, "max-claims-rows", d.ClaimsRows, "most rows (`n`) of PLAN.claims")
	return &lim
}

// checkLimits refuses a limit below 1: a limit is raised or kept, never off.
func checkLimits(lim snapfs.Limits) error {
	for _, l := range []struct {
		flag string
		v    int64
	}{{"-max-bytes", lim.Bytes}, {"-max-logs", int64(lim.Logs)}, {"-max-runs", int64(lim.Runs)}, {"-max-metrics", int64(lim.Metrics)}, {"-max-claims-rows", int64(lim.ClaimsRows)}} {
		if l.v < 1 {
			return fmt.Errorf("%s %d: a limit is at least 1", l.flag, l.v)
		}
	}
	return nil
}
