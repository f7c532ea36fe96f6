package tf

import (
	"fmt"
	"strings"

	"github.com/strataspec/strataspec/engine/gguf"
)

// Texts of the ChatML template tokens the layout is found by.
const (
	ImStart  = "<|im_start|>"
	ImEnd    = "<|im_end|>"
	Think    = "<think>"
	ThinkEnd = "</think>"
)

// Span is a half-open range [Start, End) of token positions.
type Span struct{ Start, End int }

// Len returns the number of tokens in the span.
func (s Span) Len() int { return s.End - s.Start }

// String returns the span as a half-open interval, "[32, 96)".
func (s Span) String() string { return fmt.Sprintf("[%d, %d)", s.Start, s.End) }

// Layout is where a TF file's three segments are.
type Layout struct {
	User   Span // <|im_start|>user\n … <|im_end|>\n: the context, not scored
	Header Span // <|im_start|>assistant\n: the prompt's tail, not scored
	Scored Span // the assistant tokens whose predictions are scored
	// Content is the user turn's content: the tokens between "user\n" and
	// <|im_end|>.
	Content Span
}

// Prompt returns the number of prompt tokens (user turn and header).
func (l Layout) Prompt() int { return l.Header.End }

// Find locates the segments of ids by the template tokens' text in v: the
// file must start with <|im_start|> and the role "user" on its own line, the
// user turn ends at the first <|im_end|> and the newline after it, then
// <|im_start|> and the role "assistant" on its own line; the rest is scored.
// Every id must be in the vocabulary, so that a caller may index
// v.Tokens with any id of a found layout. An error says which position
// breaks the layout and what it holds.
func Find(ids []int32, v *gguf.Vocab) (Layout, error) {
	var l Layout
	for i, id := range ids {
		if id < 0 || int(id) >= v.Len() {
			return l, fmt.Errorf("tf: ids[%d] = %d is outside the vocabulary of %d tokens", i, id, v.Len())
		}
		if !v.Has(id) {
			return l, fmt.Errorf("tf: ids[%d] = %d is not in the vocabulary subset", i, id)
		}
	}
	start, ok := v.ID(ImStart)
	if !ok {
		return l, fmt.Errorf("tf: vocabulary has no %s token", ImStart)
	}
	end, ok := v.ID(ImEnd)
	if !ok {
		return l, fmt.Errorf("tf: vocabulary has no %s token", ImEnd)
	}
	p := &parser{ids: ids, v: v}
	if err := p.expect(0, start, ImStart); err != nil {
		return l, err
	}
	pos, err := p.line(1, "user")
	if err != nil {
		return l, err
	}
	l.Content.Start = pos
	for ; pos < len(ids) && ids[pos] != end; pos++ {
		if ids[pos] == start {
			return l, fmt.Errorf("tf: ids[%d]: %s inside the user turn", pos, ImStart)
		}
	}
	if pos == len(ids) {
		return l, fmt.Errorf("tf: no %s after the user turn that starts at ids[%d]", ImEnd, l.Content.Start)
	}
	l.Content.End = pos
	if pos, err = p.line(pos+1, ""); err != nil {
		return l, err
	}
	l.User = Span{0, pos}
	if err := p.expect(pos, start, ImStart); err != nil {
		return l, err
	}
	hdr := pos
	if pos, err = p.line(pos+1, "assistant"); err != nil {
		return l, err
	}
	l.Header = Span{hdr, pos}
	if pos == len(ids) {
		return l, fmt.Errorf("tf: nothing scored: the file ends with the assistant header at ids[%d]", pos-1)
	}
	l.Scored = Span{pos, len(ids)}
	return l, nil
}

type parser struct {
	ids []int32
	v   *gguf.Vocab
}

func (p *parser) describe(i int) string {
	if i >= len(p.ids) {
		return "the end of the file"
	}
	piece, err := p.v.Piece(p.ids[i])
	if err != nil {
		return fmt.Sprintf("id %d (%v)", p.ids[i], err)
	}
	return fmt.Sprintf("id %d %q", p.ids[i], piece)
}

func (p *parser) expect(i int, id int32, text string) error {
	if i >= len(p.ids) || p.ids[i] != id {
		return fmt.Errorf("tf: ids[%d] is %s; want %s", i, p.describe(i), text)
	}
	return nil
}

// line reads ordinary tokens from i whose text is want followed by a
// newline, and returns the position after them.
func (p *parser) line(i int, want string) (int, error) {
	var text strings.Builder
	for j := i; j < len(p.ids); j++ {
		if p.v.IsSpecial(p.ids[j]) {
			break
		}
		piece, err := p.v.Piece(p.ids[j])
		if err != nil {
			return 0, fmt.Errorf("tf: ids[%d]: %w", j, err)
		}
		text.Write(piece)
		if s := text.String(); strings.Contains(s, "\n") {
			if s != want+"\n" {
				return 0, fmt.Errorf("tf: ids[%d:%d] read %q; want %q", i, j+1, s, want+"\n")
			}
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("tf: ids[%d:] do not read %q: %s there", i, want+"\n", p.describe(i))
}

// Text decodes the tokens of a span.
func Text(ids []int32, v *gguf.Vocab, s Span) (string, error) {
	if s.Start < 0 || s.End > len(ids) || s.Start > s.End {
		return "", fmt.Errorf("tf: span %v outside %d ids", s, len(ids))
	}
	return v.Decode(ids[s.Start:s.End])
}
