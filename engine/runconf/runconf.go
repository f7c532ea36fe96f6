// Package runconf reads what a run was, as a comparison needs it: the
// binary, the mode (chat template applied or raw text), threads, prompt
// (by content hash), batch sizes and token counts, from the run's argv, the
// files it names and its parsed tail. Diff lists where two runs differ, with
// the values on both sides, so that a comparison can say why it is not like
// for like.
//
// The argv grammar is llama.cpp's (common/arg.cpp): -t/--threads,
// -b/--batch-size, -ub/--ubatch-size, -n/--n-predict, -f/--file,
// -p/--prompt, -cnv/-no-cnv, -st, --ignore-eos. llama-cli (the chat CLI of
// late 2025) applies the model's chat template; llama-completion and the
// strata engine read raw text. Where a value is not on the command line its
// text says which default applies.
//
// Everything else a run set — a value flag the grammar does not name
// (strata's --moce), the model, the context size, a flag it does not know,
// an environment variable — is kept as a Setting, so that a comparison
// compares every field it has.
package runconf

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/tail"
)

// Config is a run's configuration as a comparison sees it. Every field is
// text, as it will be printed in a finding.
type Config struct {
	Run    string
	Binary string // base name of argv[0]
	// BinarySHA256 is the sha256 of the program run, when the run's sidecar
	// records it: then "the same binary" means the same content, whatever
	// its name; without it a binary is known by its name alone.
	BinarySHA256 string
	Mode         string // "chat (template applied)", "raw text"
	Threads      string // "8", or "default (not set)"
	Prompt       string // the prompt file and its content hash, or the inline prompt
	Batch        string // -b
	UBatch       string // -ub
	NPredict     string // -n
	Flags        string // other flags that change what is run (e.g. --ignore-eos, -st)

	PromptTokens string // prompt tokens as the tail counts them, or why unknown
	Decoded      string // decoded tokens as the tail counts them, or why unknown

	// DecodedKnown is false when the tail prints no count of decoded
	// tokens; DecodedN is the count when it is known.
	DecodedKnown bool
	DecodedN     int
	// DecodedSome is true when the tail shows at least one decoded token
	// (a count > 0, or a generation rate > 0 where no count is printed).
	DecodedSome bool

	// Files are the files the command line names as inputs (-f, --file,
	// and strata's --prompt-file / --tokens), as written.
	Files []string
	// Models are the model files the command line names (-m, --model,
	// every one of llama-bench's), and the logits file a KL-divergence run
	// reads (--kl-divergence-base with --kl-divergence; without it the
	// run writes the file), as written.
	Models []string

	// Settings are the run's other settings, sorted by name: value flags
	// by their name ("model", "ctx", or the flag as written, "--moce"),
	// unknown flags without a value ("--kld" = "set"), positional
	// arguments ("argument 1") and, when the run recorded its
	// environment, every variable ("env NAME").
	Settings []Setting
	// EnvRecorded is false for a run whose environment was not recorded
	// (carried over): its "env …" settings are unknown, not absent.
	EnvRecorded bool
}

// Setting is one named setting of a run.
type Setting struct {
	Name, Value string
}

// With returns c with extra settings added (a setting c has keeps its
// value): the configuration a run's output prints beside a measurement,
// such as a llama-bench row's, joins the one its command line gives.
func (c Config) With(extra []Setting) Config {
	if len(extra) == 0 {
		return c
	}
	out := c
	out.Settings = append([]Setting(nil), c.Settings...)
	for _, e := range extra {
		if _, ok := out.Setting(e.Name); !ok {
			out.Settings = append(out.Settings, e)
			sort.Slice(out.Settings, func(i, j int) bool { return out.Settings[i].Name < out.Settings[j].Name })
		}
	}
	return out
}

// Setting returns the value of the named setting and whether the run has it.
func (c Config) Setting(name string) (string, bool) {
	i := sort.Search(len(c.Settings), func(i int) bool { return c.Settings[i].Name >= name })
	if i < len(c.Settings) && c.Settings[i].Name == name {
		return c.Settings[i].Value, true
	}
	return "", false
}

// Fields returns the field names, in the order Diff reports them.
func Fields() []string {
	return []string{"binary", "mode", "threads", "prompt", "batch", "ubatch", "n_predict", "flags", "prompt_tokens", "decoded_tokens"}
}

// Get returns the value of a field by its name in Fields().
func (c Config) Get(field string) string {
	switch field {
	case "binary":
		return c.Binary
	case "mode":
		return c.Mode
	case "threads":
		return c.Threads
	case "prompt":
		return c.Prompt
	case "batch":
		return c.Batch
	case "ubatch":
		return c.UBatch
	case "n_predict":
		return c.NPredict
	case "flags":
		return c.Flags
	case "prompt_tokens":
		return c.PromptTokens
	case "decoded_tokens":
		return c.Decoded
	}
	return ""
}

