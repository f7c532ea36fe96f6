package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/tf"
)

// The TF token files and the vocabulary they decode with. Everything here is
// synthetic except what the audit (§3) gives: 96 ids in three segments
// (29 + 3 + 64), <think> at id 248068 as the first scored token, the opening
// of each user turn, chat_json being a modular-arithmetic problem, ops_tools
// having no newline after <think>, each turn starting mid-document.
const (
	// tfVocabFile is the synthetic vocabulary, relative to a snapshot root.
	tfVocabFile = "data/vocab-synthetic-chatml.gguf"
	// tfDir holds the TF token files, relative to a snapshot root.
	tfDir = "data/m5_val_prompts"
	// tfNotes describes the synthetic vocabulary and TF texts.
	tfNotes = "data/SYNTHETIC-TF.md"

	tfUserTokens   = 29 // <|im_start|> user \n … <|im_end|> \n
	tfHeaderTokens = 3  // <|im_start|> assistant \n
	tfScoredTokens = 64
)

// tfSpecial lists the special tokens from id 248044 on, in the order of
// Qwen's added tokens, so that <think> lands on 248068 (audit §3); the other
// ids are this fixture's choice. Texts of the form <|…|> are control tokens,
// the others user-defined.
var tfSpecial = []string{
	"<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
	"<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
	"<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
	"</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
	"<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
}

const tfFirstSpecial = 248044 // id of tfSpecial[0]

// tfChatTemplate is a short ChatML template in the style of Qwen's: the
// generation prompt ends with "<|im_start|>assistant\n" and the model writes
// "<think>\n" itself; history turns show reasoning as "<think>\n…\n</think>".
const tfChatTemplate = `{%- for message in messages %}` +
	`{%- if message.role == 'assistant' and message.reasoning_content %}` +
	`{{- '<|im_start|>assistant\n<think>\n' + message.reasoning_content + '\n</think>\n\n' + message.content + '<|im_end|>\n' }}` +
	`{%- else %}{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}{%- endif %}` +
	`{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}`

// tfDoc is one domain's synthetic document: the text before the kept user
// turn (its length is the recorded source offset), the user turn as the 24
// token pieces the vocabulary holds, and the assistant's reasoning, whose
// first 64 tokens (<think> included) are scored.
type tfDoc struct {
	domain  string
	source  string
	before  string
	user    []string
	scored  string
	newline bool // "<think>" is followed by "\n"
}

var tfDocs = []tfDoc{
	{
		domain: "ops_tools",
		source: "synthetic terminal session: fixing a failing C++ test in a container",
		before: "root@f71c07bf8043:/app# git diff src/frame.cpp\n" +
			"-    for (auto it = df.rows(); it; ++it) df.erase();\n" +
			"+    for (auto it = df.rows(); it; ++it) validate(*it",
		// Audit: `);\n df.erase();\n\nroot@f71c07bf8043:/app#`.
		user: []string{")", ";\n", " df", ".", "erase", "();", "\n\n", "root", "@", "f", "7", "1", "c",
			"0", "7", "bf", "8", "0", "4", "3", ":", "/", "app", "#"},
		scored: "The fix looks correct: erase() now runs once after the loop, so the iterator " +
			"is no longer invalidated while validate() walks the rows. Next I should rebuild and " +
			"run testValidate() again, then check the remaining assertions in the frame suite " +
			"before touching anything else. If the suite is green I will also run the sanitizer " +
			"build, because the old loop read freed memory and only crashed under load.",
		newline: false, // audit: ops_tools has <think> with no \n after it
	},
	{
		domain: "chat_json",
		source: "synthetic math exercise sheet (modular arithmetic)",
		before: "Exercise 4 (number theory).\n\nCompute the remainder $$7^{222} \\pmod",
		// Audit: `{19}~?$$\n\nSolve this step by step…`.
		user: []string{"{", "1", "9", "}~?", "$$", "\n\n", "Solve", " this", " step", " by", " step", ",",
			" and", " give", " the", " final", " residue", " as", " an", " integer", ".", " Be", " brief", "."},
		scored: "\nOkay, I need 7^222 mod 19. By Fermat's little theorem 7^18 ≡ 1 (mod 19), and " +
			"222 = 18·12 + 6, so 7^222 ≡ 7^6. Now 7^2 = 49 ≡ 11 and 7^3 = 343 = 18·19 + 1 ≡ 1, " +
			"so 7^6 ≡ 1 and the residue is 1. Let me double-check with repeated squaring: " +
			"7^6 = 117649 and 117649 = 19·6192 + 1, which confirms it.",
		newline: true,
	},
	{
		domain: "ja",
		source: "synthetic Japanese Q&A page (page footer, then a question)",
		before: "ホーム | ニュース | 技術資料 | アー",
		// Audit: `カイブ\n36\n\n質問: 5G医療救急車…`.
		user: []string{"カイ", "ブ", "\n", "3", "6", "\n\n", "質問", ":", " ", "5", "G", "医療", "救急", "車",
			"の", "通信", "に", "必要", "な", "要件", "を", "説明", "して", "ください"},
		scored: "\nまず、文章の内容を理解する必要があります。ユーザーは5G医療救急車の通信要件について" +
			"質問していますが、文書の前半が欠けています。一般的な知識から、低遅延と高帯域、" +
			"病院への映像とバイタルデータの送信について説明します。さらに、ネットワークスライシングで" +
			"救急通信の帯域を確保する方法と、移動中のハンドオーバーの課題にも触れる必要があります。",
		newline: true,
	},
}

