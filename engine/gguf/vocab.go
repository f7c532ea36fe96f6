package gguf

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Metadata keys of the tokenizer.
const (
	KeyModel        = "tokenizer.ggml.model"
	KeyTokens       = "tokenizer.ggml.tokens"
	KeyTokenType    = "tokenizer.ggml.token_type"
	KeyBOS          = "tokenizer.ggml.bos_token_id"
	KeyEOS          = "tokenizer.ggml.eos_token_id"
	KeyChatTemplate = "tokenizer.chat_template"
)

// Tokenizer models Vocab can detokenize (values of tokenizer.ggml.model).
const (
	ModelBPE         = "gpt2"  // byte-level BPE with the GPT-2 byte↔unicode mapping
	ModelSentencePie = "llama" // SentencePiece: ▁ for space, <0xNN> byte tokens
	// ModelPlain is no GGUF model: the token texts are the text they stand
	// for, as an id → piece table (engine/tf's TSV and JSON vocabularies)
	// writes them.
	ModelPlain = "plain"
)

// TokenType is a token's type (llama_token_type).
type TokenType int32

// Token types, as numbered in tokenizer.ggml.token_type.
const (
	TokenUndefined   TokenType = 0
	TokenNormal      TokenType = 1
	TokenUnknown     TokenType = 2
	TokenControl     TokenType = 3
	TokenUserDefined TokenType = 4
	TokenUnused      TokenType = 5
	TokenByte        TokenType = 6
)

var tokenTypeNames = [...]string{"undefined", "normal", "unknown", "control", "user-defined", "unused", "byte"}

// String returns the type's name: "normal", "control", "user-defined", ….
func (t TokenType) String() string {
	if t >= 0 && int(t) < len(tokenTypeNames) {
		return tokenTypeNames[t]
	}
	return fmt.Sprintf("TokenType(%d)", int32(t))
}

// Vocab is the tokenizer read from a GGUF file's metadata.
type Vocab struct {
	Model        string      // tokenizer.ggml.model
	Tokens       []string    // token texts by id, as stored
	Types        []TokenType // token types by id; TokenNormal where the file has none
	BOS, EOS     int32       // -1 where the file has none
	ChatTemplate string      // tokenizer.chat_template, "" where absent

	index   map[string]int32 // text → first id with that text
	special []int32          // control and user-defined ids, longest text first
	maxLen  int              // longest token text in bytes
}

// Vocab reads the tokenizer from the file's metadata. The model must be one
// Vocab can detokenize, the token types (if present) must match the tokens
// one for one, and bos/eos ids must be in range.
func (f *File) Vocab() (*Vocab, error) {
	v := &Vocab{BOS: -1, EOS: -1}
	var ok bool
	if v.Model, ok = f.String(KeyModel); !ok {
		return nil, fmt.Errorf("gguf: %s: no string %s", f.Name, KeyModel)
	}
	if v.Model != ModelBPE && v.Model != ModelSentencePie {
		return nil, fmt.Errorf("gguf: %s: tokenizer model %q not supported (want %q or %q)", f.Name, v.Model, ModelBPE, ModelSentencePie)
	}
	if v.Tokens, ok = f.Strings(KeyTokens); !ok {
		return nil, fmt.Errorf("gguf: %s: no string array %s", f.Name, KeyTokens)
	}
	v.Types = make([]TokenType, len(v.Tokens))
	if _, present := f.Get(KeyTokenType); present {
		types, ok := f.Ints(KeyTokenType)
		if !ok || len(types) != len(v.Tokens) {
			return nil, fmt.Errorf("gguf: %s: %s is not an integer array of %d entries", f.Name, KeyTokenType, len(v.Tokens))
		}
		for i, t := range types {
			v.Types[i] = TokenType(t)
		}
	} else {
		for i := range v.Types {
			v.Types[i] = TokenNormal
		}
	}
	for _, k := range []struct {
		key string
		dst *int32
	}{{KeyBOS, &v.BOS}, {KeyEOS, &v.EOS}} {
		if _, present := f.Get(k.key); !present {
			continue
		}
		id, ok := f.Int(k.key)
		if !ok || id < 0 || id >= int64(len(v.Tokens)) {
			val, _ := f.Get(k.key)
			return nil, fmt.Errorf("gguf: %s: %s = %v is not a token id (vocabulary of %d)", f.Name, k.key, val, len(v.Tokens))
		}
		*k.dst = int32(id)
	}
	v.ChatTemplate, _ = f.String(KeyChatTemplate)
	v.build()
	return v, nil
}

