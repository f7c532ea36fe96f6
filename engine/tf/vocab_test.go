package tf

import (
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/gguf"
)

func TestReadVocabTable(t *testing.T) {
	tsv := "# id\tpiece\n10\t<|im_start|>\tcontrol\n11\tuser\n12\t\\n\n14\ta\\tb\\\\\n"
	json := `{"10": {"piece": "<|im_start|>", "type": "control"}, "11": "user", "12": "\n", "14": "a\tb\\"}`
	for _, c := range []struct{ name, data string }{{"v.tsv", tsv}, {"v.json", json}} {
		v, err := ReadVocab(c.name, []byte(c.data))
		if err != nil {
			t.Fatalf("ReadVocab(%s) = %v", c.name, err)
		}
		text, err := v.Decode([]int32{10, 11, 12, 14})
		if err != nil || text != "<|im_start|>user\na\tb\\" {
			t.Errorf("ReadVocab(%s).Decode = %q, %v; want %q", c.name, text, err, "<|im_start|>user\na\tb\\")
		}
		if !v.IsSpecial(10) || v.IsSpecial(11) || v.Has(13) || !v.Has(14) {
			t.Errorf("ReadVocab(%s): special 10 %v, 11 %v; has 13 %v, 14 %v; want true, false, false, true", c.name, v.IsSpecial(10), v.IsSpecial(11), v.Has(13), v.Has(14))
		}
		if _, err := v.Decode([]int32{13}); err == nil {
			t.Errorf("ReadVocab(%s).Decode(13) = nil error; want the gap of the subset reported", c.name)
		}
	}
	for _, c := range []struct{ name, data, want string }{
		{"v.tsv", "1\ta\n1\tb\n", "v.tsv:2: token 1 given twice"},
		{"v.tsv", "x\ta\n", `v.tsv:1: token id "x"`},
		{"v.tsv", "1\ta\tweird\n", `token type "weird"`},
		{"v.tsv", "1\ta\\q\n", `unknown escape \q`},
		{"v.tsv", "1\n", "found 1 columns"},
		{"v.tsv", "99999999\ta\n", "not an integer in [0,"},
		{"v.tsv", "# only a comment\n", "no token"},
		{"v.json", `{"1": 2}`, "v.json:1: 1: want a piece"},
		{"v.txt", "1\ta\n", "not a vocabulary"},
	} {
		if _, err := ReadVocab(c.name, []byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadVocab(%s, %q) = %v; want %q", c.name, c.data, err, c.want)
		}
	}
}

// TestReadVocabSubsetLayout finds the TF layout with a subset vocabulary,
// and names an id the subset lacks.
func TestReadVocabSubsetLayout(t *testing.T) {
	v, err := ReadVocab("v.tsv", []byte("1\t<|im_start|>\tcontrol\n2\t<|im_end|>\tcontrol\n3\tuser\n4\t\\n\n5\tassistant\n6\thi\n"))
	if err != nil {
		t.Fatal(err)
	}
	ids := []int32{1, 3, 4, 6, 2, 4, 1, 5, 4, 6}
	l, err := Find(ids, v)
	if err != nil || l.Scored != (Span{9, 10}) {
		t.Errorf("Find(%v) = %+v, %v; want the last id scored", ids, l, err)
	}
	if _, err := Find([]int32{1, 3, 0}, v); err == nil || !strings.Contains(err.Error(), "ids[2] = 0 is not in the vocabulary subset") {
		t.Errorf("Find with id 0 = %v; want it named as missing from the subset", err)
	}
	if v.Model != gguf.ModelPlain {
		t.Errorf("ReadVocab(tsv).Model = %q; want %q", v.Model, gguf.ModelPlain)
	}
}
