package plan

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pos is a place in the plan: a 1-based line and byte column of its Text.
type Pos struct{ Line, Col int }

// Before reports whether p comes before q.
func (p Pos) Before(q Pos) bool { return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col }

// Sentence is a stretch of the plan that reads as one statement: a
// sentence (or a clause ending in ";") of a paragraph or list item, which
// may wrap over lines, or a
// line that is no prose (a table row, a heading). Start is its first
// byte; End is just past its last.
type Sentence struct{ Start, End Pos }

// Contains reports whether the sentence holds the place p.
func (s Sentence) Contains(p Pos) bool { return !p.Before(s.Start) && p.Before(s.End) }

// Lines returns the first and last line the sentence is on.
func (s Sentence) Lines() (first, last int) { return s.Start.Line, s.End.Line }

// abbrevs end in a full stop that ends no sentence
// (compared in lower case).
var abbrevs = map[string]bool{"e.g": true, "i.e": true, "vs": true, "cf": true, "approx": true, "resp": true, "incl": true, "fig": true, "no": true}

// splitSentences splits the prose blocks' lines into sentences: a sentence ends
// at ".", "!", "?" or ";" (a clause is judged as a sentence) followed by a
// space or the end of a line, except after
// an abbreviation (e.g., vs.) and inside a code span; a block's last
// sentence ends with the block.
func (d *Doc) splitSentences(blocks [][2]int) {
	for _, b := range blocks {
		first, last := b[0]+1, b[1]+1 // 1-based
		start := Pos{first, 1}
		for n := first; n <= last; n++ {
			l := d.Lines[n-1]
			v := l.vis
			inCode := false
			for i := 0; i < len(v); i++ {
				c := v[i]
				if c == '`' {
					inCode = !inCode
					continue
				}
				if inCode || c != '.' && c != '!' && c != '?' && c != ';' {
					continue
				}
				if i+1 < len(v) && v[i+1] != ' ' {
					continue
				}
				if c == '.' && abbrevs[strings.ToLower(lastWord(v[:i]))] {
					continue
				}
				end := Pos{n, l.col(i) + 1}
				d.sentences = append(d.sentences, Sentence{start, end})
				start = end
			}
		}
		if end := (Pos{last, len(d.Lines[last-1].Text) + 1}); start.Before(end) {
			d.sentences = append(d.sentences, Sentence{start, end})
		}
	}
	sort.Slice(d.sentences, func(i, j int) bool { return d.sentences[i].Start.Before(d.sentences[j].Start) })
}

// lastWord returns the word that ends s (letters and inner full stops).
func lastWord(s string) string {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		i -= size
	}
	return strings.TrimLeft(s[i:], ".")
}

// SentenceAt returns the sentence that holds the place p: a sentence of
// prose, or p's whole line where the line is no prose.
func (d *Doc) SentenceAt(p Pos) Sentence {
	i := sort.Search(len(d.sentences), func(i int) bool { return p.Before(d.sentences[i].End) })
	if i < len(d.sentences) && d.sentences[i].Contains(p) {
		return d.sentences[i]
	}
	w := 1
	if p.Line >= 1 && p.Line <= len(d.Lines) {
		w = len(d.Lines[p.Line-1].Text) + 1
	}
	return Sentence{Pos{p.Line, 1}, Pos{p.Line, max(w, p.Col+1)}}
}