// tfFiles returns a snapshot's synthetic vocabulary, its three TF token
// files (plain ids, as a runner writes them: their domain, source and
// offset are the snapshot's spec data, rules.tf.files in strataspec.json,
// which TestManifest checks against tfDocs) and a note saying what in them
// is synthetic, by path relative to the snapshot root. snapshot is the
// snapshot's name ("m5-v3" or "m5"). Both snapshots get the same files: the
// fixed plan (m5) states caveats about the TF data rather than using
// different data. Each snapshot holds its own copy of the vocabulary (see
// tfNotesText): a snapshot is read confined to its root.
func tfFiles(snapshot string) (map[string][]byte, error) {
	if snapshot != "m5-v3" && snapshot != "m5" {
		return nil, fmt.Errorf("tfFiles: unknown snapshot %q", snapshot)
	}
	b, err := tfBuildAll()
	if err != nil {
		return nil, fmt.Errorf("tfFiles %s: %w", snapshot, err)
	}
	vocab, err := gguf.Encode(3, b.kv, nil)
	if err != nil {
		return nil, fmt.Errorf("tfFiles: %w", err)
	}
	out := map[string][]byte{tfVocabFile: vocab, tfNotes: []byte(tfNotesText)}
	for _, f := range b.files {
		data, err := f.MarshalIDs()
		if err != nil {
			return nil, fmt.Errorf("tfFiles: %w", err)
		}
		out[tfPath(f.Domain)] = data
	}
	return out, nil
}

// tfPath is the token file of a domain, relative to a snapshot root.
func tfPath(domain string) string { return tfDir + "/eval_tf_96tok_" + domain + ".txt" }

type tfBuilt struct {
	kv    []gguf.KV
	files []*tf.File
}

