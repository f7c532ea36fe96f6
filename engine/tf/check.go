package tf

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/strataspec/strataspec/engine/gguf"
)

// IsTemplateToken reports whether id is a chat template token: a control or
// user-defined token of the vocabulary, or a token whose whole text appears
// in the vocabulary's chat template as a marker (it starts with "<" and ends
// with ">"). Such a token is near-deterministic in its place and gives free
// agreement when scored.
func IsTemplateToken(v *gguf.Vocab, id int32) bool {
	if v.IsSpecial(id) {
		return true
	}
	if id < 0 || int(id) >= v.Len() || v.ChatTemplate == "" {
		return false
	}
	t := v.Tokens[id]
	return len(t) > 2 && t[0] == '<' && t[len(t)-1] == '>' && strings.Contains(v.ChatTemplate, t)
}

// ThinkNewline finds the first <think> token of the scored span. found is
// false if there is none; newline reports whether the text after it starts
// with "\n", as the chat template writes it.
func ThinkNewline(ids []int32, v *gguf.Vocab, l Layout) (pos int, found, newline bool) {
	think, ok := v.ID(Think)
	if !ok {
		return 0, false, false
	}
	for i := l.Scored.Start; i < l.Scored.End && i < len(ids); i++ {
		if ids[i] != think {
			continue
		}
		if i+1 < len(ids) {
			if next, err := v.Piece(ids[i+1]); err == nil && strings.HasPrefix(string(next), "\n") {
				return i, true, true
			}
		}
		return i, true, false
	}
	return 0, false, false
}

// HasJSON reports whether text holds a JSON object or array with at least
// one member: "{19}" or "{x}" in LaTeX is not JSON.
func HasJSON(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		var v any
		if err := json.NewDecoder(strings.NewReader(text[i:])).Decode(&v); err != nil {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			if len(x) > 0 {
				return true
			}
		case []any:
			if len(x) > 0 {
				return true
			}
		}
	}
	return false
}

// HasJapanese reports whether text holds hiragana, katakana or kanji.
func HasJapanese(text string) bool {
	for _, r := range text {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}

// FitsLabel checks a domain label against the decoded text for the labels
// whose content can be checked: a label naming json needs JSON in the text, a
// label ja needs Japanese. checked is false for other labels.
func FitsLabel(domain, text string) (checked, fits bool, want string) {
	parts := strings.FieldsFunc(strings.ToLower(domain), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for _, p := range parts {
		switch p {
		case "json":
			return true, HasJSON(text), "JSON (an object or array)"
		case "ja":
			return true, HasJapanese(text), "Japanese text"
		}
	}
	return false, true, ""
}

// LooksTruncated judges from the text alone whether a user turn starts in
// the middle of a document, for files whose source offset is not
// recorded. It returns the verdict and the test it applied, for the
// finding to say: a turn that opens with closing or continuing punctuation
// or a lowercase Latin letter, or that closes a bracket it never opened,
// starts mid-document. A turn that passes may still be cut (a fragment
// that happens to start a word): the test finds signs, it does not prove
// their absence.
func LooksTruncated(content string) (truncated bool, test string) {
	t := strings.TrimLeft(content, " \t\r\n")
	if t == "" {
		return false, "the user turn is empty: nothing to judge"
	}
	first := []rune(t)[0]
	switch {
	case strings.ContainsRune(")]}>,.;:!?", first):
		return true, fmt.Sprintf("it opens with %q, which closes or continues a sentence", first)
	case first >= 'a' && first <= 'z':
		return true, fmt.Sprintf("it opens with the lowercase letter %q, mid-sentence", first)
	}
	depth := map[rune]int{}
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for i, r := range t {
		switch r {
		case '(', '[', '{':
			depth[r]++
		case ')', ']', '}':
			if depth[pairs[r]] == 0 {
				return true, fmt.Sprintf("it closes a bracket it never opened (%q at byte %d)", r, i)
			}
			depth[pairs[r]]--
		}
	}
	return false, "it opens with no closing or continuing punctuation, no lowercase letter, and closes no bracket it did not open"
}
