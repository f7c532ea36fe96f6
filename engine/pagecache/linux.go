//go:build linux

package pagecache

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

var host platform = linux{cachestat: unix.Cachestat}

// linux implements platform with mincore(2), posix_fadvise(2), statfs(2),
// cachestat(2) (Linux 6.5 and later, used when present) and /proc.
type linux struct {
	// cachestat is cachestat(2), or nil to count as on a kernel without
	// it (the tests' way to exercise the mincore fallback).
	cachestat func(fd uint, crange *unix.CachestatRange, cstat *unix.Cachestat_t, flags uint) error
}

// mincore calls the raw system call: golang.org/x/sys has no wrapper.
func mincore(m, vec []byte) error {
	for {
		_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
		switch e {
		case 0:
			return nil
		case unix.EAGAIN: // kernel was short of memory for the vector; retry
			continue
		}
		return e
	}
}

// cacheStat is cachestat(2) on one open file: the count of its cached pages
// from page first, n pages (n = 0: to the end).
type cacheStat func(first, n int64) (unix.Cachestat_t, error)

// stackingFS names the file systems whose files are backed by another
// file's pages: cachestat counts the stacked file's own cache, which is
// empty, while the data is cached (and mapped, and dirtied) in the real
// file's. Checked on Linux 6.18: on overlayfs cachestat says 0 of 2048 pages
// where mincore and cachestat on the lower file say 2048.
var stackingFS = map[uint32]string{
	unix.OVERLAYFS_SUPER_MAGIC: "overlayfs",
	unix.ECRYPTFS_SUPER_MAGIC:  "ecryptfs",
}

// counter returns cachestat on f, or an error saying why this kernel, this
// caller or this file system gives no count to trust (a kernel before 6.5
// has none, one that checks permissions refuses a caller that does not own
// the file, a stacking file system counts the wrong cache).
func (l linux) counter(f *os.File) (cacheStat, error) {
	if l.cachestat == nil {
		return nil, errors.New("no cachestat (Linux 6.5+)")
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &fs); err != nil {
		return nil, fmt.Errorf("statfs: %w", err)
	}
	if name, ok := stackingFS[uint32(fs.Type)]; ok {
		return nil, fmt.Errorf("on %s, cachestat counts the stacked file's own (empty) cache, not the real file's", name)
	}
	fd := uint(f.Fd())
	ps := uint64(os.Getpagesize())
	count := func(first, n int64) (unix.Cachestat_t, error) {
		var cs unix.Cachestat_t
		rg := unix.CachestatRange{Off: uint64(first) * ps, Len: uint64(n) * ps}
		if err := l.cachestat(fd, &rg, &cs, 0); err != nil {
			return cs, fmt.Errorf("cachestat at page %d: %w", first, err)
		}
		return cs, nil
	}
	if _, err := count(0, 0); err != nil {
		return nil, err
	}
	return count, nil
}

// measure counts with cachestat when quick is set, no ranges are asked for
// and the count can be trusted (see counter); otherwise (a kernel older than
// 6.5 answers ENOSYS, a kernel that checks permissions EPERM, overlayfs
// counts the wrong cache) it counts page by page with mincore, which maps the
// real file, and says whether mincore can be trusted for this caller.
func (l linux) measure(f *os.File, size int64, ranges []Range, quick bool) (Reading, error) {
	r, _, err := l.read(f, size, ranges, quick)
	return r, err
}

// read is measure, returning the mincore vector too when it counted with
// mincore (nil when it used cachestat).
func (l linux) read(f *os.File, size int64, ranges []Range, quick bool) (Reading, []byte, error) {
	ps := os.Getpagesize()
	var vec []byte
	var r Reading
	var cs unix.Cachestat_t
	count, err := l.counter(f)
	if err == nil {
		cs, err = count(0, 0)
	}
	haveCS := err == nil
	if quick && len(ranges) == 0 && haveCS {
		r = Reading{Path: f.Name(), Size: size, PageSize: ps, Method: "cachestat"}
		r.Total = (size + int64(ps) - 1) / int64(ps)
		r.Resident = min(int64(cs.Cache), r.Total)
	} else {
		if vec, err = mincoreFile(f, size, ps, mincore); err != nil {
			return Reading{}, nil, err
		}
		r = tally(f.Name(), size, ps, vec, ranges)
	}
	if haveCS {
		r.Dirty = int64(cs.Dirty + cs.Writeback)
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &fs); err != nil {
		return Reading{}, nil, fmt.Errorf("pagecache: statfs %s: %w", f.Name(), err)
	}
	r.Tmpfs = memoryFS(uint32(fs.Type))
	if r.Method == "mincore" { // cachestat refuses rather than lies
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			return Reading{}, nil, fmt.Errorf("pagecache: stat %s: %w", f.Name(), err)
		}
		r.Unverifiable = trust(f.Name(), st.Uid)
	}
	return r, vec, nil
}

