package plan

import (
	"regexp"
	"strings"
	"unicode"
)

// Caveat is a qualification the plan states beside a claim, written as the
// team convention has it:
//
//	> **Caveat** (caveat-id): text…
//
// A caveat may continue on following lines that start with ">". It belongs
// to the numbered section it is placed in.
type Caveat struct {
	ID      string   // the id in parentheses, e.g. "llama-unlike-modes"
	Text    string   // the text after the colon, continuation lines joined by spaces
	Line    int      // line of the "> **Caveat**" marker
	End     int      // last line of the caveat
	Section *Section // section the caveat is in; nil before the first heading
}

// Place returns the place of the section the caveat is in.
func (c Caveat) Place() string {
	if c.Section == nil {
		return ""
	}
	return c.Section.Place()
}

var caveatRE = regexp.MustCompile(`^\s*>\s*\*\*Caveat\*\*\s*\(([A-Za-z0-9][A-Za-z0-9._-]*)\)\s*:\s*(.*)$`)

// caveatLine reports whether text opens a caveat, and returns its id and text.
func caveatLine(text string) (id, body string, ok bool) {
	if !strings.Contains(text, "**Caveat**") {
		return "", "", false
	}
	m := caveatRE.FindStringSubmatch(text)
	if m == nil {
		return "", "", false
	}
	return m[1], strings.TrimSpace(m[2]), true
}

// MinCaveatWords is the fewest words a caveat's text must hold to qualify
// a claim: a caveat with an empty body (". ", "n/a") says nothing.
const MinCaveatWords = 3

// Says reports whether the caveat says something: at least MinCaveatWords
// words with a letter or digit in them.
func (c Caveat) Says() bool {
	n := 0
	for _, w := range strings.Fields(c.Text) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n >= MinCaveatWords
}

// Caveat returns the caveat with the given id that qualifies a claim at
// place: one placed in that numbered section or in a section enclosing it
// ("§2.7.A #29" is qualified by a caveat in "§2.7.A #29" or in "§2.7.A"),
// and that says something (Says). An empty place accepts the caveat
// wherever it is.
func (d *Doc) Caveat(id, place string) (Caveat, bool) {
	for _, c := range d.Caveats {
		if c.ID != id || !c.Says() {
			continue
		}
		cp := c.Place()
		if place == "" || cp != "" && InPlace(place, cp) {
			return c, true
		}
	}
	return Caveat{}, false
}

// EmptyCaveat returns a caveat with the given id placed where Caveat would
// accept it but saying nothing (not Says), so that a message can tell a
// caveat left empty from one never written.
func (d *Doc) EmptyCaveat(id, place string) (Caveat, bool) {
	for _, c := range d.Caveats {
		if c.ID == id && !c.Says() && (place == "" || c.Place() != "" && InPlace(place, c.Place())) {
			return c, true
		}
	}
	return Caveat{}, false
}

// CaveatsIn returns the caveats placed at or inside place.
func (d *Doc) CaveatsIn(place string) []Caveat {
	var out []Caveat
	for _, c := range d.Caveats {
		if InPlace(c.Place(), place) {
			out = append(out, c)
		}
	}
	return out
}
