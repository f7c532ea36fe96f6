package main

import (
	"encoding/json"
	"fmt"

	"github.com/strataspec/strataspec/engine/pagecache"
)

// Probe of the runner's page-cache helpers (audit §3): a 256 MiB throwaway
// file with 16 KiB pages, counted with mincore in a separate process.
const (
	probeSize     = 256 << 20
	probePageSize = 16 << 10
	probePath     = "/tmp/mincore-probe/probe.gguf" // synthetic: the audit names no path
)

// residencyRecords returns the residency documents archived around each
// helper call, as `tools/residency -format json FILE` writes them, by path:
// on m5-v3 the audit's figures (evict 1.00 → 1.00, warm 0.00 → 1.00); on m5
// the fixed helpers (evict 1.00 → 0.00), which the audit never probed.
func residencyRecords(snap string) (map[string][]byte, error) {
	const pages = probeSize / probePageSize
	evicted := int64(pages) // the audited helper evicts nothing
	if snap == "m5" {
		evicted = 0
	}
	out := map[string][]byte{}
	for name, resident := range map[string]int64{
		"evict_file_cache.before": pages, "evict_file_cache.after": evicted,
		"warm_file_cache.before": 0, "warm_file_cache.after": pages,
	} {
		d := pagecache.Document{Format: pagecache.DocumentFormat, Op: "residency", Files: []pagecache.Entry{{
			Reading: &pagecache.Reading{Path: probePath, Size: probeSize, PageSize: probePageSize,
				Count: pagecache.Count{Resident: resident, Total: pages}, Method: "mincore"}}}}
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("residency record %s: %w", name, err)
		}
		out["results/residency/"+name+".json"] = append(b, '\n')
	}
	return out, nil
}
