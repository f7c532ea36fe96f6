package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// clean makes text taken from a snapshot safe to print on one line of a
// terminal or a Markdown document: control characters (C0, DEL, C1), line
// and paragraph separators (U+2028, U+2029), bidirectional overrides and
// invalid UTF-8 are written as Go escapes (\n, \x1b, \u2028, \xff), so a
// quote holding "x\nverdict: PASS" cannot print a line of its own.
func clean(s string) string {
	if !needsClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeRune reports the non-ASCII runes clean escapes: C1 controls, line
// and paragraph separators, and the bidirectional embeddings, overrides and
// isolates that can reorder what a reader sees.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

func needsClean(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || r < 0x20 || r == 0x7f || unsafeRune(r) {
			return true
		}
		i += n
	}
	return false
}

// shorten cuts s to at most n runes, ending a cut text with "…".
func shorten(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)[:n-1]
	// end at a word boundary when one is in the second half; a single long
	// token (a path) is cut where it must be
	for i := len(rs) - 1; i > len(rs)/2; i-- {
		if rs[i] == ' ' {
			rs = rs[:i]
			break
		}
	}
	return strings.TrimRight(string(rs), " ") + "…"
}

// mdText escapes text for Markdown: controls as clean does, and the
// characters that would start HTML (<, >, &) as entities, so a quote like
// "<think>" shows instead of vanishing as a tag.
func mdText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(clean(s))
}

// mdCell escapes a table cell: mdText, and pipes, which would split the row.
func mdCell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}

// jsonSafe rewrites encoded JSON so that no rune clean escapes is left raw
// in it: encoding/json escapes C0 controls and U+2028/U+2029, and jsonSafe
// writes DEL, C1 controls (NEL among them) and the bidirectional controls
// as \u escapes too. The document decodes to the same values (such runes
// can only stand inside a JSON string), and a terminal or viewer showing
// its bytes cannot be reordered or driven by them.
func jsonSafe(b []byte) []byte {
	if !needsClean(string(b)) {
		return b
	}
	out := make([]byte, 0, len(b)+64)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || unsafeRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// writeJSON writes v as indented JSON (HTML characters kept as they are),
// escaped by jsonSafe: the JSON and SARIF reports' one encoder. The
// encoding goes straight through jsonSafe to w, not through another copy
// of the document.
func writeJSON(w io.Writer, v any) error {
	sw := &safeWriter{w: w}
	enc := json.NewEncoder(sw)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return sw.flush()
}

// safeWriter writes encoded JSON through jsonSafe, holding back a rune
// split across two writes until its end arrives.
type safeWriter struct {
	w    io.Writer
	part []byte // the first bytes of a rune the last write cut
}

func (s *safeWriter) Write(p []byte) (int, error) {
	b := p
	if len(s.part) > 0 {
		b = append(s.part, p...)
		s.part = nil
	}
	// hold back an incomplete rune at the end (at most 3 bytes)
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	s.part = append(s.part, b[cut:]...)
	if _, err := s.w.Write(jsonSafe(b[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes what a last write held back (invalid UTF-8 the encoder does
// not produce, kept as it is).
func (s *safeWriter) flush() error {
	if len(s.part) == 0 {
		return nil
	}
	_, err := s.w.Write(s.part)
	s.part = nil
	return err
}

// Clean is the one escaping of text taken from a snapshot for every output
// channel that is not a structured format: the report's text and Markdown,
// the main program's stderr, and its -metrics, -init and -suggest output.
// Controls, separators, bidirectional overrides and invalid UTF-8 become Go
// escapes, so a file named "x\n::error …" cannot print a line of its own.
func Clean(s string) string { return clean(s) }
