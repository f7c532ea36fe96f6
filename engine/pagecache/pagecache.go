// Package pagecache measures, evicts and warms a file's pages in the
// operating system's page cache, and verifies every eviction and warm-up by
// counting the file's resident pages before and after.
//
// The audit behind strataspec found an eviction helper that returned success
// and evicted nothing (mincore: 100 % resident before and after). Here no
// operation is trusted on its return code: Evict and Warm return a Result
// whose Verified field is set only from the residency measured afterwards.
// An eviction is verified only when no page of the file is resident
// afterwards: there is no tolerance. Every page that stayed is attributed to
// a reason in Result.Reasons, with the pages it covers (locked by pid N,
// mapped by pid N, tmpfs, dirty, unknown), or the whole result is
// unverifiable (the caller does not own the file and the count cannot be
// trusted).
//
// Only regular files on a file system with a page cache are accepted: the
// type is checked before the file is opened (a FIFO or a device is never
// opened), the open itself is non-blocking and the type is checked again on
// the open file; files of the kernel's pseudo file systems (procfs, sysfs,
// debugfs, cgroupfs, …, and devfs on darwin), which are "regular" but have
// no page cache, are refused with ErrNoPageCache rather than "verified" on
// 0 of 0 pages. An empty regular file has no page to be resident: its
// eviction and warm-up are verified on 0 of 0 pages. Files larger than
// MaxSize are refused.
//
// The package is read-only on the files it is given: they are opened
// O_RDONLY, mapped PROT_READ, and their content is never changed. An
// eviction starts no write-back unless asked (Options.Sync):
//   - Without Sync (the default), only the file's clean pages are dropped:
//     pages that are dirty (another writer's data not yet on disk) or under
//     write-back are found first (cachestat on Linux, mincore's
//     modified bits on darwin) and left out of the eviction, so the kernel
//     is never asked to write them; they stay resident and are reported as
//     ReasonDirty. Where Linux gives no cachestat (before 6.5, or to a
//     caller that does not own the file) dirty pages cannot be found and
//     the eviction is refused with ErrNeedSync.
//     A page dirtied in the instant between the check and the eviction may
//     still be written back by the kernel.
//   - With Sync, the file's dirty pages are written back first (fdatasync
//     on Linux, msync(MS_SYNC) on darwin) and then dropped with the rest.
//
// Which count is used when (Reading.Method says which one was):
//   - Linux 6.5 and later, whole-file readings (Residency without ranges,
//     and the before/after readings of Evict and Warm): cachestat(2), the
//     kernel's own count of the file's cached pages. It is exact, it does not
//     map the file, and on a 2 GiB file it takes a fraction of a millisecond
//     where mincore takes tens. The tests check it against mincore page for
//     page (TestMethodsAgree).
//   - Everywhere else: mincore, page by page, on a read-only shared mapping.
//     That is per-range readings, Options{Mincore: true}, a Linux kernel
//     without cachestat or one that refuses it (ENOSYS, EPERM: the count
//     falls back to mincore, TestNoCachestatFallsBack), files on overlayfs
//     and ecryptfs (where cachestat counts the stacked file's own, empty
//     cache: TestOverlay), and darwin.
//
// Linux calls the raw mincore system call (golang.org/x/sys has no wrapper),
// evicts with posix_fadvise(DONTNEED) and warms with sequential 1 MiB preads.
// darwin calls libSystem's mincore through purego and evicts with
// msync(MS_SYNC|MS_INVALIDATE) on a shared read-only mapping (on the runs of
// unmodified pages only, unless Sync); it was
// cross-compiled and vetted (GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet),
// not run. Other systems get an "unsupported on GOOS/GOARCH" error.
package pagecache

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Range is a byte range of a file: Len bytes from Off. A Len of 0 means "to
// the end of the file".
type Range struct {
	Off int64 `json:"off"`
	Len int64 `json:"len"`
}

// Count is a number of resident pages out of a total.
type Count struct {
	Resident int64 `json:"resident"`
	Total    int64 `json:"total"`
}

// Fraction returns Resident/Total, and 0 for an empty count.
func (c Count) Fraction() float64 {
	if c.Total == 0 {
		return 0
	}
	return float64(c.Resident) / float64(c.Total)
}

// String formats a count as "resident/total pages (percent %)".
func (c Count) String() string {
	return fmt.Sprintf("%d/%d pages (%.2f %%)", c.Resident, c.Total, 100*c.Fraction())
}

