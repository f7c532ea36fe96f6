package tf

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/jsontree"
)

// MaxVocabID bounds the ids an id → piece table may give: the vocabulary
// is a slice indexed by id, so a hostile table of one huge id cannot make
// a huge allocation.
const MaxVocabID = 1 << 22

// ReadVocab reads the vocabulary the token files decode with: a GGUF file
// (its tokenizer), or an id → piece table, which may hold only the ids the
// token files use:
//
//   - TSV (a .tsv file): one token a line, "id<TAB>piece" or
//     "id<TAB>piece<TAB>type", the piece as the text it stands for with \t,
//     \n, \r and \\ escaped, the type a token type's name ("control",
//     "user-defined", …; "normal" when absent). Blank lines and lines
//     starting with "#" are comments.
//   - JSON (a .json file): an object of id → piece, or id → {"piece": …,
//     "type": …}.
//
// The table's pieces are text (gguf.ModelPlain). Errors name the file and
// line.
func ReadVocab(name string, data []byte) (*gguf.Vocab, error) {
	if bytes.HasPrefix(data, []byte(gguf.Magic)) {
		f, err := gguf.Parse(name, data)
		if err != nil {
			return nil, err
		}
		return f.Vocab()
	}
	var t vocabTable
	var err error
	switch path.Ext(name) {
	case ".tsv":
		err = t.readTSV(name, data)
	case ".json":
		err = t.readJSON(name, data)
	default:
		return nil, fmt.Errorf("%s:1: not a vocabulary: a GGUF file, or an id → piece table as .tsv or .json", name)
	}
	if err != nil {
		return nil, err
	}
	if len(t.tokens) == 0 {
		return nil, fmt.Errorf("%s:1: no token in the vocabulary", name)
	}
	return gguf.NewVocab(gguf.ModelPlain, t.tokens, t.types)
}

// vocabTable collects an id → piece table's entries.
type vocabTable struct {
	tokens []string
	types  []gguf.TokenType
}

// add sets token id; errf reports at the entry's place.
func (t *vocabTable) add(idText, piece, typ string, errf func(string, ...any) error) error {
	id, err := strconv.ParseInt(idText, 10, 32)
	if err != nil || id < 0 || id >= MaxVocabID {
		return errf("token id %q is not an integer in [0, %d)", idText, MaxVocabID)
	}
	tt := gguf.TokenNormal
	if typ != "" {
		found := false
		for k := gguf.TokenNormal; k <= gguf.TokenByte; k++ {
			if k.String() == typ {
				tt, found = k, true
			}
		}
		if !found {
			return errf("token type %q (want normal, unknown, control, user-defined, unused or byte)", typ)
		}
	}
	if piece == "" {
		return errf("token %d has no piece", id)
	}
	for int64(len(t.tokens)) <= id {
		t.tokens = append(t.tokens, "")
		t.types = append(t.types, gguf.TokenUndefined)
	}
	if t.types[id] != gguf.TokenUndefined {
		return errf("token %d given twice", id)
	}
	t.tokens[id], t.types[id] = piece, tt
	return nil
}

func (t *vocabTable) readTSV(name string, data []byte) error {
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, args...))
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 2 || len(cols) > 3 {
			return errf("want id<TAB>piece or id<TAB>piece<TAB>type, found %d columns", len(cols))
		}
		piece, err := unescapeTSV(cols[1])
		if err != nil {
			return errf("%v", err)
		}
		typ := ""
		if len(cols) == 3 {
			typ = cols[2]
		}
		if err := t.add(cols[0], piece, typ, errf); err != nil {
			return err
		}
	}
	return nil
}

// unescapeTSV undoes the escapes of a TSV piece: \t, \n, \r and \\.
func unescapeTSV(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", fmt.Errorf("piece %q ends in a lone backslash", s)
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", fmt.Errorf("piece %q: unknown escape \\%c (known: \\t \\n \\r \\\\)", s, s[i])
		}
	}
	return b.String(), nil
}

func (t *vocabTable) readJSON(name string, data []byte) error {
	doc, err := jsontree.ParseDoc(name, data)
	if err != nil {
		return err
	}
	root := doc.Root
	if root.Kind != 'o' {
		return fmt.Errorf("%s:%d: want an object of id → piece, found %s", name, doc.Line(root), jsontree.KindName(root.Kind))
	}
	for i, k := range root.Keys {
		v := root.Vals[i]
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s: %s", name, doc.Line(v), v.Path, fmt.Sprintf(format, args...))
		}
		piece, typ := "", ""
		switch v.Kind {
		case 's':
			piece = v.Str
		case 'o':
			for j, kk := range v.Keys {
				vv := v.Vals[j]
				if vv.Kind != 's' || (kk != "piece" && kk != "type") {
					return errf(`want {"piece": STRING, "type": STRING}, found key %q (%s)`, kk, jsontree.KindName(vv.Kind))
				}
				if kk == "piece" {
					piece = vv.Str
				} else {
					typ = vv.Str
				}
			}
		default:
			return errf("want a piece (a string) or {\"piece\", \"type\"}, found %s", jsontree.KindName(v.Kind))
		}
		if err := t.add(k, piece, typ, errf); err != nil {
			return err
		}
	}
	return nil
}