// tfBuildAll lays out the vocabulary and the three files and checks that each
// file has the audit's segment sizes.
func tfBuildAll() (*tfBuilt, error) {
	var tokens []string
	var types []int32
	index := map[string]int32{}
	add := func(text string, typ gguf.TokenType) int32 {
		if id, ok := index[text]; ok {
			return id
		}
		id := int32(len(tokens))
		tokens = append(tokens, text)
		types = append(types, int32(typ))
		index[text] = id
		return id
	}
	// Bytes first, in the order byte-level BPE vocabularies list them (the
	// mapped characters in code point order).
	var bytesByRune []string
	for b := 0; b < 256; b++ {
		bytesByRune = append(bytesByRune, gguf.ByteLevel(string([]byte{byte(b)})))
	}
	tfSortByRune(bytesByRune)
	for _, s := range bytesByRune {
		add(s, gguf.TokenNormal)
	}
	piece := func(text string) int32 { return add(gguf.ByteLevel(text), gguf.TokenNormal) }
	for _, w := range []string{"user", "assistant", "\n"} {
		piece(w)
	}
	type layout struct {
		doc    tfDoc
		user   []int32
		scored []string
	}
	var docs []layout
	for _, d := range tfDocs {
		if len(d.user) != tfUserTokens-5 {
			return nil, fmt.Errorf("%s: user turn has %d pieces; want %d", d.domain, len(d.user), tfUserTokens-5)
		}
		if d.newline != strings.HasPrefix(d.scored, "\n") {
			return nil, fmt.Errorf("%s: newline flag disagrees with the text", d.domain)
		}
		l := layout{doc: d, scored: tfPretokenize(d.scored)}
		if len(l.scored) < tfScoredTokens-1 {
			return nil, fmt.Errorf("%s: reasoning has %d pieces; want at least %d", d.domain, len(l.scored), tfScoredTokens-1)
		}
		l.scored = l.scored[:tfScoredTokens-1]
		for _, p := range d.user {
			l.user = append(l.user, piece(p))
		}
		for _, p := range l.scored {
			piece(p)
		}
		docs = append(docs, l)
	}
	if len(tokens) > tfFirstSpecial {
		return nil, fmt.Errorf("vocabulary overflows into the special ids: %d tokens", len(tokens))
	}
	// Unused placeholders (empty text) up to the special tokens, so that the
	// specials sit at the ids of a Qwen-size vocabulary.
	for len(tokens) < tfFirstSpecial {
		tokens = append(tokens, "")
		types = append(types, int32(gguf.TokenUnused))
	}
	for _, s := range tfSpecial {
		typ := gguf.TokenUserDefined
		if strings.HasPrefix(s, "<|") {
			typ = gguf.TokenControl
		}
		add(s, typ)
	}
	if index[tf.Think] != 248068 {
		return nil, fmt.Errorf("<think> at id %d; the audit has 248068", index[tf.Think])
	}
	b := &tfBuilt{kv: []gguf.KV{
		{Key: "general.architecture", Value: "synthetic"},
		{Key: "general.name", Value: "strataspec synthetic ChatML vocabulary (not a real model's)"},
		{Key: "general.description", Value: "Vocab-only GGUF written by tools/mkfixtures (tf.go) for the TF fixtures. Byte-level BPE tokens for the fixture texts only; ids without a token are empty unused placeholders; special tokens at Qwen-style ids with <think> = 248068 as in the audit."},
		{Key: gguf.KeyModel, Value: gguf.ModelBPE},
		{Key: "tokenizer.ggml.pre", Value: "qwen2"},
		{Key: gguf.KeyTokens, Value: tokens},
		{Key: gguf.KeyTokenType, Value: types},
		{Key: gguf.KeyBOS, Value: uint32(index["<|endoftext|>"])},
		{Key: gguf.KeyEOS, Value: uint32(index[tf.ImEnd])},
		{Key: "tokenizer.ggml.padding_token_id", Value: uint32(index["<|endoftext|>"])},
		{Key: "tokenizer.ggml.add_bos_token", Value: false},
		{Key: gguf.KeyChatTemplate, Value: tfChatTemplate},
	}}
	nl := index[gguf.ByteLevel("\n")]
	for _, l := range docs {
		ids := []int32{index[tf.ImStart], index["user"], nl}
		ids = append(ids, l.user...)
		ids = append(ids, index[tf.ImEnd], nl, index[tf.ImStart], index["assistant"], nl, index[tf.Think])
		for _, p := range l.scored {
			ids = append(ids, index[gguf.ByteLevel(p)])
		}
		if len(ids) != tfUserTokens+tfHeaderTokens+tfScoredTokens {
			return nil, fmt.Errorf("%s: %d ids; want %d", l.doc.domain, len(ids), tfUserTokens+tfHeaderTokens+tfScoredTokens)
		}
		b.files = append(b.files, &tf.File{
			Domain:       l.doc.domain,
			Source:       l.doc.source,
			SourceOffset: int64(len(l.doc.before)),
			IDs:          ids,
		})
	}
	return b, nil
}

