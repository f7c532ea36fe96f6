// Package tf reads teacher-forcing (TF) token files and finds their layout:
// the user turn, the assistant header and the scored span, located by the
// text of the chat template's tokens in the model's vocabulary, never by
// hard-coded ids. It also holds the content checks the audit made by hand on
// the decoded text: a truncated user turn, a template token scored first, a
// domain label the content does not fit, <think> without its newline.
package tf

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// File is one TF token file. On disk it is text: the token ids as decimal
// integers separated by white space, as a runner writes them:
//
//	248045 872 198 …
//
// Optional header lines "# key: value" before the first id (keys domain,
// source, source_offset) describe the file; a checkout may instead give
// them in its spec's manifest (rules.tf.files), which is where they belong
// when the runner does not write them. A key given twice or a malformed id
// is an error naming the file and line. Other "#" lines, and "#" lines
// after the first id, are comments.
type File struct {
	Path   string // the path it was read from
	Domain string
	// Source names the document the tokens were cut from.
	Source string
	// SourceOffset is the byte offset in that document where the user turn's
	// text starts: greater than zero means the turn starts mid-document.
	// It is meaningful only when HasOffset is true.
	SourceOffset int64
	HasOffset    bool
	IDs          []int32
	// IDLine is the file line of each id, for findings that point at one.
	IDLine []int
}

// headerKeys are the keys a header line may set.
var headerKeys = map[string]bool{"domain": true, "source": true, "source_offset": true}

// Parse parses a TF file's bytes; name is used in errors.
func Parse(name string, data []byte) (*File, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("tf: %s: not UTF-8", name)
	}
	f := &File{Path: name}
	seen := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.TrimRight(line, "\r")
		if rest, ok := strings.CutPrefix(line, "#"); ok {
			key, val, ok := strings.Cut(strings.TrimSpace(rest), ":")
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			if !ok || !headerKeys[key] || len(f.IDs) > 0 {
				continue // a comment
			}
			if seen[key] {
				return nil, fmt.Errorf("tf: %s:%d: %s given twice", name, n, key)
			}
			seen[key] = true
			switch key {
			case "domain":
				f.Domain = val
			case "source":
				f.Source = val
			case "source_offset":
				off, err := strconv.ParseInt(val, 10, 64)
				if err != nil || off < 0 {
					return nil, fmt.Errorf("tf: %s:%d: source_offset %q is not a non-negative integer", name, n, val)
				}
				f.SourceOffset, f.HasOffset = off, true
			}
			continue
		}
		for _, field := range strings.Fields(line) {
			id, err := strconv.ParseInt(field, 10, 32)
			if err != nil || id < 0 {
				return nil, fmt.Errorf("tf: %s:%d: token id %q is not a non-negative 32-bit integer", name, n, field)
			}
			f.IDs = append(f.IDs, int32(id))
			f.IDLine = append(f.IDLine, n)
		}
	}
	if len(f.IDs) == 0 {
		return nil, fmt.Errorf("tf: %s: no token ids", name)
	}
	return f, nil
}

