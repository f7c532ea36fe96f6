package plan

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Word is a run of text holding a digit that is neither a number the gate
// reads (a Token) nor an identifier by the rules of Identifier: an
// "unreadable number", which fails in a claim section.
type Word struct {
	Text string // the word as the line renders it
	Line int    // 1-based line
	Col  int    // 1-based byte column in the line's Text
}

// Identifier rules. A word (a run of text without white space, the
// punctuation of the sentence around it taken off) that holds a digit and
// is not a number the gate reads is an identifier when it is one of these;
// anything else is an unreadable number. Each is tested in ident_test.go.
var identRules = []struct {
	name string
	re   *regexp.Regexp
}{
	// a model, format or run name: a letter first, digits glued to letters
	// or "_", pieces joined by "-", "." or "+" of which the last holds a
	// letter, or is an integer after "-" (Q2_0, IQ3_S, K256, M5, fp16, x86,
	// K256-q2, step2_ngl99, llama-2-7b, M5-v3, gguf.v3, top-1, gpt-4; not
	// x-9.99, fill.9); see isName
	{"name", nil},
	// a version: a name glued to dotted numbers (v1.2, v0.3.1-rc1,
	// go1.26, python3.11); bare dotted numbers (9.99.1) are not one
	{"version", regexp.MustCompile(`^[A-Za-z]+[0-9]+(?:\.[0-9]+)+(?:-[A-Za-z0-9.]+)?$`)},
	// a name=value setting: MoCE=0.85, K=512, eval_tokens=64
	{"setting", regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*=[^=\s]+$`)},
	// a flag and its value glued by "=": --n-gen=64, -t=8
	{"flag", regexp.MustCompile(`^--?[a-z][a-z0-9-]*(?:=[^\s]+)?$`)},
	// a date, with an optional time: 2026-10-15, 2026-10-15T05:03:32.517Z
	{"date", regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9:.]+Z?)?$`)},
	// a clock time: 07:54:46, 07:54:46.45, 08:01
	{"time", regexp.MustCompile(`^[0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?$`)},
	// a hash: 7 or more hex digits with a letter a–f, optionally cut with
	// "…" (2549439506dd…); a number in scientific notation (65536e3) is no hash
	{"hash", regexp.MustCompile(`^(?:sha256:)?[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*…?$`)},
	// a place of the plan or a line of a file, or a range of them: §7.1,
	// #29, L577, L577–581, #1–#28, §1–§6
	{"place", regexp.MustCompile(`^(?:§[0-9]+(?:\.[0-9A-Za-z]+)*|#[0-9]+|L[0-9]+)(?:[–-](?:§[0-9]+(?:\.[0-9A-Za-z]+)*|#[0-9]+|L?[0-9]+))?$`)},
	// a path or file name: a "/" or a file extension with a letter after
	// the last digit (results/2026/x.json, m5_prompt_1600tok.txt)
	{"path", regexp.MustCompile(`^[A-Za-z._~/][^\s]*(?:/[^\s/]*[A-Za-z][^\s/]*|\.[a-z][a-z0-9]{0,4})$`)},
	// an ordinal: 1st, 2nd, 3rd, 29th
	{"ordinal", regexp.MustCompile(`^[0-9]+(?:st|nd|rd|th)$`)},
	// a count in a compound word: 3-way, 4-bit, 2-dp
	{"compound", regexp.MustCompile(`^[0-9]+-[a-z]{2,}$`)},
	// a URL
	{"url", regexp.MustCompile(`^[a-z][a-z0-9+.-]*://`)},
}

// isName reports whether w is a name by the rule "name" above.
func isName(w string) bool {
	if w == "" || !isLetterByte(w[0]) {
		return false
	}
	pieces := strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '.' || r == '+' })
	if len(pieces) == 0 || strings.ContainsAny(w, "-.+") && len(strings.Join(pieces, "")) != len(w)-strings.Count(w, "-")-strings.Count(w, ".")-strings.Count(w, "+") {
		return false
	}
	for _, p := range pieces {
		for i := 0; i < len(p); i++ {
			if !isLetterByte(p[i]) && !isDigit(p[i]) && p[i] != '_' {
				return false
			}
		}
	}
	last := pieces[len(pieces)-1]
	if strings.HasSuffix(w, "-"+last) && len(pieces) > 1 && strings.Trim(last, "0123456789") == "" {
		return true // top-1, gpt-4
	}
	return strings.IndexFunc(last, func(r rune) bool { return r < utf8.RuneSelf && isLetterByte(byte(r)) || r == '_' }) >= 0
}

func isLetterByte(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

var sciRE = regexp.MustCompile(`^[0-9]+[eE][0-9]+$`)

// Identifier reports whether a word holding a digit is an identifier, and
// by which rule ("name", "version", "setting", "flag", "date", "time",
// "hash", "place", "path", "ordinal", "compound", "url"). The word is
// trimmed of the sentence's punctuation around it first (see TrimWord).
func Identifier(w string) (string, bool) {
	w = TrimWord(w)
	if w == "" || !strings.ContainsFunc(w, unicode.IsDigit) {
		return "", true
	}
	for _, r := range identRules {
		if r.name == "hash" && (sciRE.MatchString(strings.TrimSuffix(w, "…")) || len(strings.TrimSuffix(w, "…")) < 7) {
			continue
		}
		if r.re == nil && isName(w) || r.re != nil && r.re.MatchString(w) {
			return r.name, true
		}
	}
	return "", false
}

// TrimWord takes off the punctuation of the sentence around a word:
// brackets, quotes, emphasis marks, and a trailing ",", ";", ":", "!", "?"
// or ".".
func TrimWord(w string) string {
	for {
		n := len(w)
		w = strings.TrimLeft(w, "([{\"'*_<")
		w = strings.TrimRight(w, ")]}\"'*_>,;:!?")
		if strings.HasSuffix(w, ".") && !strings.HasSuffix(w, "..") {
			w = w[:len(w)-1]
		}
		if len(w) == n {
			return w
		}
	}
}

// wordAt returns the bounds of the word (a run without white space) around
// byte i of s.
func wordAt(s string, i int) (int, int) {
	a := i
	for a > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:a])
		if unicode.IsSpace(r) || r == '`' {
			break
		}
		a -= size
	}
	b := i
	for b < len(s) {
		r, size := utf8.DecodeRuneInString(s[b:])
		if unicode.IsSpace(r) || r == '`' {
			break
		}
		b += size
	}
	return a, b
}
