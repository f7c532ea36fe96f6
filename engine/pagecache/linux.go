//go:build linux

package pagecache

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
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

// measure counts with cachestat when quick is set, no ranges are asked for
// and the call succeeds; otherwise (a kernel older than 6.5 answers ENOSYS,
// a kernel that checks permissions EPERM) it counts page by page with
// mincore and says whether mincore can be trusted for this caller.
func (l linux) measure(f *os.File, size int64, ranges []Range, quick bool) (Reading, error) {
	ps := os.Getpagesize()
	var r Reading
	var cs unix.Cachestat_t
	haveCS := l.cachestat != nil && l.cachestat(uint(f.Fd()), &unix.CachestatRange{}, &cs, 0) == nil
	if quick && len(ranges) == 0 && haveCS {
		r = Reading{Path: f.Name(), Size: size, PageSize: ps, Method: "cachestat"}
		r.Total = (size + int64(ps) - 1) / int64(ps)
		r.Resident = min(int64(cs.Cache), r.Total)
	} else {
		vec, err := mincoreFile(f, size, ps, mincore)
		if err != nil {
			return Reading{}, err
		}
		r = tally(f.Name(), size, ps, vec, ranges)
	}
	if haveCS {
		r.Dirty = int64(cs.Dirty + cs.Writeback)
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &fs); err != nil {
		return Reading{}, fmt.Errorf("pagecache: statfs %s: %w", f.Name(), err)
	}
	r.Tmpfs = memoryFS(uint32(fs.Type))
	if r.Method == "mincore" { // cachestat refuses rather than lies
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			return Reading{}, fmt.Errorf("pagecache: stat %s: %w", f.Name(), err)
		}
		r.Unverifiable = trust(f.Name(), st.Uid)
	}
	return r, nil
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

// evict drops the file's clean, unmapped pages. Nothing is written: dirty
// pages (another writer's data not yet on disk) stay and are reported.
func (linux) evict(f *os.File, size int64) error {
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("posix_fadvise(DONTNEED): %w", err)
	}
	return nil
}

func (linux) adviseSequential(f *os.File) {
	// Advice only: a larger read-ahead window. Failure changes nothing.
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_SEQUENTIAL)
}

func (linux) explain(f *os.File, before, r Reading) []Stay {
	left := r.Resident
	if left == 0 {
		return nil
	}
	if r.Tmpfs {
		return []Stay{{Reason: ReasonTmpfs, Pages: left,
			Detail: "the file is on a memory file system (tmpfs/ramfs): its pages are its only copy"}}
	}
	var out []Stay
	// Pages dirty or under writeback when posix_fadvise ran were skipped by
	// it, even if their writeback has finished since.
	if d := min(max(before.Dirty, r.Dirty), left); d > 0 {
		out = append(out, Stay{Reason: ReasonDirty, Pages: d,
			Detail: fmt.Sprintf("dirty or under writeback: %d pages before the eviction, %d after (cachestat); nothing is written back by this package", before.Dirty, r.Dirty)})
		left -= d
	}
	if left > 0 {
		if s, ok := mappers(f); ok {
			s.Pages = left
			out = append(out, s)
			left = 0
		}
	}
	if left > 0 {
		out = append(out, Stay{Reason: ReasonUnknown, Pages: left})
	}
	return out
}

// mappers looks through /proc for processes that map the file, and
// returns ReasonLocked when one of them has the mapping mlocked. Processes
// whose maps the caller may not read are not seen.
func mappers(f *os.File) (Stay, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return Stay{}, false
	}
	dev := fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev))
	ino := strconv.FormatUint(st.Ino, 10)
	procs, _ := filepath.Glob("/proc/[0-9]*")
	self := strconv.Itoa(os.Getpid())
	var mapped, locked []string
	for _, p := range procs {
		pid := filepath.Base(p)
		m, l := mapsFile(p, dev, ino)
		if !m {
			continue
		}
		who := pid
		if pid == self {
			who += " (this process)"
		} else if comm, err := os.ReadFile(p + "/comm"); err == nil {
			who += " (" + strings.TrimSpace(string(comm)) + ")"
		}
		if l {
			locked = append(locked, who)
		} else {
			mapped = append(mapped, who)
		}
	}
	switch {
	case len(locked) > 0:
		return Stay{Reason: ReasonLocked, Detail: "mlocked by pid " + strings.Join(locked, ", ")}, true
	case len(mapped) > 0:
		return Stay{Reason: ReasonMappedElsewhere, Detail: "mapped by pid " + strings.Join(mapped, ", ")}, true
	}
	return Stay{}, false
}

// mapsFile reports whether process dir p maps the file dev/ino, and whether
// such a mapping is locked (VmFlags "lo" in smaps).
func mapsFile(p, dev, ino string) (mapped, locked bool) {
	fh, err := os.Open(p + "/smaps")
	if err != nil {
		return false, false
	}
	defer fh.Close()
	in := false
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = fields[3] == dev && fields[4] == ino
			mapped = mapped || in
			continue
		}
		if in && len(fields) > 0 && fields[0] == "VmFlags:" {
			for _, fl := range fields[1:] {
				if fl == "lo" {
					locked = true
				}
			}
		}
	}
	return mapped, locked
}
