package claims

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/tail"
)

// Ref is a metric reference with its occurrence selector, as a source
// names it after "RUN:" or "@SET:":
//
//	tg32                                   the first tg32 the run printed
//	prompt_tok_s#2                         the second prompt_tok_s it printed
//	tg32[model_filename=models/b.gguf]     the tg32 of the llama-bench row that prints this field
//	tg32[n_threads=1,model_size=139048]#2  the second of those rows matching both fields
//
// Fields are matched against the configuration a measurement is printed
// with (every field of a llama-bench row, as printed); #N counts, from 1,
// the occurrences that match the fields.
type Ref struct {
	Name  string       // the metric name
	Where []tail.Field // the printed fields the occurrence must have
	N     int          // which matching occurrence, from 1
}

// ParseRef parses a metric reference: NAME, then an optional [KEY=VALUE,…]
// and an optional #N.
func ParseRef(s string) (Ref, error) {
	r := Ref{N: 1}
	rest := s
	if i := strings.LastIndexByte(rest, '#'); i >= 0 {
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil || n < 1 {
			return Ref{}, fmt.Errorf("metric %s: occurrence %q is not a number from 1", s, rest[i+1:])
		}
		r.N, rest = n, rest[:i]
	}
	if i := strings.IndexByte(rest, '['); i >= 0 {
		if !strings.HasSuffix(rest, "]") {
			return Ref{}, fmt.Errorf("metric %s: missing ']'", s)
		}
		for _, kv := range strings.Split(rest[i+1:len(rest)-1], ",") {
			k, v, ok := strings.Cut(kv, "=")
			if k = strings.TrimSpace(k); !ok || k == "" {
				return Ref{}, fmt.Errorf("metric %s: selector %q is not KEY=VALUE", s, kv)
			}
			r.Where = append(r.Where, tail.Field{Key: k, Value: strings.TrimSpace(v)})
		}
		rest = rest[:i]
	}
	if rest == "" || strings.ContainsAny(rest, "[]=#") {
		return Ref{}, fmt.Errorf("metric %s: bad metric name %q", s, rest)
	}
	r.Name = rest
	return r, nil
}
