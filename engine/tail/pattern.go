package tail

import (
	"regexp"
	"sort"

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
// that is not a number is an error naming the line. At most max metrics are kept (0: no limit); past it the result is Over
// and the rest of text is not read.
func ParsePatterns(source, text string, pats []Pattern, max int) *Metrics {
	r := newReader(source, max)
	r.lines(text, func(n int, line string) {
		for _, p := range pats {
			m := p.Re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			names := make([]string, 0, len(p.Groups))
			for g := range p.Groups {
				names = append(names, g)
			}
			sort.Strings(names)
			for _, g := range names {
				pm := p.Groups[g]
				txt := m[p.Re.SubexpIndex(g)]
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
