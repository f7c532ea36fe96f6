// Package spec is the executable specification of the strata engine's plan:
// table-driven tests that bind every claim of PLAN.md to an engine run or a
// golden tail fixture, and check the engine's invariants. `go test ./spec/...`
// is the CI gate; `go test ./spec/... -update` rewrites golden/ after a
// deliberate change.
package spec
