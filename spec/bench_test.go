package spec

import (
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
)

// BenchmarkAuditM5v3 measures the whole audit of the audited snapshot: load,
// parse every tail, run every rule, build the report.
//
//	go test ./spec -run '^$' -bench AuditM5v3 -benchmem
func BenchmarkAuditM5v3(b *testing.B) {
	for b.Loop() {
		rep, err := audit.Audit("../fixtures/m5-v3", "")
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Failed() {
			b.Fatal("audit of m5-v3 passed; want FALSIFIER HIT")
		}
	}
}