// Difference is one field on which two runs differ.
type Difference struct {
	Field string
	A, B  string
}

// String formats d as "field: a vs b".
func (d Difference) String() string { return fmt.Sprintf("%s: %s vs %s", d.Field, d.A, d.B) }

// Diff returns the fields on which a and b differ, in the order of
// Fields(), then the settings on which they differ, by name. A setting one
// run lacks is "not set"; environment variables are compared only when
// both runs recorded their environment.
func Diff(a, b Config) []Difference {
	var out []Difference
	for _, f := range Fields() {
		x, y := a.Get(f), b.Get(f)
		if f == "binary" && a.BinarySHA256 != "" && b.BinarySHA256 != "" {
			// Identity by content: one binary under two names is one
			// binary; two builds under one name are two.
			if a.BinarySHA256 != b.BinarySHA256 {
				out = append(out, Difference{f, x + " sha256 " + ShortHash(a.BinarySHA256), y + " sha256 " + ShortHash(b.BinarySHA256)})
			}
			continue
		}
		if x != y {
			out = append(out, Difference{f, x, y})
		}
	}
	for _, name := range SettingNames(a, b) {
		if strings.HasPrefix(name, EnvPrefix) && !(a.EnvRecorded && b.EnvRecorded) {
			continue
		}
		x, xok := a.Setting(name)
		y, yok := b.Setting(name)
		if !xok {
			x = NotSet
		}
		if !yok {
			y = NotSet
		}
		if x != y {
			out = append(out, Difference{name, x, y})
		}
	}
	return out
}

// EnvPrefix starts the name of a setting that is an environment variable.
const EnvPrefix = "env "

// NotSet is the value Diff gives a setting a run does not have.
const NotSet = "not set"

// SettingNames returns the names of the settings of any of cs, sorted,
// without the environment of a run that did not record it.
func SettingNames(cs ...Config) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		for _, s := range c.Settings {
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// flag spellings, short and long, that take a value.
var valueFlags = map[string]string{
	"-t": "threads", "--threads": "threads",
	"-b": "batch", "--batch-size": "batch",
	"-ub": "ubatch", "--ubatch-size": "ubatch",
	"-n": "n_predict", "--n-predict": "n_predict", "--predict": "n_predict", "--n-gen": "n_predict",
	"-f": "file", "--file": "file", "--prompt-file": "file", "--tokens": "file", "--tf-tokens": "file",
	"-p": "prompt", "--prompt": "prompt",
	"-m": "model", "--model": "model",
	"-c": "ctx", "--ctx-size": "ctx",
	"-ngl": "ngl", "--gpu-layers": "ngl", "--n-gpu-layers": "ngl",
	"-tb": "threads_batch", "--threads-batch": "threads_batch",
}

// Flags that change a run but take no value and are not the mode.
var boolFlags = map[string]bool{"--ignore-eos": true, "-st": true, "--single-turn": true, "-cmoe": true, "--cpu-moe": true, "-fa": true}

// Describe says what a file named on a command line holds, as a finding
// prints it: "(1,600 bytes, sha256 12cd05aa8276…)", or why it was not read.
type Describe func(recorded string) string

// Of reads the configuration of run r. ms is the run's parsed tail (nil
// when there is none). describe tells what a file named on the command
// line holds (nil: files are named without their content); the caller
// reads files, runconf never does.
func Of(r *archive.Run, ms *tail.Metrics, describe Describe) Config {
	c := Config{Run: r.Name}
	vals := map[string]string{}
	settings := map[string]string{}
	var flags []string
	mode := ""
	args := r.Cmd
	if len(args) > 0 {
		c.Binary = path.Base(strings.ReplaceAll(args[0], "\\", "/"))
		c.BinarySHA256 = r.BinarySHA256
		args = args[1:]
	}
	positional := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		key, eq := a, ""
		if j := strings.IndexByte(a, '='); j > 0 && strings.HasPrefix(a, "--") {
			key, eq = a[:j], a[j+1:]
		}
		if name, ok := valueFlags[key]; ok {
			v := eq
			if eq == "" && i+1 < len(args) {
				i++
				v = args[i]
			}
			switch name {
			case "file":
				c.Files = append(c.Files, v)
			case "model":
				c.Models = append(c.Models, v)
			}
			vals[name] = v
			if !namedFields[name] {
				settings[name] = v
			}
			continue
		}
		switch {
		case a == "-cnv" || a == "--conversation":
			mode = "chat"
		case a == "-no-cnv" || a == "--no-conversation":
			mode = "raw"
		case boolFlags[a]:
			flags = append(flags, a)
		case strings.HasPrefix(a, "-") && len(a) > 1 && !isNumber(a):
			// A flag the grammar does not know: its value is the next
			// argument unless that is a flag too.
			switch {
			case eq != "":
				settings[key] = eq
			case i+1 < len(args) && (!strings.HasPrefix(args[i+1], "-") || isNumber(args[i+1])):
				i++
				settings[key] = args[i]
			default:
				settings[key] = "set"
			}
		default:
			positional++
			settings[fmt.Sprintf("argument %d", positional)] = a
		}
	}
	if base, ok := settings["--kl-divergence-base"]; ok && settings["--kl-divergence"] == "set" {
		c.Models = append(c.Models, base)
	}
	if r.Env != nil {
		c.EnvRecorded = true
		for k, v := range r.Env {
			settings[EnvPrefix+k] = v
		}
	}
	for k, v := range settings {
		c.Settings = append(c.Settings, Setting{k, v})
	}
	sort.Slice(c.Settings, func(i, j int) bool { return c.Settings[i].Name < c.Settings[j].Name })
	switch {
	case mode == "chat" || mode == "" && c.Binary == "llama-cli":
		c.Mode = "chat (template applied)"
	default:
		c.Mode = "raw text"
	}
	c.Threads = orDefault(vals["threads"], "default (not set)")
	c.Batch = orDefault(vals["batch"], "default (not set)")
	c.UBatch = orDefault(vals["ubatch"], "default (not set)")
	c.NPredict = orDefault(vals["n_predict"], "default (not set)")
	sort.Strings(flags)
	c.Flags = orDefault(strings.Join(flags, " "), "none")
	switch {
	case vals["file"] != "" && describe != nil:
		c.Prompt = vals["file"] + " " + describe(vals["file"])
	case vals["file"] != "":
		c.Prompt = vals["file"]
	case vals["prompt"] != "":
		c.Prompt = fmt.Sprintf("inline %q", clip(vals["prompt"], 40))
	default:
		c.Prompt = "none on the command line"
	}
	c.PromptTokens, c.Decoded = "not printed", "not printed"
	readCounts(&c, ms, vals["n_predict"])
	return c
}

