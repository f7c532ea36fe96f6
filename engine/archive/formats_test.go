package archive

import (
	"path"
	"strings"

	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/unit"
)

// testFormats stands in for engine/format's registry, which imports this
// package: the strata CLI and llama.cpp's programs by argv[0], a llama.cpp
// log by its perf summary. engine/format's tests load with the registry
// itself.
type testFormats struct{ spec *checkout.Spec }

func fakeFormats(spec *checkout.Spec) Formats { return testFormats{spec} }

func (testFormats) Builtins() []string {
	return []string{"strata", "llama.cpp", "llama-bench", "route_parity", "self-test"}
}

func (f testFormats) Program(argv0 string) (string, bool) {
	base := path.Base(argv0)
	for _, p := range f.spec.Programs {
		if m, _ := path.Match(p.Match, base); m {
			return p.Parser, true
		}
	}
	switch {
	case strings.HasPrefix(base, "strata_window_cli"):
		return "strata", true
	case base == "llama-bench":
		return "llama-bench", true
	case base == "main" || strings.HasPrefix(base, "llama-"):
		return "llama.cpp", true
	}
	return "", false
}

func (testFormats) Recognize(text string) string {
	if strings.Contains(text, "llama_perf_context_print:") || strings.Contains(text, "llama_print_timings:") {
		return "llama.cpp"
	}
	return ""
}

// Seconds converts as format.Registry does (unit.Seconds).
func (testFormats) Seconds(v float64, name string) (float64, error) { return unit.Seconds(v, name) }

func (f testFormats) Strata(name string) bool {
	for range 10 {
		if name == "strata" {
			return true
		}
		d, ok := f.spec.Formats[name]
		if !ok {
			return false
		}
		name = d.Wrap
	}
	return false
}
