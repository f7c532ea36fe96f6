// Package snapfs is the one place the audit reads a snapshot's files. A
// snapshot is untrusted input (a pull request may hold anything), so every
// read goes through an FS confined to the snapshot root with os.Root:
// no path, ".." or symbolic link reaches outside it. Only regular files are
// read, each kind of input with its size limit, and a file that is not
// regular (a FIFO, a device, a directory) is refused before it is opened for
// reading, so a FIFO cannot block the audit.
//
// Errors name the file by its path relative to the root and never quote the
// content of a file outside it.
package snapfs

import (
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/strataspec/strataspec/engine/finding"
)

// Size limits per kind of input. They are generous for real data (the
// largest real inputs are output tails of a few megabytes and results files
// of tens) and small enough that a hostile snapshot cannot exhaust memory.
const (
	LimitText    int64 = 64 << 20  // spec files, sidecars, recorded mtimes
	LimitResults int64 = 512 << 20 // results JSON / JSONL, logs
	LimitData    int64 = 256 << 20 // files a run or the spec names: PLAN.md, PLAN.claims, sources, prompts, token files, vocabularies
)

// Limits bound what one audit reads, so that a hostile snapshot cannot
// make memory or time grow past what its files justify. Each has a flag of
// the main program that raises it; zero in a field means its default.
type Limits struct {
	Bytes      int64 // bytes read from the snapshot in all, each file counted once (-max-bytes)
	Logs       int   // log files the spec's log globs match (-max-logs)
	Runs       int   // runs, from records and logs (-max-runs)
	Metrics    int   // metrics parsed from one run's output (-max-metrics)
	ClaimsRows int   // rows of PLAN.claims (-max-claims-rows)
}

// DefaultLimits are the limits of an audit that names none: far above any
// real snapshot (the largest holds tens of runs and a hundred claims rows).
var DefaultLimits = Limits{Bytes: 2 << 30, Logs: 100_000, Runs: 100_000, Metrics: 1_000_000, ClaimsRows: 10_000}

// WithDefaults returns l with each zero field set to its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	if l.Bytes > 0 {
		d.Bytes = l.Bytes
	}
	if l.Logs > 0 {
		d.Logs = l.Logs
	}
	if l.Runs > 0 {
		d.Runs = l.Runs
	}
	if l.Metrics > 0 {
		d.Metrics = l.Metrics
	}
	if l.ClaimsRows > 0 {
		d.ClaimsRows = l.ClaimsRows
	}
	return d
}

// LimitError is an input over one of the Limits: the audit stops (exit 2)
// naming the file, the limit and the flag that raises it.
type LimitError struct {
	File  string // the file where the limit was passed, relative to the root
	What  string // what was counted: "runs", "bytes read", ...
	Limit int64
	Flag  string // the main program's flag raising it, e.g. "-max-runs"
}

// Pos returns the error's place: the file where the limit was passed.
func (e *LimitError) Pos() finding.Pos { return finding.Pos{File: e.File} }

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: more than %d %s: over the limit (raise it with %s N)", e.File, e.Limit, e.What, e.Flag)
}

// FS reads files below one directory and nowhere else.
type FS struct {
	dir    string
	root   *os.Root
	limits Limits

	mu   sync.Mutex
	read map[string]bool // files counted against Limits.Bytes
	n    int64           // bytes counted
}

// Open returns an FS confined to dir, with the default limits.
func Open(dir string) (*FS, error) { return OpenLimits(dir, Limits{}) }

// OpenLimits returns an FS confined to dir that reads within lim (zero
// fields: their defaults).
func OpenLimits(dir string, lim Limits) (*FS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("snapshot root: %w", err)
	}
	return &FS{dir: dir, root: r, limits: lim.WithDefaults(), read: map[string]bool{}}, nil
}

// Limits returns the limits the FS reads within.
func (f *FS) Limits() Limits { return f.limits }

// count charges the first read of file (size bytes) to Limits.Bytes.
func (f *FS) count(file string, size int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.read[file] {
		return nil
	}
	if f.n+size > f.limits.Bytes {
		return &LimitError{File: file, What: "bytes read from the snapshot in all", Limit: f.limits.Bytes, Flag: "-max-bytes"}
	}
	f.read[file] = true
	f.n += size
	return nil
}

// Dir returns the directory the FS was opened on, as given.
func (f *FS) Dir() string { return f.dir }

