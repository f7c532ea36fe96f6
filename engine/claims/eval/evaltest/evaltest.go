// Package evaltest builds evaluation environments for tests of the claims
// gate: runs with metrics written as "name=text unit".
package evaltest

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// Env returns the environment of tb over the runs of order, each with the
// metrics runs gives it ("name=text unit", one tail line each, in order).
func Env(t testing.TB, tb *claims.Table, runs map[string][]string, order ...string) *eval.Env {
	t.Helper()
	metrics := map[string]*tail.Metrics{}
	for _, name := range order {
		ms := &tail.Metrics{Source: name}
		for i, m := range runs[name] {
			kv, unit, _ := strings.Cut(m, " ")
			k, v, _ := strings.Cut(kv, "=")
			n, err := num.Parse(v)
			if err != nil {
				t.Fatalf("evaltest.Env: run %s, metric %q: %v", name, m, err)
			}
			ms.Add(tail.Metric{Name: k, Num: n, Unit: unit, Line: i + 1})
		}
		metrics[name] = ms
	}
	return eval.NewEnv(tb, order, metrics, nil)
}

// Parse parses a claims table with the evaluator's derivations.
func Parse(file, text string) *claims.Table {
	return claims.Parse(file, []byte(text), eval.Signatures())
}
