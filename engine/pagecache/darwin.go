//go:build darwin

// The darwin implementation was cross-compiled and vetted from Linux
// (GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet ./...), never run: it is
// kept small, and each call follows the man page of the macOS call it makes.

package pagecache

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

var host platform = darwin{}

// darwin implements platform with libSystem's mincore (through purego, as
// golang.org/x/sys has no wrapper and darwin has no stable system call ABI),
// and msync(MS_SYNC|MS_INVALIDATE) on a shared read-only mapping to evict.
// MADV_DONTNEED only deactivates pages on darwin; MADV_FREE and MS_KILLPAGES
// can discard modified data and are never used. It was cross-compiled and
// vetted (GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet), not run.
type darwin struct{}

const libSystem = "/usr/lib/libSystem.B.dylib"

// mincoreSym resolves libSystem's mincore once per process.
var mincoreSym = sync.OnceValues(func() (uintptr, error) {
	lib, err := purego.Dlopen(libSystem, purego.RTLD_LAZY|purego.RTLD_GLOBAL)
	if err != nil {
		return 0, fmt.Errorf("pagecache: dlopen %s: %w", libSystem, err)
	}
	sym, err := purego.Dlsym(lib, "mincore")
	if err != nil {
		return 0, fmt.Errorf("pagecache: dlsym mincore: %w", err)
	}
	return sym, nil
})

// mincore calls int mincore(caddr_t addr, size_t len, char *vec). Each byte
// of vec has MINCORE_INCORE (bit 0) set when its page is resident.
func mincore(m, vec []byte) error {
	fn, err := mincoreSym()
	if err != nil {
		return err
	}
	r, _, errno := purego.SyscallN(fn, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	if int32(r) == -1 {
		if errno == 0 {
			return fmt.Errorf("mincore returned -1 without errno")
		}
		return syscall.Errno(errno)
	}
	return nil
}

func (darwin) measure(f *os.File, size int64, ranges []Range, _ bool) (Reading, error) {
	ps := os.Getpagesize() // 16 KiB on Apple silicon
	vec, err := mincoreFile(f, size, ps, mincore)
	if err != nil {
		return Reading{}, err
	}
	r := tally(f.Name(), size, ps, vec, ranges)
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &fs); err != nil {
		return Reading{}, fmt.Errorf("pagecache: statfs %s: %w", f.Name(), err)
	}
	r.Tmpfs = unix.ByteSliceToString(fs.Fstypename[:]) == "tmpfs"
	return r, nil
}

// evict invalidates the file's cached pages through a shared read-only
// mapping: msync(MS_SYNC|MS_INVALIDATE), which XNU turns into
// vm_object_sync with flush and return set. The mapping is read-only, so
// this process dirties nothing; pages another writer left dirty may be
// written back (their content unchanged) before they can be freed, and
// MS_INVALIDATE frees the clean pages of the file's VM object. The content
// of the file is never changed. (Not run: see the package doc.)
func (darwin) evict(f *os.File, size int64) error {
	return eachWindow(f, size, func(m []byte, off int64) error {
		if err := unix.Msync(m, unix.MS_SYNC|unix.MS_INVALIDATE); err != nil {
			return fmt.Errorf("msync at offset %d: %w", off, err)
		}
		return nil
	})
}

func (darwin) adviseSequential(f *os.File) {
	// Advice only: F_RDAHEAD turns read-ahead on. Failure changes nothing.
	_, _ = unix.FcntlInt(f.Fd(), unix.F_RDAHEAD, 1)
}

func (darwin) explain(_ *os.File, _, r Reading) []Stay {
	if r.Resident == 0 {
		return nil
	}
	if r.Tmpfs {
		return []Stay{{Reason: ReasonTmpfs, Pages: r.Resident,
			Detail: "the file is on a memory file system: its pages are its only copy"}}
	}
	return []Stay{{Reason: ReasonUnknown, Pages: r.Resident,
		Detail: "pages may be dirty, wired or mapped by another process; darwin offers no cheap way to tell"}}
}
