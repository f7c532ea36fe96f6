//go:build darwin

package metal

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// This file calls Metal through purego and the Objective-C runtime, so the
// darwin build needs no cgo and cross-compiles from Linux. It was written
// without a Mac at hand: it is checked by `GOOS=darwin GOARCH=arm64
// CGO_ENABLED=0 go vet ./...` in the test command, not run. The calls are the
// documented ones: MTLCreateSystemDefaultDevice (CoreGraphics must be loaded
// for a command-line process to see the device), -[MTLDevice name],
// -hasUnifiedMemory, -recommendedMaxWorkingSetSize, -[NSString UTF8String],
// and the Objective-C runtime's objc_autoreleasePoolPush/Pop: -name returns
// an autoreleased NSString whose UTF8String buffer lives until the pool
// drains, so the probe copies it inside a pool it pops before returning (a
// command-line process has no run loop draining one for it).

// Selectors are resolved once, as Objective-C code does at load time
// (cross-compiled and vetted; not run here).
var (
	selName          = objc.RegisterName("name")
	selUTF8String    = objc.RegisterName("UTF8String")
	selUnifiedMemory = objc.RegisterName("hasUnifiedMemory")
	selWorkingSet    = objc.RegisterName("recommendedMaxWorkingSetSize")
	selRelease       = objc.RegisterName("release")
)

// lib holds the C functions the probe calls. Checked by cross-compiling and
// vetting for darwin/arm64; not run here.
type lib struct {
	create   func() objc.ID
	poolPush func() uintptr
	poolPop  func(pool uintptr)
}

// load opens libobjc, CoreGraphics and Metal once and resolves lib's
// functions. Checked by cross-compiling and vetting for darwin/arm64; not run
// here.
var load = sync.OnceValues(func() (*lib, error) {
	const flags = purego.RTLD_NOW | purego.RTLD_GLOBAL
	objcLib, err := purego.Dlopen("/usr/lib/libobjc.A.dylib", flags)
	if err != nil {
		return nil, fmt.Errorf("metal: load libobjc: %w", err)
	}
	if _, err := purego.Dlopen("/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics", flags); err != nil {
		return nil, fmt.Errorf("metal: load CoreGraphics: %w", err)
	}
	metal, err := purego.Dlopen("/System/Library/Frameworks/Metal.framework/Metal", flags)
	if err != nil {
		return nil, fmt.Errorf("metal: load Metal: %w", err)
	}
	l := &lib{}
	purego.RegisterLibFunc(&l.create, metal, "MTLCreateSystemDefaultDevice")
	purego.RegisterLibFunc(&l.poolPush, objcLib, "objc_autoreleasePoolPush")
	purego.RegisterLibFunc(&l.poolPop, objcLib, "objc_autoreleasePoolPop")
	return l, nil
})

// Probe returns the system's default Metal device. Every Objective-C object
// it touches is released before it returns: the device it created with
// -release, the autoreleased name string by popping the pool it pushed.
// Checked by cross-compiling and vetting for darwin/arm64; not run here.
func Probe() (Device, error) {
	l, err := load()
	if err != nil {
		return Device{}, err
	}
	// An autorelease pool belongs to the thread that pushed it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pool := l.poolPush()
	defer l.poolPop(pool)
	dev := l.create()
	if dev == 0 {
		return Device{}, ErrNoDevice
	}
	defer objc.Send[objc.ID](dev, selRelease)
	d := Device{
		UnifiedMemory:                objc.Send[bool](dev, selUnifiedMemory),
		RecommendedMaxWorkingSetSize: objc.Send[uint64](dev, selWorkingSet),
	}
	if name := objc.Send[objc.ID](dev, selName); name != 0 {
		d.Name = cString(objc.Send[*byte](name, selUTF8String))
	}
	return d, nil
}

// cString copies a NUL-terminated C string (the copy outlives the
// autorelease pool that owns the buffer); at most 4 KiB is read, which is
// far more than any device name. Cross-compiled and vetted; not run here.
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for n < 4096 && *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