// MarshalIDs encodes the ids alone, sixteen a line: a file as a runner
// writes it, whose domain and offset a manifest gives.
func (f *File) MarshalIDs() ([]byte, error) {
	if len(f.IDs) == 0 {
		return nil, fmt.Errorf("tf: marshal: no ids")
	}
	var b bytes.Buffer
	if err := writeIDs(&b, f.IDs); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeIDs(b *bytes.Buffer, ids []int32) error {
	for i, id := range ids {
		if id < 0 {
			return fmt.Errorf("tf: marshal: ids[%d] = %d is negative", i, id)
		}
		sep := " "
		if i%16 == 15 || i == len(ids)-1 {
			sep = "\n"
		}
		fmt.Fprintf(b, "%d%s", id, sep)
	}
	return nil
}

// Marshal encodes the file as Parse reads it, with a title comment and the
// header lines, sixteen ids a line.
func (f *File) Marshal(title string) ([]byte, error) {
	if f.Domain == "" || len(f.IDs) == 0 || f.SourceOffset < 0 {
		return nil, fmt.Errorf("tf: marshal %q: domain, ids and a non-negative source_offset are required", f.Domain)
	}
	for _, s := range []string{title, f.Domain, f.Source} {
		if strings.ContainsAny(s, "\r\n") {
			return nil, fmt.Errorf("tf: marshal %q: header text %q has a line break", f.Domain, s)
		}
	}
	var b bytes.Buffer
	if title != "" {
		fmt.Fprintf(&b, "# %s\n", title)
	}
	fmt.Fprintf(&b, "# domain: %s\n", f.Domain)
	if f.Source != "" {
		fmt.Fprintf(&b, "# source: %s\n", f.Source)
	}
	fmt.Fprintf(&b, "# source_offset: %d\n", f.SourceOffset)
	if err := writeIDs(&b, f.IDs); err != nil {
		return nil, fmt.Errorf("tf: marshal %q: %w", f.Domain, err)
	}
	return b.Bytes(), nil
}

// Manifest describes a checkout's TF files where the runner does not write
// it into them: the vocabulary that decodes them and, per file, its domain
// and the document its text was cut from. It is the spec's rules.tf.
type Manifest struct {
	// Vocab is the GGUF file holding the tokenizer, relative to the root.
	Vocab string  `json:"vocab"`
	Files []Entry `json:"files"`
	// Manifest is the runner's own manifest of its TF files, in TOML
	// (ReadManifest), relative to the root: its [[file]] tables are Files
	// too, and its vocab is Vocab when the spec gives none.
	Manifest string `json:"manifest,omitempty"`
	// Flags name the command-line flags by which a run gives its prompt
	// and scored token counts; default DefaultFlags.
	Flags *Flags `json:"flags,omitempty"`
	// Configs locates the runner's table whose rows are configurations
	// (keyed by name) listing their runs under "runs"; reports group the
	// TF runs by it. Without it each run is its own configuration.
	Configs *ConfigTable `json:"configs,omitempty"`
}

// ConfigTable locates a table of configurations in a results file.
type ConfigTable struct {
	File    string `json:"file,omitempty"`     // "" for the first results file
	Path    string `json:"path"`               // dotted JSON path
	RunsKey string `json:"runs_key,omitempty"` // the key listing a row's runs; default "runs"
}

// Flags are a TF run's token-count flags.
type Flags struct {
	Prompt string `json:"prompt"` // the prompt tokens (user turn and header)
	Gen    string `json:"gen"`    // the scored tokens
}

// DefaultFlags are the strata window CLI's: --n-prompt and --n-gen.
func DefaultFlags() Flags { return Flags{Prompt: "--n-prompt", Gen: "--n-gen"} }

// Entry is one TF file of a manifest.
type Entry struct {
	Path   string `json:"path"`
	Domain string `json:"domain,omitempty"`
	Source string `json:"source,omitempty"`
	// SourceOffset is the byte offset in Source where the user turn's text
	// starts; nil when not recorded.
	SourceOffset *int64 `json:"source_offset,omitempty"`
	// ListedLine is the line of the manifest file that lists the entry
	// (its path's, ReadManifest); 0 for an entry of the spec file, whose
	// place the spec gives.
	ListedLine int `json:"-"`
}

// Apply gives f the entry's domain, source and offset. A value the file's
// own header also gives must agree; a file must end up with a domain.
func (e Entry) Apply(f *File) error {
	for _, p := range []struct {
		what, entry string
		file        *string
	}{{"domain", e.Domain, &f.Domain}, {"source", e.Source, &f.Source}} {
		switch {
		case p.entry == "":
		case *p.file == "":
			*p.file = p.entry
		case *p.file != p.entry:
			return fmt.Errorf("tf: %s: the manifest's %s %q disagrees with the file's header %q", e.Path, p.what, p.entry, *p.file)
		}
	}
	if o := e.SourceOffset; o != nil {
		switch {
		case *o < 0:
			return fmt.Errorf("tf: %s: the manifest's source_offset %d is negative", e.Path, *o)
		case f.HasOffset && f.SourceOffset != *o:
			return fmt.Errorf("tf: %s: the manifest's source_offset %d disagrees with the file's header %d", e.Path, *o, f.SourceOffset)
		}
		f.SourceOffset, f.HasOffset = *o, true
	}
	if f.Domain == "" {
		return fmt.Errorf("tf: %s: no domain (give it in the manifest, rules.tf.files)", e.Path)
	}
	return nil
}
