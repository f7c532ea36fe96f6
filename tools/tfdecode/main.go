// Command tfdecode prints a teacher-forcing token file as its three segments
// (user turn, assistant header, scored span) with their decoded text, using a
// GGUF vocabulary:
//
//	go run ./tools/tfdecode -vocab fixtures/m5/data/vocab-synthetic-chatml.gguf \
//	    fixtures/m5/data/m5_val_prompts/eval_tf_96tok_ja.txt
//
// Texts are printed Go-quoted so that newlines and spaces show. -ids adds the
// ids of each segment.
//
// Only regular files are read: a FIFO, device or directory is refused
// without being opened (and the open is non-blocking, so that one swapped in
// meanwhile is refused too, never waited on). A token file over 64 MiB
// (MaxTF) is refused; of the vocabulary only the GGUF header is read, so its
// size is not limited (a model file serves).
//
// Exit status: 0 when every file has the layout, 1 when one does not (its
// whole text is printed instead), 2 for bad usage or a file that is refused
// or unreadable.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/strataspec/strataspec/engine/gguf"
	"github.com/strataspec/strataspec/engine/tf"
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

func run(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("tfdecode", flag.ContinueOnError)
	fs.SetOutput(stderr)
	vocabPath := fs.String("vocab", "", "GGUF file whose vocabulary decodes the ids (required)")
	showIDs := fs.Bool("ids", false, "print each segment's ids too")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tfdecode -vocab VOCAB.gguf [-ids] TFFILE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *vocabPath == "" || fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	v, err := readVocab(*vocabPath)
	if err != nil {
		fmt.Fprintln(stderr, "tfdecode:", err)
		return 2
	}
	status := 0
	for _, path := range fs.Args() {
		f, err := readTF(path)
		if err != nil {
			fmt.Fprintln(stderr, "tfdecode:", err)
			return 2
		}
		if !decode(stdout, f, v, *showIDs) {
			status = 1
		}
	}
	return status
}

// MaxTF is the largest token file read: a million ids take about 7 MB.
const MaxTF = 64 << 20

// readVocab reads the vocabulary at path: a GGUF file (its header only),
// or an id → piece table, .tsv or .json (engine/tf.ReadVocab).
func readVocab(path string) (*gguf.Vocab, error) {
	if ext := filepath.Ext(path); ext == ".tsv" || ext == ".json" {
		fh, _, err := openRegular(path, MaxTF)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		data, err := io.ReadAll(io.LimitReader(fh, MaxTF+1))
		if err != nil {
			return nil, err
		}
		return tf.ReadVocab(path, data)
	}
	fh, size, err := openRegular(path, -1)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	gf, err := gguf.Read(path, fh, size)
	if err != nil {
		return nil, err
	}
	return gf.Vocab()
}

// readTF reads the token file at path.
func readTF(path string) (*tf.File, error) {
	fh, size, err := openRegular(path, MaxTF)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(fh, data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tf.Parse(path, data)
}

// openRegular opens path for reading if it is a regular file of at most
// limit bytes (limit < 0: any size) and returns it with its size. The type is
// checked before the open, so a FIFO or device is never opened, and again on
// the file opened non-blocking (O_NONBLOCK changes nothing for a regular
// file's reads).
func openRegular(path string, limit int64) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s: not a regular file (%s)", path, st.Mode().Type())
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	if st, err = fh.Stat(); err != nil || !st.Mode().IsRegular() {
		fh.Close()
		if err == nil {
			err = fmt.Errorf("%s: not a regular file (%s)", path, st.Mode().Type())
		}
		return nil, 0, err
	}
	if limit >= 0 && st.Size() > limit {
		fh.Close()
		return nil, 0, fmt.Errorf("%s: %d bytes, over the %d-byte limit for a token file", path, st.Size(), limit)
	}
	return fh, st.Size(), nil
}

// decode prints one file and reports whether it has the TF layout.
func decode(w io.Writer, f *tf.File, v *gguf.Vocab, showIDs bool) bool {
	fmt.Fprintf(w, "%s: ", f.Path)
	if f.Domain != "" {
		fmt.Fprintf(w, "domain %s, ", f.Domain)
	}
	fmt.Fprintf(w, "%d ids", len(f.IDs))
	switch {
	case !f.HasOffset:
		fmt.Fprint(w, " (no source offset in the file; a checkout's manifest may give it)")
	case f.SourceOffset > 0:
		fmt.Fprintf(w, ", source_offset %d (the user turn starts mid-document)", f.SourceOffset)
	default:
		fmt.Fprintf(w, ", source_offset %d", f.SourceOffset)
	}
	fmt.Fprintln(w)
	l, err := tf.Find(f.IDs, v)
	if err != nil {
		fmt.Fprintf(w, "  no TF layout: %v\n", err)
		text, derr := v.Decode(f.IDs)
		if derr != nil {
			fmt.Fprintf(w, "  undecodable: %v\n", derr)
			return false
		}
		fmt.Fprintf(w, "  text %q\n", text)
		return false
	}
	for _, seg := range []struct {
		name string
		span tf.Span
	}{{"user", l.User}, {"header", l.Header}, {"scored", l.Scored}} {
		text, err := tf.Text(f.IDs, v, seg.span)
		if err != nil {
			fmt.Fprintf(w, "  %-6s %v\n", seg.name, err)
			return false
		}
		fmt.Fprintf(w, "  %-6s ids %2d–%2d (%2d): %q\n", seg.name, seg.span.Start, seg.span.End-1, seg.span.Len(), text)
		if showIDs {
			fmt.Fprintf(w, "  %-6s %v\n", "", f.IDs[seg.span.Start:seg.span.End])
		}
	}
	first := f.IDs[l.Scored.Start]
	fmt.Fprintf(w, "  first scored token: id %d %q (%s)", first, v.Tokens[first], v.Type(first))
	if tf.IsTemplateToken(v, first) {
		fmt.Fprint(w, ", a template token")
	}
	fmt.Fprintln(w)
	return true
}