// NewVocab returns a vocabulary of the given model (ModelBPE,
// ModelSentencePie or ModelPlain) from its token texts and types by id.
// An id with no token (a subset of a vocabulary) has the text "" and the
// type TokenUndefined: Has reports it missing and Piece fails on it.
func NewVocab(model string, tokens []string, types []TokenType) (*Vocab, error) {
	if model != ModelBPE && model != ModelSentencePie && model != ModelPlain {
		return nil, fmt.Errorf("gguf: tokenizer model %q not supported (want %q, %q or %q)", model, ModelBPE, ModelSentencePie, ModelPlain)
	}
	if len(types) != len(tokens) {
		return nil, fmt.Errorf("gguf: %d token types for %d tokens", len(types), len(tokens))
	}
	v := &Vocab{Model: model, Tokens: tokens, Types: types, BOS: -1, EOS: -1}
	v.build()
	return v, nil
}

// build indexes the tokens by text and lists the special ones.
func (v *Vocab) build() {
	v.index = make(map[string]int32, len(v.Tokens))
	for i, t := range v.Tokens {
		if _, dup := v.index[t]; !dup {
			v.index[t] = int32(i)
		}
		v.maxLen = max(v.maxLen, len(t))
		if v.IsSpecial(int32(i)) && t != "" {
			v.special = append(v.special, int32(i))
		}
	}
	sort.SliceStable(v.special, func(a, b int) bool { return len(v.Tokens[v.special[a]]) > len(v.Tokens[v.special[b]]) })
}

// Has reports whether id is a token of the vocabulary: in range, and not a
// gap of a vocabulary subset (no text, type undefined).
func (v *Vocab) Has(id int32) bool {
	return id >= 0 && int(id) < len(v.Tokens) && !(v.Tokens[id] == "" && v.Types[id] == TokenUndefined)
}

// Len returns the number of tokens.
func (v *Vocab) Len() int { return len(v.Tokens) }

// ID returns the (first) id of the token with exactly this text, as stored
// (for byte-level BPE "Ġworld", for SentencePiece "▁world").
func (v *Vocab) ID(text string) (int32, bool) {
	id, ok := v.index[text]
	return id, ok
}

// Type returns the type of token id, TokenUndefined if out of range.
func (v *Vocab) Type(id int32) TokenType {
	if id < 0 || int(id) >= len(v.Types) {
		return TokenUndefined
	}
	return v.Types[id]
}

// IsSpecial reports whether id is a control or user-defined token: text the
// tokenizer matches whole (chat template markers like <|im_start|>, <think>)
// rather than a piece of ordinary text.
func (v *Vocab) IsSpecial(id int32) bool {
	t := v.Type(id)
	return t == TokenControl || t == TokenUserDefined
}

// Piece returns the text token id stands for, as bytes: the GPT-2 byte
// mapping undone for byte-level BPE; ▁ as a space and <0xNN> as the byte for
// SentencePiece. Control and user-defined tokens render as their text. A
// character outside the byte mapping is kept as it is.
func (v *Vocab) Piece(id int32) ([]byte, error) {
	if id < 0 || int(id) >= len(v.Tokens) {
		return nil, fmt.Errorf("gguf: token id %d out of range (vocabulary of %d)", id, len(v.Tokens))
	}
	if !v.Has(id) {
		return nil, fmt.Errorf("gguf: token id %d is not in the vocabulary (a subset without it)", id)
	}
	text := v.Tokens[id]
	if v.IsSpecial(id) {
		return []byte(text), nil
	}
	switch v.Model {
	case ModelPlain:
		return []byte(text), nil
	case ModelBPE:
		out := make([]byte, 0, len(text))
		for _, r := range text {
			if b, ok := unicodeToByte[r]; ok {
				out = append(out, b)
			} else {
				out = utf8.AppendRune(out, r)
			}
		}
		return out, nil
	default: // ModelSentencePie
		if v.Types[id] == TokenByte {
			b, ok := parseByteToken(text)
			if !ok {
				return nil, fmt.Errorf("gguf: token %d %q is a byte token but not <0xNN>", id, text)
			}
			return []byte{b}, nil
		}
		return []byte(strings.ReplaceAll(text, "▁", " ")), nil
	}
}

