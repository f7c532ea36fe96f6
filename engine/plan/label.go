package plan

import (
	"regexp"
	"strings"
	"unicode"
)

// LabelKind is the shape of a configuration label.
type LabelKind int

// Label kinds.
const (
	Setting LabelKind = iota // name=value: MoCE=0.85, K=512
	Flag                     // a command-line flag and its value: -ub 1024, --n-gen 64
	Model                    // a quantization or model identifier: Q2_0, IQ3_S, K256
)

// Label is a configuration a line names: the setting, flag or model a
// claim on the line was measured with.
type Label struct {
	Kind  LabelKind
	Name  string // "MoCE", "-ub", "Q2_0"
	Value string // "0.85", "1024"; "" for a model identifier
	Text  string // as written: "MoCE=0.85", "-ub 1024", "Q2_0"
	Col   int    // 1-based byte column of Text
	// InParens is set for a label inside parentheses, "23.42 GiB (IQ3_S)",
	// "(K=256, MoCE=0.85)": it qualifies what comes before it.
	InParens bool
}

var (
	settingRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.\-/])([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z0-9_.+\-]+)`)
	flagRE    = regexp.MustCompile("(?:^|[\\s(`])(--?[a-z][a-z0-9-]*)(?:[ =])([0-9][0-9.]*)")
	modelRE   = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])(I?Q[0-9]+(?:_[A-Z0-9]+)*|K[0-9]+)(?:$|[^A-Za-z0-9_])`)
)

// Labels returns the configuration labels of a line of plan text, code
// spans included, in order of their place on the line: name=value settings,
// flags with a numeric value, and quantization or model identifiers (Q2_0,
// IQ3_S, K256). A setting's value loses a trailing "." or ":" of the
// sentence ("MoCE=0.85:" is 0.85).
func Labels(text string) []Label {
	var out []Label
	for _, m := range settingRE.FindAllStringSubmatchIndex(text, -1) {
		v := strings.TrimRight(text[m[4]:m[5]], ".:")
		if v == "" || isDigit(v[0]) && unitFollows(text, m[4]) {
			continue // "rate=999.9 tok/s" is a measurement (see Scan), not a setting
		}
		out = append(out, Label{Kind: Setting, Name: text[m[2]:m[3]], Value: v, Text: text[m[2]:m[4]] + v, Col: m[2] + 1})
	}
	for _, m := range flagRE.FindAllStringSubmatchIndex(text, -1) {
		v := strings.TrimRight(text[m[4]:m[5]], ".")
		out = append(out, Label{Kind: Flag, Name: text[m[2]:m[3]], Value: v, Text: text[m[2]:m[4]] + v, Col: m[2] + 1})
	}
	// a model identifier is matched with the character after it, so look
	// again from that character for the next one ("K256-Q2_0")
	for i := 0; i < len(text); {
		m := modelRE.FindStringSubmatchIndex(text[i:])
		if m == nil {
			break
		}
		s, e := i+m[2], i+m[3]
		if !insideSetting(text, s) {
			out = append(out, Label{Kind: Model, Name: text[s:e], Text: text[s:e], Col: s + 1})
		}
		i = e
	}
	sortLabels(out)
	for i := range out {
		at := out[i].Col - 1
		out[i].InParens = strings.LastIndexByte(text[:at], '(') > strings.LastIndexByte(text[:at], ')')
	}
	return out
}

// insideSetting reports whether text[i] is in the value of a name=value
// setting ("K=256" holds no model identifier K256).
func insideSetting(text string, i int) bool {
	return i > 0 && text[i-1] == '='
}

func sortLabels(l []Label) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j].Col < l[j-1].Col; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

// LabelSpan reports whether a code span holds command-line arguments or
// settings only: flags (-ub, --n-gen) with their values, name=value
// settings, and words without digits (a program name), as in
// `llama-completion -no-cnv -t 8` or `--n-prompt 32 --n-gen 64`.
func LabelSpan(s string) bool {
	f := strings.Fields(s)
	label := false
	for i := 0; i < len(f); i++ {
		w := f[i]
		switch {
		case IsFlag(w):
			label = true
			if i+1 < len(f) && !IsFlag(f[i+1]) {
				i++
			}
		case strings.Contains(w, "=") && strings.Index(w, "=") > 0:
			label = true
		case strings.IndexFunc(w, unicode.IsDigit) >= 0:
			return false
		}
	}
	return label
}

// IsFlag reports whether w is a command-line flag: "-" or "--" and a letter.
func IsFlag(w string) bool {
	if !strings.HasPrefix(w, "-") {
		return false
	}
	r := strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-")
	return r != "" && unicode.IsLetter(rune(r[0]))
}
