// Package pagecache measures, evicts and warms a file's pages in the
// operating system's page cache, and verifies every eviction and warm-up by
// counting the file's resident pages before and after.
//
// The audit behind strataspec found an eviction helper that returned success
// and evicted nothing (mincore: 100 % resident before and after). Here no
// operation is trusted on its return code: Evict and Warm return a Result
// whose Verified field is set only from the residency measured afterwards,
// and whose Reasons say why pages stayed (tmpfs, locked, mapped elsewhere,
// dirty) or why the measurement cannot be trusted (unverifiable).
//
// The package is read-only on the files it is given: they are opened
// O_RDONLY, mapped PROT_READ, and nothing is ever written to them.
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
//     falls back to mincore, TestNoCachestatFallsBack), and darwin.
//
// Linux calls the raw mincore system call (golang.org/x/sys has no wrapper),
// evicts with posix_fadvise(DONTNEED) and warms with sequential 1 MiB preads.
// darwin calls libSystem's mincore through purego and evicts with
// msync(MS_SYNC|MS_INVALIDATE) on a shared read-only mapping; it was
// cross-compiled and vetted (GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet),
// not run. Other systems get an "unsupported on GOOS/GOARCH" error.
package pagecache

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
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
	ReasonUnverifiable    Reason = "unverifiable"     // mincore cannot be trusted for this caller
	ReasonUnknown         Reason = "unknown"          // stayed for a reason this package cannot see
)

// Stay attributes pages to a reason.
type Stay struct {
	Reason Reason `json:"reason"`
	Pages  int64  `json:"pages"`
	Detail string `json:"detail,omitempty"`
}

// Op names an operation.
type Op string

// Operations.
const (
	OpEvict Op = "evict"
	OpWarm  Op = "warm"
)

// EvictTolerance is the largest resident fraction after which an eviction
// still counts as verified: at most 1 % of the file's pages.
const EvictTolerance = 0.01

// Result is a verified eviction or warm-up.
type Result struct {
	Op     Op      `json:"op"`
	Path   string  `json:"path"`
	Before Reading `json:"before"`
	After  Reading `json:"after"`
	// Verified is set from After alone: an eviction is verified when at most
	// EvictTolerance of the pages are resident, a warm-up when every page is,
	// and neither when the reading is unverifiable.
	Verified bool `json:"verified"`
	// Reasons explains a result that was not verified: for an eviction, why
	// the remaining pages stayed; for a warm-up, why it fell short.
	Reasons []Stay        `json:"reasons,omitempty"`
	Bytes   int64         `json:"bytes"`      // bytes read by a warm-up
	Elapsed time.Duration `json:"elapsed_ns"` // time of the operation, measurements excluded
}

// ErrUnsupported is returned on systems without a page-cache implementation.
var ErrUnsupported = fmt.Errorf("pagecache: unsupported on %s/%s", runtime.GOOS, runtime.GOARCH)

// platform is what each operating system provides.
type platform interface {
	// measure reads the residency of f (size bytes) and of each range. With
	// quick set and no ranges it may count pages by a faster method than
	// mincore.
	measure(f *os.File, size int64, ranges []Range, quick bool) (Reading, error)
	// evict asks the system to drop f's clean pages from the cache.
	evict(f *os.File, size int64) error
	// adviseSequential tells the system f is about to be read in order.
	adviseSequential(f *os.File)
	// explain attributes the resident pages of after to reasons; before is
	// the reading taken before the eviction.
	explain(f *os.File, before, after Reading) []Stay
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
}

// Residency measures which of path's pages are resident, for the whole file
// and for each range given.
func Residency(path string, ranges ...Range) (Reading, error) {
	return Options{}.Residency(path, ranges...)
}

// Evict drops path's pages from the page cache and verifies, by counting
// them, that at most EvictTolerance of them remain. A result that is not
// verified is not an error: its Reasons say why pages stayed. Errors are for
// files that cannot be opened, mapped or measured.
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
	return evict(host, path, !o.Mincore)
}

// Warm is the package's Warm, counting as o says.
func (o Options) Warm(path string) (Result, error) {
	if host == nil {
		return Result{}, ErrUnsupported
	}
	return warm(host, path, !o.Mincore)
}

// open opens path read-only and checks that it is a regular file.
func open(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("pagecache: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("pagecache: %w", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		what := "not a regular file"
		if st.IsDir() {
			what = "a directory, not a regular file"
		}
		return nil, 0, fmt.Errorf("pagecache: %s: %s", path, what)
	}
	return f, st.Size(), nil
}

func residency(p platform, path string, ranges []Range, quick bool) (Reading, error) {
	f, size, err := open(path)
	if err != nil {
		return Reading{}, err
	}
	defer f.Close()
	if err := checkRanges(path, size, ranges); err != nil {
		return Reading{}, err
	}
	return p.measure(f, size, ranges, quick)
}

func evict(p platform, path string, quick bool) (Result, error) {
	f, size, err := open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	res := Result{Op: OpEvict, Path: path}
	if res.Before, err = p.measure(f, size, nil, quick); err != nil {
		return res, err
	}
	start := time.Now()
	if err := p.evict(f, size); err != nil {
		return res, fmt.Errorf("pagecache: evict %s: %w", path, err)
	}
	res.Elapsed = time.Since(start)
	if res.After, err = p.measure(f, size, nil, quick); err != nil {
		return res, err
	}
	a := res.After
	res.Verified = a.Unverifiable == "" && float64(a.Resident) <= EvictTolerance*float64(a.Total)
	if !res.Verified {
		res.Reasons = reasons(p, f, res.Before, a)
	}
	return res, nil
}

func warm(p platform, path string, quick bool) (Result, error) {
	f, size, err := open(path)
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

// reasons explains the resident pages of an unverified eviction.
func reasons(p platform, f *os.File, before, a Reading) []Stay {
	if a.Unverifiable != "" {
		return []Stay{{Reason: ReasonUnverifiable, Pages: a.Resident, Detail: a.Unverifiable}}
	}
	return p.explain(f, before, a)
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
