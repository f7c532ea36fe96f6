package live

import (
	"bytes"
	"strings"
	"sync"
)

// tailWriter receives a run's output as it is printed and keeps its last n
// lines (all of it for n <= 0), so a run that floods its output holds no more
// than its tail in memory. It counts lines and remembers the last one that
// carried a metric, for progress reports. It is safe for concurrent use.
type tailWriter struct {
	mu         sync.Mutex
	n          int
	ring       []string // complete lines, oldest first once full
	next       int      // ring slot of the next line when the ring is full
	all        strings.Builder
	partial    []byte
	lines      int
	lastMetric string
	isMetric   func(string) bool
}

func newTailWriter(n int, isMetric func(string) bool) *tailWriter {
	if isMetric == nil {
		isMetric = func(l string) bool { return strings.TrimSpace(l) != "" }
	}
	return &tailWriter{n: n, isMetric: isMetric}
}

// maxPartial bounds an unfinished line: an engine that redraws a progress
// bar with carriage returns and no newline keeps only its last 64 KiB.
const maxPartial = 64 << 10

// Write keeps p's complete lines and holds back an unfinished last line.
func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.partial = append(w.partial, p...)
			if len(w.partial) > maxPartial {
				w.partial = append(w.partial[:0], w.partial[len(w.partial)-maxPartial:]...)
			}
			break
		}
		if len(w.partial) > 0 {
			w.partial = append(w.partial, p[:i]...)
			w.line(string(w.partial))
			w.partial = w.partial[:0]
		} else {
			w.line(string(p[:i]))
		}
		p = p[i+1:]
	}
	return n, nil
}

func (w *tailWriter) line(l string) {
	w.lines++
	if w.isMetric(l) {
		w.lastMetric = l
	}
	switch {
	case w.n <= 0:
		w.all.WriteString(l)
		w.all.WriteByte('\n')
	case len(w.ring) < w.n:
		w.ring = append(w.ring, l)
	default:
		w.ring[w.next] = l
		w.next = (w.next + 1) % w.n
	}
}

// String returns the kept output: the last n lines, each ending in a
// newline, then an unfinished last line as printed.
func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	if w.n <= 0 {
		b.WriteString(w.all.String())
	} else {
		for i := range w.ring {
			b.WriteString(w.ring[(w.next+i)%len(w.ring)])
			b.WriteByte('\n')
		}
	}
	b.Write(w.partial)
	return b.String()
}

// state returns the number of complete lines printed and the last that
// carried a metric.
func (w *tailWriter) state() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lines, w.lastMetric
}

// lastLine returns the number of lines and the last line printed (the
// unfinished one if any), for an error about a run that hung.
func (w *tailWriter) lastLine() (int, string) {
	s := strings.TrimRight(w.String(), "\n")
	n, _ := w.state()
	return n, s[strings.LastIndexByte(s, '\n')+1:]
}