// tfPretokenize splits text into pieces the way a Qwen2-style pre-tokenizer
// does (letters with one leading mark or space, single digits, punctuation
// runs with trailing newlines, newline runs, spaces), then cuts CJK runs into
// pieces of at most two characters, as BPE merges leave them.
var tfPretokenRE = regexp.MustCompile(`[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+`)

func tfPretokenize(text string) []string {
	var out []string
	for _, p := range tfPretokenRE.FindAllString(text, -1) {
		if !tf.HasJapanese(p) {
			out = append(out, p)
			continue
		}
		var cur []rune
		for _, r := range p {
			cur = append(cur, r)
			if utf8.RuneLen(r) > 1 && len(cur) >= 2 || len(cur) >= 3 {
				out = append(out, string(cur))
				cur = nil
			}
		}
		if len(cur) > 0 {
			out = append(out, string(cur))
		}
	}
	return out
}

func tfSortByRune(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0; j-- {
			a, _ := utf8.DecodeRuneInString(s[j-1])
			b, _ := utf8.DecodeRuneInString(s[j])
			if a <= b {
				break
			}
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}

const tfNotesText = `# Synthetic vocabulary and teacher-forcing token files

Written by ` + "`go run ./tools/mkfixtures`" + ` (tools/mkfixtures/tf.go). Decode a TF file with
` + "`go run ./tools/tfdecode -vocab fixtures/m5/data/vocab-synthetic-chatml.gguf FILE`" + `.

- ` + "`vocab-synthetic-chatml.gguf`" + ` — a vocab-only GGUF (version 3, no tensors). **Synthetic**: it is
  not the model's vocabulary. Byte-level BPE (GPT-2 byte mapping): the 256 byte tokens, then one
  token per piece of the fixture texts below. Ids without a token are empty, unused
  placeholders, so that the special tokens sit at Qwen-style ids: ` + "`<|endoftext|>`" + ` 248044,
  ` + "`<|im_start|>`" + ` 248045, ` + "`<|im_end|>`" + ` 248046, … ` + "`<think>`" + ` 248068 (the one id the audit gives),
  ` + "`</think>`" + ` 248069. The chat template is a short synthetic ChatML template. No merges are stored.
- ` + "`m5_val_prompts/eval_tf_96tok_{ops_tools,chat_json,ja}.txt`" + ` — the three TF token files: the
  ids alone, whitespace-separated, sixteen a line, as a runner writes them (format: engine/tf.File).
  Their domain, source document and source offset are the snapshot's spec data
  (` + "`rules.tf.files`" + ` in ` + "`strataspec.json`" + `), not headers in the files. From the audit (§3): 96 ids = user turn (ids 0–28) + ` + "`<|im_start|>assistant\\n`" + `
  (29–31) + 64 scored (32–95); the first scored token is ` + "`<think>`" + `; the openings of the user turns
  (` + "`);\\n df.erase();…`" + `, ` + "`{19}~?$$\\n\\nSolve this step by step…`" + `, ` + "`カイブ\\n36\\n\\n質問: 5G医療救急車…`" + `);
  chat_json is a modular-arithmetic problem; ops_tools has ` + "`<think>`" + ` with no newline after it;
  each turn starts mid-document. **Synthetic**: the rest of every text, the source documents and
  their offsets, and every id other than 248068.

fixtures/m5-v3 and fixtures/m5 hold the same files; the fixed plan states caveats about the TF
data instead of using different data. Each snapshot keeps its own copy of the vocabulary, byte for
byte the same (git stores it once: one blob): an audit reads a snapshot confined to its root
(os.Root), so a vocabulary shared through a link to ` + "`../vocab`" + ` would be refused, and a
checkout audited on its own must carry what decodes its files.
`