// Close releases the root's directory handle.
func (f *FS) Close() error { return f.root.Close() }

// Error is a refused or failed read, naming the file relative to the root.
type Error struct {
	File string // relative to the snapshot root, slash-separated
	Msg  string
	Err  error // the underlying error, if any
}

func (e *Error) Error() string { return e.File + ": " + e.Msg }

// Pos returns the error's place: the file.
func (e *Error) Pos() finding.Pos { return finding.Pos{File: e.File} }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ErrOutside is matched (errors.Is) by an Error for a path outside the root.
var ErrOutside = errors.New("outside the snapshot")

// Clean checks that rel names a place inside the root and returns it
// cleaned and slash-separated. Absolute paths and paths that climb out with
// ".." are refused with ErrOutside.
func Clean(rel string) (string, error) {
	if rel == "" {
		return "", &Error{File: rel, Msg: "empty path"}
	}
	p := filepath.ToSlash(rel)
	if path.IsAbs(p) || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		return "", &Error{File: rel, Msg: "absolute path: outside the snapshot, not read", Err: ErrOutside}
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", &Error{File: rel, Msg: "climbs out of the snapshot: not read", Err: ErrOutside}
	}
	return c, nil
}

func (f *FS) wrap(rel string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	msg := "cannot be read"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg = "does not exist"
		if st, lerr := f.root.Lstat(rel); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			msg = "a symbolic link that leads nowhere"
		}
	case errors.Is(err, fs.ErrPermission):
		msg = "permission denied"
	case strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes"):
		// os.Root's error for a link or path that leaves the root.
		return &Error{File: rel, Msg: "leads outside the snapshot (through a symbolic link or ..): not read", Err: ErrOutside}
	}
	// The OS error's text names the path we gave, which is relative to
	// the root; keep only its final cause.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &Error{File: rel, Msg: msg + ": " + pe.Err.Error(), Err: err}
	}
	return &Error{File: rel, Msg: msg, Err: err}
}

// Stat returns the file's information, following links inside the root.
func (f *FS) Stat(rel string) (fs.FileInfo, error) {
	c, err := Clean(rel)
	if err != nil {
		return nil, err
	}
	st, err := f.root.Stat(c)
	if err != nil {
		return nil, f.wrap(c, err)
	}
	return st, nil
}

// Present reports whether rel names something inside the root: false with
// no error only when nothing is there. A path that leads outside the root (a
// symbolic link out, "..") or cannot be examined is an error, so a reader
// that treats a missing input as optional does not silently skip one that
// is present but refused.
func (f *FS) Present(rel string) (bool, error) {
	_, err := f.Stat(rel)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrOutside):
		// A link at the name that leads nowhere is present, and broken.
		if c, cerr := Clean(rel); cerr == nil {
			if st, lerr := f.root.Lstat(c); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
				return false, &Error{File: c, Msg: "a symbolic link that leads nowhere", Err: err}
			}
		}
		return false, nil
	}
	return false, err
}

// Exists reports whether rel names something readable inside the root. A
// path outside the root does not exist for the audit; readers of optional
// inputs use Present, which tells the two apart.
func (f *FS) Exists(rel string) bool {
	_, err := f.Stat(rel)
	return err == nil
}

// ReadFile reads the regular file rel, refusing anything else and any file
// larger than limit bytes.
func (f *FS) ReadFile(rel string, limit int64) ([]byte, error) {
	h, c, size, err := f.openRegular(rel, limit)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	// One buffer of the file's size (and a byte to see it grew), not
	// io.ReadAll's doublings: a 500 MB log costs 500 MB, not up to twice.
	b := make([]byte, 0, size+1)
	b, err = readAll(io.LimitReader(h, limit+1), b)
	if err != nil {
		return nil, f.wrap(c, err)
	}
	if int64(len(b)) > limit {
		return nil, &Error{File: c, Msg: fmt.Sprintf("over the limit of %d bytes for this kind of input", limit)}
	}
	return b, nil
}

// ReadText is ReadFile for a text kept as a string (a log): it is read
// into the string directly, not into bytes then copied, so a log costs its
// size once. When sum is not nil the bytes read are written to it too.
func (f *FS) ReadText(rel string, limit int64, sum hash.Hash) (string, error) {
	h, c, size, err := f.openRegular(rel, limit)
	if err != nil {
		return "", err
	}
	defer h.Close()
	var b strings.Builder
	b.Grow(int(size))
	var w io.Writer = &b
	if sum != nil {
		w = io.MultiWriter(&b, sum)
	}
	n, err := io.CopyBuffer(w, io.LimitReader(h, limit+1), make([]byte, 256<<10))
	if err != nil {
		return "", f.wrap(c, err)
	}
	if n > limit {
		return "", &Error{File: c, Msg: fmt.Sprintf("over the limit of %d bytes for this kind of input", limit)}
	}
	return b.String(), nil
}

