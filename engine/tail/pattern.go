package tail

import (
	"regexp"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/num"
)

// Pattern is one metric line of a log format a checkout declares: a
// regular expression with named groups and the metric each group yields.
type Pattern struct {
	Re     *regexp.Regexp
	Groups map[string]PatternMetric // by group name
}

// PatternMetric is the metric a pattern group yields.
type PatternMetric struct {
	Name string
	Unit string
}

// ParsePatterns reads a tail with a checkout's declared patterns: every line
// a pattern matches yields its groups' metrics. A group that matched text
// that is not a number is an error naming the line. At most max metrics
// are kept (0: no limit); past it the result is Over and the rest of text
// is not read.
func ParsePatterns(source, text string, pats []Pattern, max int) *Metrics {
	r := newReader(source, max)
	if max > 0 {
		// Allocated once, to the limit at most: a format matching every
		// line does not grow List by doubling to it.
		r.ms.List = make([]Metric, 0, r.ms.Prealloc(strings.Count(text, "\n")+1))
	}
	// Each pattern's groups in name order, with their submatch index,
	// worked out once rather than on every line.
	type group struct {
		name string
		idx  int
		pm   PatternMetric
	}
	groups := make([][]group, len(pats))
	for i, p := range pats {
		for g, pm := range p.Groups {
			groups[i] = append(groups[i], group{g, p.Re.SubexpIndex(g), pm})
		}
		sort.Slice(groups[i], func(a, b int) bool { return groups[i][a].name < groups[i][b].name })
	}
	r.lines(text, func(n int, line string) {
		for i, p := range pats {
			m := p.Re.FindStringSubmatchIndex(line)
			if m == nil {
				continue
			}
			for _, gr := range groups[i] {
				g, pm := gr.name, gr.pm
				txt := ""
				if gr.idx >= 0 && m[2*gr.idx] >= 0 {
					txt = line[m[2*gr.idx]:m[2*gr.idx+1]]
				}
				v, err := num.Parse(txt)
				if err != nil {
					r.errorf(n, "group %s: %v", g, err)
					continue
				}
				r.ms.Add(Metric{Name: pm.Name, Num: v, Unit: pm.Unit, Line: n})
			}
		}
	})
	return r.ms
}
