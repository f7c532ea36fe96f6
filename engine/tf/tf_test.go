package tf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strataspec/strataspec/engine/gguf"
)

// chatVocab is a small byte-level vocabulary with the ChatML tokens at ids
// unlike the fixtures' (Find must locate them by text). words are extra
// ordinary tokens, given as plain text.
func chatVocab(t testing.TB, template string, words ...string) *gguf.Vocab {
	t.Helper()
	var tokens []string
	var types []int32
	for b := 0; b < 256; b++ {
		tokens = append(tokens, gguf.ByteLevel(string([]byte{byte(b)})))
		types = append(types, int32(gguf.TokenNormal))
	}
	for _, w := range append([]string{"user", "assistant", "<|fake|>"}, words...) {
		tokens = append(tokens, gguf.ByteLevel(w))
		types = append(types, int32(gguf.TokenNormal))
	}
	for _, s := range []struct {
		text string
		typ  gguf.TokenType
	}{{ImStart, gguf.TokenControl}, {ImEnd, gguf.TokenControl}, {Think, gguf.TokenUserDefined}, {ThinkEnd, gguf.TokenUserDefined}} {
		tokens = append(tokens, s.text)
		types = append(types, int32(s.typ))
	}
	kv := []gguf.KV{
		{Key: gguf.KeyModel, Value: gguf.ModelBPE},
		{Key: gguf.KeyTokens, Value: tokens},
		{Key: gguf.KeyTokenType, Value: types},
		{Key: gguf.KeyChatTemplate, Value: template},
	}
	data, err := gguf.Encode(3, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse("chat.gguf", data)
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.Vocab()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func encode(t *testing.T, v *gguf.Vocab, text string) []int32 {
	t.Helper()
	ids, err := v.Encode(text)
	if err != nil {
		t.Fatalf("Encode(%q): %v", text, err)
	}
	return ids
}

func TestFind(t *testing.T) {
	v := chatVocab(t, "", "hello", " world")
	ids := encode(t, v, "<|im_start|>user\nhello world<|im_end|>\n<|im_start|>assistant\n<think>\nok")
	// <|im_start|> user \n hello " world" <|im_end|> \n | <|im_start|> assistant \n | <think> \n o k
	l, err := Find(ids, v)
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	want := Layout{User: Span{0, 7}, Header: Span{7, 10}, Scored: Span{10, 14}, Content: Span{3, 5}}
	if l != want {
		t.Errorf("Find = %+v; want %+v", l, want)
	}
	if l.Prompt() != 10 {
		t.Errorf("Prompt() = %d; want 10", l.Prompt())
	}
	for _, tt := range []struct {
		span Span
		want string
	}{
		{l.User, "<|im_start|>user\nhello world<|im_end|>\n"},
		{l.Header, "<|im_start|>assistant\n"},
		{l.Scored, "<think>\nok"},
		{l.Content, "hello world"},
	} {
		if got, err := Text(ids, v, tt.span); err != nil || got != tt.want {
			t.Errorf("Text(%v) = %q, %v; want %q", tt.span, got, err, tt.want)
		}
	}
	if _, err := Text(ids, v, Span{10, 99}); err == nil {
		t.Errorf("Text(out of range span) = nil error")
	}
}

func TestFindErrors(t *testing.T) {
	v := chatVocab(t, "")
	tests := []struct {
		text string
		want string
	}{
		{"user\nx<|im_end|>\n<|im_start|>assistant\nx", "ids[0] is id"},
		{"<|im_start|>system\nx<|im_end|>\n<|im_start|>assistant\nx", `want "user\n"`},
		{"<|im_start|>user\nx", "no <|im_end|>"},
		{"<|im_start|>user\nx<|im_start|>user\nx<|im_end|>\n", "<|im_start|> inside the user turn"},
		{"<|im_start|>user\nx<|im_end|><|im_start|>assistant\nx", `do not read "\n"`},
		{"<|im_start|>user\nx<|im_end|>\n\n<|im_start|>assistant\nx", `ids[6] is id 10 "\n"; want <|im_start|>`},
		{"<|im_start|>user\nx<|im_end|>\nassistant\nx", "is id"},
		{"<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\n", "nothing scored"},
		{"<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant", `do not read "assistant\n"`},
	}
	for _, tt := range tests {
		_, err := Find(encode(t, v, tt.text), v)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Find(%q) error = %v; want %q", tt.text, err, tt.want)
		}
	}
	// An id outside the vocabulary, even in the scored span, is an error
	// naming its position: callers index v.Tokens with the ids of a layout.
	good := encode(t, v, "<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\nx")
	for _, at := range []int{0, len(good) - 1} {
		bad := append([]int32(nil), good...)
		bad[at] = int32(v.Len())
		want := fmt.Sprintf("ids[%d] = %d is outside the vocabulary of %d tokens", at, v.Len(), v.Len())
		if _, err := Find(bad, v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Find(id %d at ids[%d]) error = %v; want %q", v.Len(), at, err, want)
		}
	}
	// A vocabulary without the template tokens cannot locate them.
	plain := chatVocab(t, "")
	plain.Tokens = append([]string(nil), plain.Tokens...)
	for i, s := range plain.Tokens {
		if s == ImStart {
			plain.Tokens[i] = "<|other|>"
		}
	}
	g, err := gguf.Parse("x.gguf", mustVocabFile(t, plain))
	if err != nil {
		t.Fatal(err)
	}
	pv, err := g.Vocab()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Find([]int32{0}, pv); err == nil || !strings.Contains(err.Error(), "no <|im_start|> token") {
		t.Errorf("Find with no <|im_start|> in vocab: error = %v", err)
	}
}

func mustVocabFile(t *testing.T, v *gguf.Vocab) []byte {
	types := make([]int32, len(v.Types))
	for i, ty := range v.Types {
		types[i] = int32(ty)
	}
	data, err := gguf.Encode(3, []gguf.KV{{Key: gguf.KeyModel, Value: v.Model}, {Key: gguf.KeyTokens, Value: v.Tokens}, {Key: gguf.KeyTokenType, Value: types}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestThinkNewline(t *testing.T) {
	v := chatVocab(t, "")
	tests := []struct {
		scored  string
		pos     int
		found   bool
		newline bool
	}{
		{"<think>\nok", 9, true, true},
		{"<think>The fix", 9, true, false},
		{"ok<think>", 11, true, false},
		{"no think", 0, false, false},
	}
	for _, tt := range tests {
		ids := encode(t, v, "<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\n"+tt.scored)
		l, err := Find(ids, v) // scored from ids[9]
		if err != nil {
			t.Fatal(err)
		}
		pos, found, newline := ThinkNewline(ids, v, l)
		if found != tt.found || newline != tt.newline || pos != tt.pos {
			t.Errorf("ThinkNewline(%q) = %d, %v, %v; want %d, %v, %v", tt.scored, pos, found, newline, tt.pos, tt.found, tt.newline)
		}
	}
}

func TestIsTemplateToken(t *testing.T) {
	v := chatVocab(t, "{{ '<|im_start|>' }}{{ '<|fake|>' }}", "hello")
	for text, want := range map[string]bool{ImStart: true, Think: true, gguf.ByteLevel("<|fake|>"): true, "hello": false, "a": false} {
		id, ok := v.ID(text)
		if !ok {
			t.Fatalf("no token %q", text)
		}
		if got := IsTemplateToken(v, id); got != want {
			t.Errorf("IsTemplateToken(%q) = %v; want %v", text, got, want)
		}
	}
	if IsTemplateToken(v, -1) || IsTemplateToken(v, int32(v.Len())) {
		t.Errorf("IsTemplateToken(out of range) = true")
	}
}

var hasJSONTests = []struct {
	in   string
	want bool
}{
	{`{"a": 1}`, true},
	{`text before {"name": "x", "args": [1, 2]} after`, true},
	{`[1, 2, 3]`, true},
	{`{19}~?$$`, false}, // the audit's chat_json fragment: LaTeX, not JSON
	{`\frac{1}{2} and [x]`, false},
	{`{}`, false},
	{`[]`, false},
	{`{"cut": `, false}, // truncated
	{``, false},
}

func TestHasJSON(t *testing.T) {
	for _, tt := range hasJSONTests {
		if got := HasJSON(tt.in); got != tt.want {
			t.Errorf("HasJSON(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

func TestFitsLabel(t *testing.T) {
	tests := []struct {
		domain, text  string
		checked, fits bool
	}{
		{"chat_json", `Solve 7^{222} mod 19`, true, false},
		{"chat_json", `{"tool": "search"}`, true, true},
		{"ja", "質問: 5G医療救急車", true, true},
		{"ja", "question", true, false},
		{"ops_tools", "anything", false, true},
	}
	for _, tt := range tests {
		checked, fits, _ := FitsLabel(tt.domain, tt.text)
		if checked != tt.checked || fits != tt.fits {
			t.Errorf("FitsLabel(%q, %q) = %v, %v; want %v, %v", tt.domain, tt.text, checked, fits, tt.checked, tt.fits)
		}
	}
}

func TestFileRoundTrip(t *testing.T) {
	in := &File{Domain: "ja", Source: "synthetic Q&A page", SourceOffset: 7, HasOffset: true, IDs: make([]int32, 20)}
	in.IDs[19] = 248068
	data, err := in.Marshal("eval_tf_96tok_ja: teacher-forcing token ids")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Parse("x.txt", data)
	if err != nil {
		t.Fatalf("Parse(Marshal): %v\n%s", err, data)
	}
	if out.IDLine[0] != 5 || out.IDLine[19] != 6 {
		t.Errorf("IDLine = %v; want ids on lines 5 and 6", out.IDLine)
	}
	out.Path, out.IDLine = "", nil
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	if _, err := (&File{Domain: "a\nb", SourceOffset: 1, IDs: []int32{1}}).Marshal(""); err == nil {
		t.Errorf("Marshal(domain with a newline) = nil error")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "no token ids"},
		{"# domain: ja\n# source_offset: 3\n", "no token ids"},
		{"# domain: ja\n# source_offset: -3\n1\n", "bad.txt:2: source_offset \"-3\""},
		{"# domain: ja\n# source_offset: x\n1\n", "bad.txt:2: source_offset"},
		{"# domain: ja\n# domain: en\n", "bad.txt:2: domain given twice"},
		{"# domain: ja\n# source_offset: 3\n1 2\n3 -4\n", `bad.txt:4: token id "-4"`},
		{"# domain: ja\n# source_offset: 3\n1 x2\n", `bad.txt:3: token id "x2"`},
		{"# domain: ja\n# source_offset: 3\n4294967296\n", `token id "4294967296"`},
		{"# domain: ja\n# source_offset: 3\n\xff\n", "not UTF-8"},
	}
	for _, tt := range tests {
		_, err := Parse("bad.txt", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "bad.txt") {
			t.Errorf("Parse(%q) error = %v; want bad.txt … %q", tt.in, err, tt.want)
		}
	}
	// Comments, CRLF line ends and a comment after the ids are fine.
	f, err := Parse("ok.txt", []byte("# title line\r\n# domain: ops_tools\r\n# source_offset: 0\r\n1 2\r\n# a note: after ids\r\n3\r\n"))
	if err != nil || f.Domain != "ops_tools" || len(f.IDs) != 3 || f.SourceOffset != 0 || !f.HasOffset {
		t.Errorf("Parse(CRLF with comments) = %+v, %v", f, err)
	}
	// Plain ids, as a runner writes them: no domain, no offset recorded.
	for _, in := range []string{"1 2\n3\n", "# colour: red\n1 2 3", "# domain: ja\n1 2\n3"} {
		f, err := Parse("ids.txt", []byte(in))
		if err != nil || len(f.IDs) != 3 || f.HasOffset || f.IDLine[2] != 2 && !strings.HasPrefix(in, "#") {
			t.Errorf("Parse(%q) = %+v, %v; want 3 ids, no offset", in, f, err)
		}
	}
}

func TestLooksTruncated(t *testing.T) {
	tests := []struct {
		content   string
		truncated bool
		test      string
	}{
		{");\n df.erase();", true, "opens with ')'"},
		{"  , and then", true, "opens with ','"},
		{"and then it crashed", true, "lowercase letter 'a'"},
		{"Fix it) now", true, "closes a bracket it never opened (')' at byte 6)"},
		{"{19}~?$$ Solve this", false, "closes no bracket it did not open"},
		{"What does (a [b]) mean?", false, "closes no bracket it did not open"},
		{"カイブ\n36\n\n質問", false, "closes no bracket"},
		{"", false, "empty"},
	}
	for _, tt := range tests {
		got, test := LooksTruncated(tt.content)
		if got != tt.truncated || !strings.Contains(test, tt.test) {
			t.Errorf("LooksTruncated(%q) = %v, %q; want %v, a test saying %q", tt.content, got, test, tt.truncated, tt.test)
		}
	}
}

func TestManifestApply(t *testing.T) {
	off := func(n int64) *int64 { return &n }
	tests := []struct {
		name   string
		file   string
		entry  Entry
		domain string
		offset int64
		has    bool
		err    string
	}{
		{"plain ids", "1 2 3", Entry{Path: "a.txt", Domain: "ja", SourceOffset: off(48)}, "ja", 48, true, ""},
		{"no offset anywhere", "1 2 3", Entry{Path: "a.txt", Domain: "ja"}, "ja", 0, false, ""},
		{"header agrees", "# domain: ja\n# source_offset: 48\n1 2", Entry{Path: "a.txt", Domain: "ja", SourceOffset: off(48)}, "ja", 48, true, ""},
		{"header gives what the manifest does not", "# domain: ja\n# source_offset: 7\n1 2", Entry{Path: "a.txt"}, "ja", 7, true, ""},
		{"domain disagrees", "# domain: ja\n1 2", Entry{Path: "a.txt", Domain: "en"}, "", 0, false, `the manifest's domain "en" disagrees with the file's header "ja"`},
		{"offset disagrees", "# source_offset: 7\n1 2", Entry{Path: "a.txt", Domain: "ja", SourceOffset: off(8)}, "", 0, false, "source_offset 8 disagrees with the file's header 7"},
		{"negative offset", "1", Entry{Path: "a.txt", Domain: "ja", SourceOffset: off(-1)}, "", 0, false, "negative"},
		{"no domain", "1 2", Entry{Path: "a.txt"}, "", 0, false, "a.txt: no domain"},
	}
	for _, tt := range tests {
		f, err := Parse("a.txt", []byte(tt.file))
		if err != nil {
			t.Fatalf("%s: Parse: %v", tt.name, err)
		}
		err = tt.entry.Apply(f)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: Apply error = %v; want %q", tt.name, err, tt.err)
			}
		case err != nil || f.Domain != tt.domain || f.SourceOffset != tt.offset || f.HasOffset != tt.has:
			t.Errorf("%s: Apply = %v; file domain %q, offset %d (%v); want %q, %d (%v)", tt.name, err, f.Domain, f.SourceOffset, f.HasOffset, tt.domain, tt.offset, tt.has)
		}
	}
}
