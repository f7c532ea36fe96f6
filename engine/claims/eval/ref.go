package eval

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/claims"
	"github.com/strataspec/strataspec/engine/tail"
)

// Find returns the occurrence of ms the reference r selects, or an error
// saying how many occurrences there are.
func Find(r claims.Ref, ms *tail.Metrics) (tail.Metric, error) {
	all := ms.All(r.Name)
	if len(all) == 0 {
		return tail.Metric{}, fmt.Errorf("no metric %q", r.Name)
	}
	n := 0
	for _, m := range all {
		if matches(r, m) {
			if n++; n == r.N {
				return m, nil
			}
		}
	}
	what := r.Name
	if len(r.Where) > 0 {
		var kv []string
		for _, f := range r.Where {
			kv = append(kv, f.Key+"="+f.Value)
		}
		what += " printed with " + strings.Join(kv, ", ")
	}
	return tail.Metric{}, fmt.Errorf("occurrence %d of %s asked for; %d printed (of %d %s)", r.N, what, n, len(all), r.Name)
}

func matches(r claims.Ref, m tail.Metric) bool {
	for _, w := range r.Where {
		found := false
		for _, f := range m.Config() {
			if f.Key == w.Key && f.Value == w.Value {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Lookup returns the metric a source's RUN:METRIC reference names in ms,
// its occurrence selector applied; false when there is none.
func Lookup(ms *tail.Metrics, metric string) (tail.Metric, bool) {
	r, err := claims.ParseRef(metric)
	if err != nil {
		return tail.Metric{}, false
	}
	m, err := Find(r, ms)
	return m, err == nil
}