// Decode returns the text of a token sequence: the concatenation of its
// pieces, special tokens included as their text. No leading space is removed.
func (v *Vocab) Decode(ids []int32) (string, error) {
	var b []byte
	for i, id := range ids {
		p, err := v.Piece(id)
		if err != nil {
			return "", fmt.Errorf("ids[%d]: %w", i, err)
		}
		b = append(b, p...)
	}
	return string(b), nil
}

// Encode returns ids whose Decode is text. It matches special tokens (control
// and user-defined) by their text first, then takes the longest matching
// ordinary token at each place, falling back to byte tokens for SentencePiece.
// It is a greedy longest match, not the model's BPE merges: the ids decode to
// the text but need not be the ids the model's tokenizer would produce. It is
// meant for tests and synthetic fixtures.
func (v *Vocab) Encode(text string) ([]int32, error) {
	var ids []int32
	for pos := 0; pos < len(text); {
		if id, ok := v.specialAt(text[pos:]); ok {
			ids = append(ids, id)
			pos += len(v.Tokens[id])
			continue
		}
		end := len(text)
		for _, id := range v.special {
			if i := strings.Index(text[pos:], v.Tokens[id]); i >= 0 && pos+i < end {
				end = pos + i
			}
		}
		seg, err := v.encodePlain(text[pos:end])
		if err != nil {
			return nil, fmt.Errorf("gguf: encode at byte %d: %w", pos, err)
		}
		ids = append(ids, seg...)
		pos = end
	}
	return ids, nil
}

func (v *Vocab) specialAt(s string) (int32, bool) {
	for _, id := range v.special { // longest first
		if strings.HasPrefix(s, v.Tokens[id]) {
			return id, true
		}
	}
	return 0, false
}

// encodePlain encodes text with no special tokens in it.
func (v *Vocab) encodePlain(text string) ([]int32, error) {
	var form string // the text as token texts spell it
	switch v.Model {
	case ModelBPE:
		form = ByteLevel(text)
	case ModelPlain:
		form = text
	default:
		form = strings.ReplaceAll(text, " ", "▁")
	}
	var ids []int32
	for pos := 0; pos < len(form); {
		n := min(v.maxLen, len(form)-pos)
		found := false
		for ; n > 0; n-- {
			if pos+n < len(form) && !utf8.RuneStart(form[pos+n]) {
				continue // not at a rune boundary
			}
			if id, ok := v.index[form[pos:pos+n]]; ok && !v.IsSpecial(id) && v.Types[id] != TokenByte {
				ids = append(ids, id)
				pos += n
				found = true
				break
			}
		}
		if found {
			continue
		}
		r, size := utf8.DecodeRuneInString(form[pos:])
		if v.Model != ModelSentencePie {
			return nil, fmt.Errorf("no token for %q", r)
		}
		raw := []byte(strings.ReplaceAll(form[pos:pos+size], "▁", " "))
		for _, b := range raw {
			id, ok := v.index[fmt.Sprintf("<0x%02X>", b)]
			if !ok {
				return nil, fmt.Errorf("no token for %q and no byte token <0x%02X>", r, b)
			}
			ids = append(ids, id)
		}
		pos += size
	}
	return ids, nil
}

// parseByteToken parses a SentencePiece byte token "<0xNN>".
func parseByteToken(s string) (byte, bool) {
	if len(s) != 6 || !strings.HasPrefix(s, "<0x") || s[5] != '>' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[3:5], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(n), true
}

// The GPT-2 byte↔unicode mapping: printable bytes stand for themselves; the
// rest (controls, space, DEL, NBSP, soft hyphen, ...) are shifted to U+0100
// and up in byte order, so every byte has a visible character.
var (
	byteToUnicode [256]rune
	unicodeToByte = make(map[rune]byte, 256)
)

func init() {
	next := rune(256)
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			byteToUnicode[b] = rune(b)
		} else {
			byteToUnicode[b] = next
			next++
		}
		unicodeToByte[byteToUnicode[b]] = byte(b)
	}
}

// ByteLevel spells text the way byte-level BPE token texts spell it: each
// byte as its GPT-2 mapped character ("Ġ" for a space, "Ċ" for a newline).
func ByteLevel(text string) string {
	var sb strings.Builder
	for i := 0; i < len(text); i++ {
		sb.WriteRune(byteToUnicode[text[i]])
	}
	return sb.String()
}
