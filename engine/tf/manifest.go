package tf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strataspec/strataspec/engine/toml"
)

// manifestKeys are the keys a TOML manifest's [[file]] table may give: an
// Entry's fields, named as in the spec file's rules.tf.files.
var manifestKeys = []string{"path", "domain", "source", "source_offset"}

// ReadManifest reads a runner's own manifest of its TF files, in TOML (the
// file rules.tf.manifest names): an optional top-level vocab = "FILE" and
// one [[file]] table per token file with path (relative to the checkout's
// root), domain, source and source_offset, as rules.tf.files gives them.
// Anything else — another key or table, a value of another type, a
// [[file]] without a path, a negative offset — is an error naming the file,
// the line and the key, never a value guessed or dropped.
func ReadManifest(file string, data []byte) (vocab string, entries []Entry, err error) {
	root, err := toml.Parse(file, data)
	if err != nil {
		return "", nil, err
	}
	errAt := func(line int, format string, args ...any) error {
		return &toml.Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	for _, name := range root.Order {
		switch v := root.Keys[name]; {
		case name == "vocab" && v != nil:
			if v.Kind != toml.String {
				return "", nil, errAt(v.Line, "vocab: want string, found %s", v.Kind)
			}
			vocab = v.Str
		case name == "file" && root.Arrays[name] != nil:
		case v != nil:
			return "", nil, errAt(v.Line, "unknown key %q (a TF manifest holds vocab and [[file]] tables)", name)
		default:
			return "", nil, errAt(root.LineOf(name), "unknown table %q (a TF manifest holds vocab and [[file]] tables)", name)
		}
	}
	for i, t := range root.Arrays["file"] {
		e, err := manifestEntry(file, t)
		if err != nil {
			return "", nil, err
		}
		if e.Path == "" {
			return "", nil, errAt(t.Line, "[[file]] #%d has no path", i+1)
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		return "", nil, errAt(0, "no [[file]] table: the manifest lists no TF file")
	}
	return vocab, entries, nil
}

// manifestEntry reads one [[file]] table.
func manifestEntry(file string, t *toml.Table) (Entry, error) {
	var e Entry
	for _, name := range t.Order {
		v := t.Keys[name]
		if v == nil || !slices.Contains(manifestKeys, name) {
			return e, &toml.Error{File: file, Line: t.LineOf(name), Msg: fmt.Sprintf("[[file]]: unknown key %q (known: %s)", name, strings.Join(manifestKeys, ", "))}
		}
		want := toml.String
		if name == "source_offset" {
			want = toml.Int
		}
		if v.Kind != want {
			return e, &toml.Error{File: file, Line: v.Line, Msg: fmt.Sprintf("[[file]]: %s: want %s, found %s", name, want, v.Kind)}
		}
		switch name {
		case "path":
			e.Path, e.ListedLine = v.Str, v.Line
		case "domain":
			e.Domain = v.Str
		case "source":
			e.Source = v.Str
		case "source_offset":
			if v.Int < 0 {
				return e, &toml.Error{File: file, Line: v.Line, Msg: fmt.Sprintf("[[file]]: source_offset %d is below 0", v.Int)}
			}
			off := v.Int
			e.SourceOffset = &off
		}
	}
	return e, nil
}
