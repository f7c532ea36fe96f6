// Package invariants holds the rules about the engine's invariants, each
// an analyzer over the snapshot's facts: route parity (parity), the expert
// arena (arena) and memory (memory). What is specific to one checkout —
// parity configurations and tolerances, the arena's environment variable
// and slice count, the plan's hypotheses and their caveats — is read from
// the checkout's spec ("rules": {"parity": …, "arena": …, "memory": …});
// a rule with no settings there says it does not apply.
package invariants