// readCounts fills the token counts from the tail's metrics: llama.cpp's
// summary (prompt_eval_tokens, eval_ms, eval_tokens), llama-cli's rates, or
// the strata engine's own lines (prompt_tokens, decode_tokens,
// eval_tokens).
func readCounts(c *Config, ms *tail.Metrics, nPredict string) {
	if m, ok := ms.Get("prompt_eval_tokens"); ok {
		c.PromptTokens = m.Num.Text
	} else if m, ok := ms.Get("prompt_tokens"); ok {
		c.PromptTokens = m.Num.Text
	} else if _, ok := ms.Get("cli_prompt_tok_s"); ok && strings.HasPrefix(c.Mode, "chat") {
		c.PromptTokens = "not printed (llama-cli; the chat template adds tokens)"
	}
	if ev, ok := ms.Get("eval_ms"); ok {
		runs, _ := ms.Get("eval_tokens")
		n := int(runs.Value())
		c.DecodedKnown = true
		if ev.Value() == 0 {
			// "eval time = 0.00 ms / 1 runs": no token was decoded.
			c.DecodedN = 0
			c.Decoded = fmt.Sprintf("0 (eval time = %s ms / %s runs)", ev.Num.Text, runs.Num.Text)
			return
		}
		c.DecodedN = n
		c.DecodedSome = n > 0
		c.Decoded = runs.Num.Text
		return
	}
	for _, name := range []string{"decode_tokens", "eval_tokens"} {
		if m, ok := ms.Get(name); ok {
			c.DecodedKnown, c.DecodedN, c.DecodedSome = true, int(m.Value()), m.Value() > 0
			c.Decoded = m.Num.Text
			return
		}
	}
	if g, ok := ms.Get("cli_gen_tok_s"); ok {
		c.DecodedSome = g.Value() > 0
		cap := ""
		if nPredict != "" {
			cap = ", at most -n " + nPredict
		}
		c.Decoded = fmt.Sprintf("not printed (Generation %s t/s%s)", g.Num.Text, cap)
	}
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// namedFields are the value flags Config has a field for; every other
// value flag is a Setting.
var namedFields = map[string]bool{"threads": true, "batch": true, "ubatch": true, "n_predict": true, "file": true, "prompt": true}

func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	dot := false
	for _, c := range s {
		switch {
		case c == '.' && !dot:
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}

// SHA256 returns the hex sha256 of b.
func SHA256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ShortHash abbreviates a hex hash as the audit prints it: "2549439506dd…".
func ShortHash(h string) string {
	if len(h) <= 12 {
		return h
	}
	return h[:12] + "…"
}
