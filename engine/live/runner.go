package live

import (
	"strings"

	"github.com/strataspec/strataspec/engine/tail"
)

// RunnerLine reports whether a line of an archived output was written by the
// validation runner, not the engine: the lines it appends to a tail
// ("[runner] vm_stat: …", memory and disk figures it measured around the
// run) and the header of a record it wrote ("# cmd: …", "# env: …",
// "# exit: …"). A re-run outside the runner prints none of them.
func RunnerLine(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "[runner]") || strings.HasPrefix(line, "# ")
}

// EngineLines counts the lines of an archived output that the engine
// printed: the Options.TailLines that cuts a fresh output as the runner cut
// the archived one, so the n-th occurrence of a metric in one is the n-th in
// the other.
func EngineLines(archived string) int {
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(archived, "\n"), "\n") {
		if !RunnerLine(l) {
			n++
		}
	}
	return n
}

// EngineMetrics returns the metrics of ms (parsed from text) that were read
// from the engine's own lines, dropping those read from the runner's lines
// and from its run record (tail.Metric.At: a record field read as a metric):
// a re-run outside the runner cannot reproduce them, so they are not
// compared. A metric with no line (one derived over the whole tail) is kept.
func EngineMetrics(text string, ms *tail.Metrics) *tail.Metrics {
	if ms == nil {
		return nil
	}
	lines := strings.Split(text, "\n")
	out := &tail.Metrics{Source: ms.Source, Errors: ms.Errors}
	for _, m := range ms.List {
		if m.At != nil {
			continue
		}
		if m.Line >= 1 && m.Line <= len(lines) && RunnerLine(lines[m.Line-1]) {
			continue
		}
		out.Add(m)
	}
	return out
}