// memoryFS reports whether a statfs magic number is a file system that keeps
// its files only in memory.
func memoryFS(magic uint32) bool {
	switch magic {
	case unix.TMPFS_MAGIC, unix.RAMFS_MAGIC, unix.HUGETLBFS_MAGIC:
		return true
	}
	return false
}

// trust returns why mincore cannot be trusted for this caller, or "". Since
// Linux 5.0 (commit 134fca9063ad) mincore on a file mapping reports every
// page resident unless the caller owns the file, has CAP_FOWNER, or may write
// it. Effective uid 0 stands in for CAP_FOWNER.
func trust(path string, uid uint32) string {
	euid := os.Geteuid()
	if euid == 0 || uint32(euid) == uid {
		return ""
	}
	if unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS) == nil {
		return ""
	}
	return "the caller neither owns nor may write the file, and Linux's mincore then reports every page resident"
}

// pseudoFS names the file systems whose files the kernel generates on read:
// they have no page cache, whatever their stat says.
var pseudoFS = map[uint32]string{
	unix.PROC_SUPER_MAGIC:     "procfs",
	unix.SYSFS_MAGIC:          "sysfs",
	unix.DEBUGFS_MAGIC:        "debugfs",
	unix.TRACEFS_MAGIC:        "tracefs",
	unix.SECURITYFS_MAGIC:     "securityfs",
	unix.CGROUP_SUPER_MAGIC:   "cgroupfs",
	unix.CGROUP2_SUPER_MAGIC:  "cgroup2fs",
	unix.BPF_FS_MAGIC:         "bpffs",
	unix.PSTOREFS_MAGIC:       "pstorefs",
	unix.EFIVARFS_MAGIC:       "efivarfs",
	unix.DEVPTS_SUPER_MAGIC:   "devpts",
	unix.NSFS_MAGIC:           "nsfs",
	unix.SELINUX_MAGIC:        "selinuxfs",
	unix.SMACK_MAGIC:          "smackfs",
	unix.BINFMTFS_MAGIC:       "binfmt_misc",
	unix.RDTGROUP_SUPER_MAGIC: "resctrl",
	unix.OPENPROM_SUPER_MAGIC: "openpromfs",
	unix.PID_FS_MAGIC:         "pidfs",
	unix.ANON_INODE_FS_MAGIC:  "anon_inodefs",
	0x62656570:                "configfs", // CONFIGFS_MAGIC, not in x/sys
	0x65735543:                "fusectl",  // FUSE_CTL_SUPER_MAGIC, not in x/sys
}

func (linux) noPageCache(f *os.File) string {
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &fs); err != nil {
		return "statfs: " + err.Error()
	}
	if name, ok := pseudoFS[uint32(fs.Type)]; ok {
		return "a file of " + name + ", generated by the kernel when read"
	}
	return ""
}

// evict drops the file's clean, unmapped pages with
// posix_fadvise(DONTNEED). That call also starts the write-back of dirty
// pages in its range, so without sync it is given only runs of pages that
// cachestat reports neither dirty nor under write-back; dirty pages stay and
// are reported. With sync, fdatasync writes them back first.
func (l linux) evict(f *os.File, size int64, sync bool) error {
	fd := int(f.Fd())
	if sync {
		if err := unix.Fdatasync(fd); err != nil {
			return fmt.Errorf("fdatasync: %w", err)
		}
		return fadviseDontneed(fd, 0, 0)
	}
	count, err := l.counter(f)
	if err != nil {
		return fmt.Errorf("%w: %w", err, ErrNeedSync)
	}
	ps := int64(os.Getpagesize())
	dirty, err := dirtySpans(count, (size+ps-1)/ps)
	if err != nil {
		return err
	}
	next := int64(0) // first page not yet advised
	for _, d := range append(dirty, Span{First: (size + ps - 1) / ps}) {
		if d.First > next {
			if err := fadviseDontneed(fd, next*ps, (d.First-next)*ps); err != nil {
				return err
			}
		}
		next = d.Last + 1
	}
	return nil
}

func fadviseDontneed(fd int, off, n int64) error {
	if err := unix.Fadvise(fd, off, n, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("posix_fadvise(DONTNEED) at offset %d (%d bytes): %w", off, n, err)
	}
	return nil
}

// dirtySpans returns the runs of a file's pages (of pages in all) that
// cachestat reports dirty or under write-back, by halving ranges that hold
// some: one call for a clean file, about 2×log2(pages) per dirty run.
func dirtySpans(count cacheStat, pages int64) ([]Span, error) {
	var out []Span
	var walk func(first, end int64) error
	walk = func(first, end int64) error {
		cs, err := count(first, end-first)
		if err != nil {
			return err
		}
		switch {
		case cs.Dirty+cs.Writeback == 0:
			return nil
		case cs.Dirty+cs.Writeback == uint64(end-first) || end-first == 1:
			if n := len(out); n > 0 && out[n-1].Last == first-1 {
				out[n-1].Last = end - 1
			} else {
				out = append(out, Span{first, end - 1})
			}
			return nil
		}
		mid := first + (end-first)/2
		if err := walk(first, mid); err != nil {
			return err
		}
		return walk(mid, end)
	}
	if pages == 0 {
		return nil, nil
	}
	return out, walk(0, pages)
}