// RangeCount is the residency of one requested range.
type RangeCount struct {
	Range
	Count
}

// Reading is one measurement of which pages of one file are resident.
type Reading struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`      // bytes
	PageSize int    `json:"page_size"` // bytes
	Count           // whole file
	// Ranges holds the residency of each requested range, in request order.
	Ranges []RangeCount `json:"ranges,omitempty"`
	// Dirty counts pages that were dirty or under writeback when the reading
	// was taken (Linux 6.5 and later, through cachestat; 0 where unknown).
	// They cannot be evicted until written back.
	Dirty int64 `json:"dirty,omitempty"`
	// Tmpfs is set when the file lives on a memory file system (tmpfs,
	// ramfs): its pages cannot be evicted, only deleted.
	Tmpfs bool `json:"tmpfs,omitempty"`
	// Method is how the pages were counted: "mincore" (page by page, the
	// only method with per-range counts) or, for whole-file counts on Linux
	// 6.5 and later, "cachestat" (the kernel's count of the file's cached
	// pages; see Options).
	Method string `json:"method"`
	// Unverifiable, when not empty, says why this reading cannot be trusted
	// (on Linux, mincore reports every page resident to a caller that
	// neither owns the file nor may write it).
	Unverifiable string `json:"unverifiable,omitempty"`
}

// Reason says why pages stayed resident after an eviction (or why a result
// could not be verified).
type Reason string

// Reasons.
const (
	ReasonTmpfs           Reason = "tmpfs"            // memory file system: pages cannot leave
	ReasonLocked          Reason = "locked"           // mlocked by a process mapping the file
	ReasonMappedElsewhere Reason = "mapped elsewhere" // mapped by another process
	ReasonDirty           Reason = "dirty"            // modified (or under writeback), not yet on disk
	ReasonUnverifiable    Reason = "unverifiable"     // not the owner: mincore cannot be trusted for this caller
	ReasonUnknown         Reason = "unknown"          // stayed for a reason this package cannot see
)

// Stay attributes pages to a reason.
type Stay struct {
	Reason Reason `json:"reason"`
	Pages  int64  `json:"pages"`
	Detail string `json:"detail,omitempty"`
	// Spans lists the pages, in file order, as runs of consecutive page
	// numbers (0-based, page k holds bytes k×PageSize up to the next page).
	// It is empty for an unverifiable result, whose pages are unknown. It
	// holds at most MaxSpans runs; SpansOmitted counts the runs left out.
	Spans        []Span `json:"spans,omitempty"`
	SpansOmitted int64  `json:"spans_omitted,omitempty"`
}

// MaxSpans bounds the runs of pages a Stay lists, so that a file whose
// resident pages alternate with evicted ones cannot make a result of
// gigabytes; Pages still counts every page.
const MaxSpans = 1024

// Span is a run of consecutive pages, First to Last inclusive.
type Span struct {
	First int64 `json:"first"`
	Last  int64 `json:"last"`
}

// String formats a span as "page N" or "pages N-M".
func (s Span) String() string {
	if s.First == s.Last {
		return fmt.Sprintf("page %d", s.First)
	}
	return fmt.Sprintf("pages %d-%d", s.First, s.Last)
}

// Op names an operation.
type Op string

// Operations.
const (
	OpEvict Op = "evict"
	OpWarm  Op = "warm"
)

// MaxSize is the largest file the package measures, evicts or warms: 1 TiB,
// larger than any model file, whose mincore vector (one byte per 4 KiB page)
// is 256 MiB of memory.
const MaxSize = 1 << 40

// ErrNoPageCache is wrapped by the error for a file that has no page cache to
// measure: anything but a regular file (a directory, FIFO, socket or device)
// and the generated files of the kernel's pseudo file systems.
var ErrNoPageCache = errors.New("no page cache")

// ErrNeedSync is wrapped by the error of an eviction without Options.Sync
// where dirty pages cannot be told from clean ones (Linux without cachestat:
// before 6.5, or a kernel refusing it to a caller that does not own the
// file): evicting there would write the dirty pages back.
var ErrNeedSync = errors.New("dirty pages cannot be told from clean ones, and evicting would write them back: ask for write-back (Sync, residency -sync)")

// Result is a verified eviction or warm-up.
type Result struct {
	Op     Op      `json:"op"`
	Path   string  `json:"path"`
	Before Reading `json:"before"`
	After  Reading `json:"after"`
	// Verified is set from After alone: an eviction is verified when no page
	// is resident, a warm-up when every page is, and neither when the
	// reading is unverifiable.
	Verified bool `json:"verified"`
	// Sync is set when the eviction wrote dirty pages back first
	// (Options.Sync).
	Sync bool `json:"sync,omitempty"`
	// Reasons explains a result that was not verified: for an eviction, why
	// the remaining pages stayed, which pages they are (Stay.Spans), and
	// After is then a page-by-page mincore count whose resident pages the
	// reasons add up to; for a warm-up, why it fell short.
	Reasons []Stay        `json:"reasons,omitempty"`
	Bytes   int64         `json:"bytes"`      // bytes read by a warm-up
	Elapsed time.Duration `json:"elapsed_ns"` // time of the operation, measurements excluded
}

// ErrUnsupported is returned on systems without a page-cache implementation.
var ErrUnsupported = fmt.Errorf("pagecache: unsupported on %s/%s", runtime.GOOS, runtime.GOARCH)

// platform is what each operating system provides.
type platform interface {
	// noPageCache returns why the open regular file f has no page cache
	// (a pseudo file system's generated file), or "".
	noPageCache(f *os.File) string
	// measure reads the residency of f (size bytes) and of each range. With
	// quick set and no ranges it may count pages by a faster method than
	// mincore.
	measure(f *os.File, size int64, ranges []Range, quick bool) (Reading, error)
	// evict asks the system to drop f's clean pages from the cache, after
	// writing the dirty ones back when sync is set. Without sync it must
	// not cause a write-back: it leaves dirty pages out, or returns an
	// error wrapping ErrNeedSync when it cannot tell them.
	evict(f *os.File, size int64, sync bool) error
	// adviseSequential tells the system f is about to be read in order.
	adviseSequential(f *os.File)
	// explain counts f's resident pages page by page and attributes each to
	// a reason; before is the reading taken before the eviction. It returns
	// the page-by-page reading with the reasons.
	explain(f *os.File, size int64, before Reading) (Reading, []Stay, error)
}

// Options chooses how an operation counts pages. The zero value is what the
// package-level functions use: cachestat for whole-file counts where the
// kernel has it (Linux 6.5 and later), mincore otherwise.
type Options struct {
	// Mincore counts every reading page by page with mincore, even where the
	// kernel offers an exact count of the file's cached pages (cachestat,
	// Linux 6.5 and later) that is hundreds of times faster on large files.
	// Per-range readings and darwin always use mincore.
	Mincore bool
	// Sync makes Evict write the file's dirty pages back to disk first
	// (fdatasync on Linux, msync(MS_SYNC) on darwin), so that they can be
	// dropped too. Without it an eviction writes nothing back: dirty pages
	// stay resident and are reported (ReasonDirty).
	Sync bool
}

// Residency measures which of path's pages are resident, for the whole file
// and for each range given.
func Residency(path string, ranges ...Range) (Reading, error) {
	return Options{}.Residency(path, ranges...)
}

// Evict drops path's clean pages from the page cache and verifies, by
// counting them, that none remains. Dirty pages are not written back (see
// Options.Sync). A result that is not verified is not an error: its Reasons
// say why pages stayed, and which. Errors are for files that cannot be
// opened, mapped or measured, files with no page cache (ErrNoPageCache), and
// systems that cannot evict without writing back (ErrNeedSync).
func Evict(path string) (Result, error) {
	return Options{}.Evict(path)
}

// Warm reads path sequentially in 1 MiB preads, which brings every page into
// the page cache (posix_fadvise(WILLNEED) or madvise(WILLNEED) only start a
// bounded read-ahead), and verifies that every page is resident. If the
// kernel reclaimed pages before they were counted, the file is read again,
// at most three passes in all; the result is the last count.
func Warm(path string) (Result, error) {
	return Options{}.Warm(path)
}

// Residency is the package's Residency, counting as o says.
func (o Options) Residency(path string, ranges ...Range) (Reading, error) {
	if host == nil {
		return Reading{}, ErrUnsupported
	}
	return residency(host, path, ranges, !o.Mincore)
}

// Evict is the package's Evict, counting as o says.
func (o Options) Evict(path string) (Result, error) {
	if host == nil {
		return Result{}, ErrUnsupported
	}
	return evict(host, path, !o.Mincore, o.Sync)
}

// Warm is the package's Warm, counting as o says.
func (o Options) Warm(path string) (Result, error) {
	if host == nil {
		return Result{}, ErrUnsupported
	}
	return warm(host, path, !o.Mincore)
}

// open opens path read-only and checks that it is a regular file with a
// page cache, no larger than MaxSize. The type is checked before the open, so
// that a FIFO or device is never opened, and again on the open file (opened
// O_NONBLOCK, so that a FIFO swapped in between cannot block the open).
// O_NONBLOCK changes nothing for a regular file: its reads still wait for
// the disk.
func open(p platform, path string) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("pagecache: %w", err)
	}
	if err := regular(path, st); err != nil {
		return nil, 0, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("pagecache: %w", err)
	}
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("pagecache: %w", err)
	}
	if err := regular(path, st); err != nil {
		f.Close()
		return nil, 0, err
	}
	if why := p.noPageCache(f); why != "" {
		f.Close()
		return nil, 0, fmt.Errorf("pagecache: %s: %w: %s", path, ErrNoPageCache, why)
	}
	if st.Size() > MaxSize {
		f.Close()
		return nil, 0, fmt.Errorf("pagecache: %s: %d bytes, larger than the %d-byte limit (MaxSize)", path, st.Size(), int64(MaxSize))
	}
	return f, st.Size(), nil
}

// regular returns an error wrapping ErrNoPageCache unless st is a regular
// file's.
func regular(path string, st os.FileInfo) error {
	m := st.Mode()
	var what string
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a directory"
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		what = "a socket"
	case m&os.ModeDevice != 0:
		what = "a device"
	default:
		what = "a " + m.Type().String() + " file"
	}
	return fmt.Errorf("pagecache: %s: %w: %s, not a regular file", path, ErrNoPageCache, what)
}

func residency(p platform, path string, ranges []Range, quick bool) (Reading, error) {
	f, size, err := open(p, path)
	if err != nil {
		return Reading{}, err
	}
	defer f.Close()
	if err := checkRanges(path, size, ranges); err != nil {
		return Reading{}, err
	}
	return p.measure(f, size, ranges, quick)
}

func evict(p platform, path string, quick, sync bool) (Result, error) {
	f, size, err := open(p, path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	res := Result{Op: OpEvict, Path: path, Sync: sync}
	if res.Before, err = p.measure(f, size, nil, quick); err != nil {
		return res, err
	}
	start := time.Now()
	if err := p.evict(f, size, sync); err != nil {
		return res, fmt.Errorf("pagecache: evict %s: %w", path, err)
	}
	res.Elapsed = time.Since(start)
	if res.After, err = p.measure(f, size, nil, quick); err != nil {
		return res, err
	}
	if res.After.Unverifiable == "" && res.After.Resident > 0 {
		// Name every page that stayed: count again page by page.
		if res.After, res.Reasons, err = p.explain(f, size, res.Before); err != nil {
			return res, err
		}
	}
	a := res.After
	res.Verified = a.Unverifiable == "" && a.Resident == 0
	if a.Unverifiable != "" {
		res.Reasons = []Stay{{Reason: ReasonUnverifiable, Pages: a.Resident, Detail: a.Unverifiable}}
	}
	return res, nil
}

func warm(p platform, path string, quick bool) (Result, error) {
	f, size, err := open(p, path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	res := Result{Op: OpWarm, Path: path}
	if res.Before, err = p.measure(f, size, nil, quick); err != nil {
		return res, err
	}
	start := time.Now()
	p.adviseSequential(f)
	// A page the kernel reclaims between the read and the count (memory
	// pressure from other work) is read again: up to warmPasses passes, each
	// counted. Reads of pages still cached cost a copy, not a disk read.
	for pass := 1; ; pass++ {
		n, err := readAll(f)
		res.Bytes += n
		if err != nil {
			return res, fmt.Errorf("pagecache: warm %s: %w", path, err)
		}
		if res.After, err = p.measure(f, size, nil, quick); err != nil {
			return res, err
		}
		if res.After.Unverifiable != "" || res.After.Resident == res.After.Total || pass == warmPasses {
			break
		}
	}
	res.Elapsed = time.Since(start)
	a := res.After
	n := res.Bytes
	res.Verified = a.Unverifiable == "" && a.Resident == a.Total
	switch {
	case a.Unverifiable != "":
		res.Reasons = []Stay{{Reason: ReasonUnverifiable, Pages: a.Total, Detail: a.Unverifiable}}
	case !res.Verified:
		res.Reasons = []Stay{{Reason: ReasonUnknown, Pages: a.Total - a.Resident,
			Detail: fmt.Sprintf("read %d bytes but pages were not kept (memory pressure?)", n)}}
	}
	return res, nil
}

// warmPasses bounds the read passes of a warm-up.
const warmPasses = 3

// warmChunk is the size of each pread of a warm-up.
const warmChunk = 1 << 20

// readAll reads f from start to end in warmChunk preads and returns the
// number of bytes read. The data goes to a buffer that is overwritten and
// never looked at: the reads themselves are the effect.
func readAll(f *os.File) (int64, error) {
	buf := make([]byte, warmChunk)
	var off int64
	for {
		n, err := f.ReadAt(buf, off)
		off += int64(n)
		if errors.Is(err, io.EOF) {
			return off, nil
		}
		if err != nil {
			return off, err
		}
	}
}

// checkRanges rejects ranges outside the file.
func checkRanges(path string, size int64, ranges []Range) error {
	for i, r := range ranges {
		if r.Off < 0 || r.Len < 0 || r.Off > size || r.Len > size-r.Off {
			return fmt.Errorf("pagecache: %s: range %d (off %d, len %d) outside the file (%d bytes)", path, i, r.Off, r.Len, size)
		}
	}
	return nil
}

// pages returns the page interval [first, end) that a range covers.
func pages(r Range, size int64, pageSize int) (first, end int64) {
	ps := int64(pageSize)
	n := r.Len
	if n == 0 {
		n = size - r.Off
	}
	if n == 0 {
		return r.Off / ps, r.Off / ps
	}
	return r.Off / ps, (r.Off + n + ps - 1) / ps
}

// tally builds a Reading from a mincore vector: one byte per page, bit 0 set
// when the page is resident.
func tally(path string, size int64, pageSize int, vec []byte, ranges []Range) Reading {
	r := Reading{Path: path, Size: size, PageSize: pageSize, Method: "mincore"}
	r.Total = int64(len(vec))
	for _, b := range vec {
		r.Resident += int64(b & 1)
	}
	for _, rg := range ranges {
		first, end := pages(rg, size, pageSize)
		c := Count{Total: end - first}
		for _, b := range vec[first:end] {
			c.Resident += int64(b & 1)
		}
		r.Ranges = append(r.Ranges, RangeCount{Range: rg, Count: c})
	}
	return r
}

// attribute groups the resident pages of a mincore vector by the reason
// classify gives each (a reason and a detail, such as the pids that lock the
// page), in order of first appearance, with their spans.
func attribute(vec []byte, classify func(page int64) (Reason, string)) []Stay {
	type key struct {
		r Reason
		d string
	}
	var order []key
	stays := map[key]*Stay{}
	last := map[key]int64{} // last page of each key
	for i, b := range vec {
		if b&1 == 0 {
			continue
		}
		p := int64(i)
		r, d := classify(p)
		k := key{r, d}
		s := stays[k]
		if s == nil {
			s = &Stay{Reason: r, Detail: d}
			stays[k] = s
			order = append(order, k)
		}
		s.Pages++
		switch n := len(s.Spans); {
		case n > 0 && s.Spans[n-1].Last == p-1 && s.SpansOmitted == 0:
			s.Spans[n-1].Last = p
		case n < MaxSpans:
			s.Spans = append(s.Spans, Span{p, p})
		case last[k] != p-1:
			s.SpansOmitted++
		}
		last[k] = p
	}
	out := make([]Stay, 0, len(order))
	for _, k := range order {
		s := *stays[k]
		s.Detail = joinDetail(s.Detail, spansText(s.Spans, s.SpansOmitted))
		out = append(out, s)
	}
	return out
}

// maxSpansText bounds the spans a Stay's Detail lists; Spans has them all.
const maxSpansText = 8

// spansText lists spans as "pages 0-511, page 700", at most maxSpansText,
// and how many more runs there are (omitted: runs not in spans at all).
func spansText(spans []Span, omitted int64) string {
	var parts []string
	for i, s := range spans {
		if i == maxSpansText {
			break
		}
		parts = append(parts, s.String())
	}
	if more := int64(len(spans)-len(parts)) + omitted; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more runs", more))
	}
	return strings.Join(parts, ", ")
}

func joinDetail(detail, pages string) string {
	if detail == "" {
		return pages
	}
	return detail + ": " + pages
}