// openRegular opens the regular file rel for reading, refusing anything
// else, a file larger than limit and a read past Limits.Bytes; it returns
// the file, its cleaned name and its size.
func (f *FS) openRegular(rel string, limit int64) (*os.File, string, int64, error) {
	c, err := Clean(rel)
	if err != nil {
		return nil, "", 0, err
	}
	st, err := f.root.Stat(c)
	if err != nil {
		return nil, c, 0, f.wrap(c, err)
	}
	if !st.Mode().IsRegular() {
		return nil, c, 0, &Error{File: c, Msg: fmt.Sprintf("not a regular file (%s): not read", kind(st.Mode()))}
	}
	if st.Size() > limit {
		return nil, c, 0, &Error{File: c, Msg: fmt.Sprintf("%d bytes, over the limit of %d for this kind of input", st.Size(), limit)}
	}
	// O_NONBLOCK: if the file was swapped for a FIFO since the Stat, the
	// open does not wait for a writer; the Stat below refuses it.
	h, err := f.root.OpenFile(c, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, c, 0, f.wrap(c, err)
	}
	hst, err := h.Stat()
	if err != nil {
		h.Close()
		return nil, c, 0, f.wrap(c, err)
	}
	if !hst.Mode().IsRegular() {
		h.Close()
		return nil, c, 0, &Error{File: c, Msg: fmt.Sprintf("not a regular file (%s): not read", kind(hst.Mode()))}
	}
	if err := f.count(c, hst.Size()); err != nil {
		h.Close()
		return nil, c, 0, err
	}
	return h, c, min(hst.Size(), limit), nil
}

// readAll reads r to its end into b, growing it only past its capacity.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return m.Type().String()
}

// Glob returns the names inside the root matching the slash-separated
// pattern (path.Match syntax, plus "**" for any number of directories),
// sorted. Symbolic links are listed as found; reading one that leads
// outside fails in ReadFile.
func (f *FS) Glob(pattern string) ([]string, error) {
	c, err := Clean(pattern)
	if err != nil {
		return nil, err
	}
	for _, part := range strings.Split(c, "/") {
		if _, err := path.Match(part, ""); err != nil {
			return nil, &Error{File: pattern, Msg: "bad pattern", Err: err}
		}
	}
	var out []string
	if !strings.Contains(c, "**") {
		m, err := fs.Glob(f.root.FS(), c)
		if err != nil {
			return nil, &Error{File: pattern, Msg: "bad pattern", Err: err}
		}
		out = m
	} else {
		err = fs.WalkDir(f.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // an unreadable directory matches nothing
			}
			// A link the walk does not follow, where the pattern would
			// match it or files under it, that leads outside the root is
			// refused naming it: never skipped in silence.
			if d.Type()&fs.ModeSymlink != 0 && couldMatch(strings.Split(c, "/"), strings.Split(p, "/")) {
				if _, err := f.Stat(p); errors.Is(err, ErrOutside) {
					return err
				}
			}
			if ok, _ := MatchPath(c, p); ok && !d.IsDir() {
				out = append(out, p)
			}
			return nil
		})
		if errors.Is(err, ErrOutside) {
			return nil, err
		}
		if err != nil {
			return nil, &Error{File: pattern, Msg: "walk", Err: err}
		}
		slices.Sort(out)
	}
	if len(out) == 0 {
		// A folder on the pattern's way that leads outside the root matches
		// nothing; say why instead of an empty match.
		if dir := staticDir(c); dir != "." {
			if _, err := f.Stat(dir); errors.Is(err, ErrOutside) {
				return nil, err
			}
		}
	}
	return out, nil
}

// staticDir is the part of a pattern before its first element with a
// metacharacter, "." when the first element has one.
func staticDir(pattern string) string {
	parts := strings.Split(pattern, "/")
	n := 0
	for n < len(parts)-1 && !strings.ContainsAny(parts[n], "*?[\\") {
		n++
	}
	if n == 0 {
		return "."
	}
	return path.Join(parts[:n]...)
}