func (linux) adviseSequential(f *os.File) {
	// Advice only: a larger read-ahead window. Failure changes nothing.
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_SEQUENTIAL)
}

// explain counts the file's pages with mincore and attributes each resident
// one: tmpfs for a file on a memory file system; else locked when a process
// has a mapping of it mlocked, mapped when a process maps it, dirty when
// cachestat says it is dirty or under write-back, unknown otherwise.
func (l linux) explain(f *os.File, size int64, _ Reading) (Reading, []Stay, error) {
	// The count and the reasons come from the same vector.
	r, vec, err := l.read(f, size, nil, false)
	if err != nil || r.Resident == 0 || r.Unverifiable != "" {
		return r, nil, err
	}
	ps := os.Getpagesize()
	if r.Tmpfs {
		return r, attribute(vec, func(int64) (Reason, string) {
			return ReasonTmpfs, "the file is on a memory file system (tmpfs/shmem/ramfs): its pages are its only copy"
		}), nil
	}
	var dirty []Span
	if count, cerr := l.counter(f); cerr == nil {
		if dirty, err = dirtySpans(count, int64(len(vec))); err != nil {
			return r, nil, err
		}
	}
	maps := mappings(f, int64(ps))
	return r, attribute(vec, func(p int64) (Reason, string) {
		var locked, mapped []string
		for _, m := range maps {
			if p >= m.first && p < m.end {
				if m.locked {
					locked = appendNew(locked, m.who)
				} else {
					mapped = appendNew(mapped, m.who)
				}
			}
		}
		switch {
		case len(locked) > 0:
			return ReasonLocked, "mlocked by pid " + strings.Join(locked, ", ")
		case len(mapped) > 0:
			return ReasonMappedElsewhere, "mapped by pid " + strings.Join(mapped, ", ")
		case inSpans(dirty, p):
			return ReasonDirty, "dirty or under write-back (cachestat): left in place, as nothing is written back unless asked (sync)"
		}
		return ReasonUnknown, ""
	}), nil
}

// appendNew appends s to list unless it is there.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// inSpans reports whether page p is in one of the sorted spans.
func inSpans(spans []Span, p int64) bool {
	i, _ := slices.BinarySearchFunc(spans, p, func(s Span, p int64) int {
		if s.Last < p {
			return -1
		}
		if s.First > p {
			return 1
		}
		return 0
	})
	return i < len(spans) && spans[i].First <= p && p <= spans[i].Last
}

// mapping is one process's mapping of a file: pages [first, end) of it.
type mapping struct {
	who        string // "1234 (vmtouch)"
	first, end int64
	locked     bool
}

// mappings looks through /proc for processes that map the file, with the
// file pages each mapping covers and whether it is mlocked (VmFlags "lo" in
// smaps). Processes whose smaps the caller may not read are not seen.
func mappings(f *os.File, pageSize int64) []mapping {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil
	}
	dev := fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev))
	ino := strconv.FormatUint(st.Ino, 10)
	procs, _ := filepath.Glob("/proc/[0-9]*")
	self := strconv.Itoa(os.Getpid())
	var out []mapping
	for _, p := range procs {
		pid := filepath.Base(p)
		ms := mapsFile(p, dev, ino, pageSize)
		if len(ms) == 0 {
			continue
		}
		who := pid
		if pid == self {
			who += " (this process)"
		} else if comm, err := os.ReadFile(p + "/comm"); err == nil {
			who += " (" + strings.TrimSpace(string(comm)) + ")"
		}
		for i := range ms {
			ms[i].who = who
		}
		out = append(out, ms...)
	}
	return out
}

// mapsFile returns process dir p's mappings of the file dev/ino.
func mapsFile(p, dev, ino string, pageSize int64) []mapping {
	fh, err := os.Open(p + "/smaps")
	if err != nil {
		return nil
	}
	defer fh.Close()
	var out []mapping
	in := false
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = fields[3] == dev && fields[4] == ino
			if !in {
				continue
			}
			lo, hi, _ := strings.Cut(fields[0], "-")
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			off, err3 := strconv.ParseUint(fields[2], 16, 64)
			if err1 != nil || err2 != nil || err3 != nil || end < start {
				in = false
				continue
			}
			first := int64(off) / pageSize
			out = append(out, mapping{first: first, end: first + int64(end-start)/pageSize})
			continue
		}
		if in && len(fields) > 0 && fields[0] == "VmFlags:" && slices.Contains(fields[1:], "lo") {
			out[len(out)-1].locked = true
		}
	}
	return out
}
