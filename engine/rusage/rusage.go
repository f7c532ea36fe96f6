// Package rusage reads a running process's memory as the kernel accounts it.
// On darwin it calls libSystem's proc_pid_rusage (flavor RUSAGE_INFO_V2) for
// the two figures the strata engine's prompt_region(false) lines print:
// phys_footprint (what Activity Monitor shows as Memory, and what jetsam
// limits) and resident_size. Elsewhere Of returns ErrUnsupported.
package rusage

import (
	"errors"
	"fmt"
	"runtime"
)

// Info is one reading of a process's memory, in bytes.
type Info struct {
	PhysFootprint uint64 // ri_phys_footprint
	ResidentSize  uint64 // ri_resident_size
}

// ErrUnsupported is returned by Of where proc_pid_rusage does not exist.
var ErrUnsupported = fmt.Errorf("rusage: proc_pid_rusage is unsupported on %s/%s (darwin only)", runtime.GOOS, runtime.GOARCH)

// ErrNoProcess is returned by Of for a process that no longer exists.
var ErrNoProcess = errors.New("rusage: no such process")

// infoV2 is struct rusage_info_v2 of <sys/resource.h> (macOS 10.9+): a
// 16-byte UUID, then eighteen uint64 counters. Only its size and the offsets
// of the two fields Info carries matter to the kernel call; a size test pins
// them (160 bytes; resident_size at 64, phys_footprint at 72), so the layout
// is checked on every platform, not only on a Mac.
type infoV2 struct {
	UUID                [16]uint8
	UserTime            uint64
	SystemTime          uint64
	PkgIdleWkups        uint64
	InterruptWkups      uint64
	Pageins             uint64
	WiredSize           uint64
	ResidentSize        uint64
	PhysFootprint       uint64
	ProcStartAbstime    uint64
	ProcExitAbstime     uint64
	ChildUserTime       uint64
	ChildSystemTime     uint64
	ChildPkgIdleWkups   uint64
	ChildInterruptWkups uint64
	ChildPageins        uint64
	ChildElapsedAbstime uint64
	DiskioBytesread     uint64
	DiskioByteswritten  uint64
}

// flavorV2 is RUSAGE_INFO_V2, the flavor argument that selects infoV2.
const flavorV2 = 2

// info returns the fields Info carries.
func (v *infoV2) info() Info {
	return Info{PhysFootprint: v.PhysFootprint, ResidentSize: v.ResidentSize}
}