// MatchPath reports whether the slash-separated name matches pattern, where
// "**" as a whole element matches any number of elements and other elements
// match as path.Match does.
func MatchPath(pattern, name string) (bool, error) {
	return matchParts(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

// couldMatch reports whether the pattern ps matches ns or a name below it.
func couldMatch(ps, ns []string) bool {
	for ; len(ns) > 0; ps, ns = ps[1:], ns[1:] {
		if len(ps) == 0 {
			return false
		}
		if ps[0] == "**" {
			return true
		}
		if ok, _ := path.Match(ps[0], ns[0]); !ok {
			return false
		}
	}
	return true
}

func matchParts(ps, ns []string) (bool, error) {
	for len(ps) > 0 {
		if ps[0] == "**" {
			for i := 0; i <= len(ns); i++ {
				if ok, err := matchParts(ps[1:], ns[i:]); ok || err != nil {
					return ok, err
				}
			}
			return false, nil
		}
		if len(ns) == 0 {
			return false, nil
		}
		ok, err := path.Match(ps[0], ns[0])
		if !ok || err != nil {
			return false, err
		}
		ps, ns = ps[1:], ns[1:]
	}
	return len(ns) == 0, nil
}

// Resolve maps a path as a run recorded it (an argv entry, a provenance
// path) to a path inside the snapshot. A relative path is taken relative to
// the root. An absolute path is looked up under machineDir (the folder that
// stands for the audited machine's file system root, itself inside the
// root), when one is declared. ok is false for a path that leads outside:
// such a path is data to report, never to open.
func Resolve(recorded, machineDir string) (rel string, ok bool) {
	p := filepath.ToSlash(recorded)
	if path.IsAbs(p) {
		if machineDir == "" {
			return "", false
		}
		c := path.Clean(p) // "/../../etc" cleans to "/etc": inside machineDir
		p = path.Join(machineDir, c)
		if _, err := Clean(machineDir); err != nil {
			return "", false
		}
	}
	c, err := Clean(p)
	if err != nil {
		return "", false
	}
	return c, true
}

// WriteFile writes data to the file rel inside the root atomically (a
// temporary file in the same folder, synced, then renamed over rel), for the
// one writer of a checkout's files: `go test ./spec -update` rewriting the
// checkout's golden reports. Missing folders are created. Nothing is written
// through a symbolic link: a link at rel or at any folder on its way is
// refused naming it, as is a path outside the root and a name that is not a
// regular file (a FIFO, a directory); the old file, if any, is untouched on
// error.
func (f *FS) WriteFile(rel string, data []byte) (err error) {
	c, err := Clean(rel)
	if err != nil {
		return err
	}
	if c == "." {
		return &Error{File: rel, Msg: "names the snapshot root, not a file"}
	}
	parts := strings.Split(c, "/")
	for i := range parts {
		p := path.Join(parts[:i+1]...)
		st, err := f.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			break // nothing there yet: created below, inside the root
		}
		if err != nil {
			return f.wrap(p, err)
		}
		switch last := i == len(parts)-1; {
		case st.Mode()&fs.ModeSymlink != 0:
			return &Error{File: p, Msg: "a symbolic link: not written through", Err: ErrOutside}
		case !last && !st.IsDir():
			return &Error{File: p, Msg: fmt.Sprintf("not a directory (%s): not written", kind(st.Mode()))}
		case last && !st.Mode().IsRegular():
			return &Error{File: p, Msg: fmt.Sprintf("not a regular file (%s): not written", kind(st.Mode()))}
		}
	}
	dir := path.Dir(c)
	if err := f.root.MkdirAll(dir, 0o755); err != nil {
		return f.wrap(dir, err)
	}
	tmp := path.Join(dir, "."+path.Base(c)+".tmp"+strconv.FormatInt(time.Now().UnixNano(), 36))
	h, err := f.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return f.wrap(tmp, err)
	}
	defer func() {
		if err != nil {
			h.Close()
			f.root.Remove(tmp)
		}
	}()
	if _, err = h.Write(data); err != nil {
		return f.wrap(tmp, err)
	}
	if err = h.Sync(); err != nil {
		return f.wrap(tmp, err)
	}
	if err = h.Close(); err != nil {
		return f.wrap(tmp, err)
	}
	if err = f.root.Rename(tmp, c); err != nil {
		return f.wrap(c, err)
	}
	return nil
}
