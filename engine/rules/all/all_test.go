package all

import (
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/metric"
)

// TestAnalyzersDescribed: every rule says what it checks, where reports
// group it (a section for its family), what fixes it and names are unique.
func TestAnalyzersDescribed(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range Analyzers() {
		if seen[a.Name] {
			t.Errorf("two analyzers named %s", a.Name)
		}
		seen[a.Name] = true
		if a.Doc == "" || a.Fix == "" || a.Run == nil {
			t.Errorf("analyzer %s: doc %q, fix %q; want both set", a.Name, a.Doc, a.Fix)
		}
		if sec := Section(a); sec.Rank == 0 || sec.Tag == "" || sec.Title == "" {
			t.Errorf("Section(%s) = %+v; want a heading for family %q", a.Name, sec, a.Family())
		}
	}
}

// TestAnalyzerMetricsInVocabulary: every metric an analyzer declares it
// reads is a name of the metric vocabulary, with a unit and kind there; the
// rules that read the engine's logs declare some.
func TestAnalyzerMetricsInVocabulary(t *testing.T) {
	declared := 0
	for _, a := range Analyzers() {
		for _, name := range a.Metrics {
			d, ok := metric.Lookup(name)
			if !ok {
				t.Errorf("analyzer %s declares metric %q, which the vocabulary (engine/metric) does not define", a.Name, name)
				continue
			}
			if d.Kind != metric.Deterministic && d.Kind != metric.Measured {
				t.Errorf("metric.Lookup(%q).Kind = %v; want deterministic or measured", name, d.Kind)
			}
			declared++
		}
	}
	for _, name := range []string{"arena", "scratch", "memory", "parity", "selftest", "tf", "kld"} {
		i := slices.IndexFunc(Analyzers(), func(a *analysis.Analyzer) bool { return a.Name == name })
		if i < 0 || len(Analyzers()[i].Metrics) == 0 {
			t.Errorf("analyzer %s declares no metrics; want the metrics it reads", name)
		}
	}
	if declared == 0 {
		t.Error("no analyzer declares a metric")
	}
}

// TestSection: each family is listed under one heading, the headings in
// report order (the comparisons and runs first, the plan last), as the
// reports of the fixtures have them.
func TestSection(t *testing.T) {
	for _, tt := range []struct {
		rule, tag, title string
		rank             int
	}{
		{"compare.unlike", "runs", "comparisons and runs", 1},
		{"runs.parse", "runs", "comparisons and runs", 1},
		{"summary", "runs", "comparisons and runs", 1},
		{"derive", "runs", "comparisons and runs", 1},
		{"input.archive", "inputs", "inputs and provenance", 2},
		{"provenance", "inputs", "inputs and provenance", 2},
		{"parity", "invariants", "invariants", 3},
		{"arena", "invariants", "invariants", 3},
		{"scratch", "invariants", "invariants", 3},
		{"selftest", "invariants", "invariants", 3},
		{"memory", "invariants", "invariants", 3},
		{"cache.target", "cache", "page cache", 4},
		{"tf", "tf-kld", "TF and KLD", 5},
		{"kld", "tf-kld", "TF and KLD", 5},
		{"code", "code", "code", 6},
		{"plan.unsourced", "plan", "plan", 7},
	} {
		got := Section(&analysis.Analyzer{Name: tt.rule})
		if got.Tag != tt.tag || got.Title != tt.title || got.Rank != tt.rank {
			t.Errorf("Section(%s) = %+v; want {%d %s %s}", tt.rule, got, tt.rank, tt.tag, tt.title)
		}
	}
	if got := Section(&analysis.Analyzer{Name: "planning"}); got.Rank != 0 {
		t.Errorf("Section(planning) = %+v; want the zero Section (a family no heading groups)", got)
	}
}

// TestFamilyIsPackage: a rule family is declared once, by its rules' name
// prefix, and is the package that holds them: every analyzer's Run is
// declared in engine/rules/<family>.
func TestFamilyIsPackage(t *testing.T) {
	const rules = "github.com/strataspec/strataspec/engine/rules/"
	for _, a := range Analyzers() {
		fn := runtime.FuncForPC(reflect.ValueOf(a.Run).Pointer()).Name() // path/pkg.func
		slash := strings.LastIndex(fn, "/")
		pkg := fn[:slash+1] + strings.SplitN(fn[slash+1:], ".", 2)[0]
		if want := rules + a.Family(); pkg != want {
			t.Errorf("analyzer %s is declared in %s; want %s, the package of its family %q", a.Name, pkg, want, a.Family())
		}
	}
}
