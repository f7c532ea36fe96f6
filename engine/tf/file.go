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
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// File is one TF token file. On disk it is text: header lines "# key: value"
// (keys domain, source, source_offset; other "#" lines are comments), then
// the token ids as decimal integers separated by white space:
//
//	# eval_tf_96tok_ja: teacher-forcing token ids
//	# domain: ja
//	# source: synthetic Q&A page
//	# source_offset: 7421
//	248045 872 198 …
//
// domain and source_offset are required; a key given twice or a malformed id
// is an error naming the file and line. Other "#" lines, and "#" lines after
// the first id, are comments.
type File struct {
	Path   string // the path it was read from
	Domain string
	// Source names the document the tokens were cut from.
	Source string
	// SourceOffset is the byte offset in that document where the user turn's
	// text starts: greater than zero means the turn starts mid-document.
	SourceOffset int64
	IDs          []int32
	// IDLine is the file line of each id, for findings that point at one.
	IDLine []int
}

// Read reads a TF file.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tf: %w", err)
	}
	return Parse(path, data)
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
	offsetLine := 0
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
				f.SourceOffset = off
				offsetLine = n
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
	switch {
	case f.Domain == "":
		return nil, fmt.Errorf("tf: %s: missing header \"# domain:\"", name)
	case offsetLine == 0:
		return nil, fmt.Errorf("tf: %s: missing header \"# source_offset:\"", name)
	case len(f.IDs) == 0:
		return nil, fmt.Errorf("tf: %s: no token ids", name)
	}
	return f, nil
}

// Marshal encodes the file as Parse reads it, with a title comment, sixteen
// ids a line.
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
	for i, id := range f.IDs {
		if id < 0 {
			return nil, fmt.Errorf("tf: marshal %q: ids[%d] = %d is negative", f.Domain, i, id)
		}
		sep := " "
		if i%16 == 15 || i == len(f.IDs)-1 {
			sep = "\n"
		}
		fmt.Fprintf(&b, "%d%s", id, sep)
	}
	return b.Bytes(), nil
}
