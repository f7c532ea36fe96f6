//go:build darwin

package rusage

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"github.com/ebitengine/purego"
)

// This file calls libSystem through purego, so the darwin build needs no cgo.
// It was written without a Mac at hand: it is checked by cross-compiling and
// vetting (GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go vet ./... in the test
// command, and go test -c for darwin/arm64), not run here; the macos-14 CI job
// runs its test natively. The call is the documented
// int proc_pid_rusage(int pid, int flavor, rusage_info_t *buffer) of
// <libproc.h>, which returns 0 or -1 with errno set.

// procPidRusage is resolved once, on first use. Cross-compiled and vetted
// for darwin/arm64; not run here.
var procPidRusage = sync.OnceValues(func() (func(pid, flavor int32, buf unsafe.Pointer) int32, error) {
	lib, err := purego.Dlopen("/usr/lib/libSystem.B.dylib", purego.RTLD_LAZY|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("rusage: load libSystem: %w", err)
	}
	var f func(pid, flavor int32, buf unsafe.Pointer) int32
	purego.RegisterLibFunc(&f, lib, "proc_pid_rusage")
	return f, nil
})

// Of reads the memory of process pid with proc_pid_rusage(RUSAGE_INFO_V2).
// A process that has exited is ErrNoProcess. Checked by cross-compiling and
// vetting for darwin/arm64; not run here.
func Of(pid int) (Info, error) {
	f, err := procPidRusage()
	if err != nil {
		return Info{}, err
	}
	var v infoV2
	if f(int32(pid), flavorV2, unsafe.Pointer(&v)) != 0 {
		// purego does not return errno; a missing process is the usual
		// cause, and kill(pid, 0) tells it apart from a refusal.
		if kerr := syscall.Kill(pid, 0); kerr == syscall.ESRCH {
			return Info{}, fmt.Errorf("rusage: pid %d: %w", pid, ErrNoProcess)
		}
		return Info{}, fmt.Errorf("rusage: proc_pid_rusage(pid %d, RUSAGE_INFO_V2) failed", pid)
	}
	return v.info(), nil
}
