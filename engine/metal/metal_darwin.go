//go:build darwin

package metal

import (
	"fmt"
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
// -hasUnifiedMemory, -recommendedMaxWorkingSetSize, -[NSString UTF8String].

// Selectors are resolved once, as Objective-C code does at load time.
var (
	selName          = objc.RegisterName("name")
	selUTF8String    = objc.RegisterName("UTF8String")
	selUnifiedMemory = objc.RegisterName("hasUnifiedMemory")
	selWorkingSet    = objc.RegisterName("recommendedMaxWorkingSetSize")
	selRelease       = objc.RegisterName("release")
)

var load = sync.OnceValues(func() (func() objc.ID, error) {
	const flags = purego.RTLD_NOW | purego.RTLD_GLOBAL
	if _, err := purego.Dlopen("/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics", flags); err != nil {
		return nil, fmt.Errorf("metal: load CoreGraphics: %w", err)
	}
	lib, err := purego.Dlopen("/System/Library/Frameworks/Metal.framework/Metal", flags)
	if err != nil {
		return nil, fmt.Errorf("metal: load Metal: %w", err)
	}
	var create func() objc.ID
	purego.RegisterLibFunc(&create, lib, "MTLCreateSystemDefaultDevice")
	return create, nil
})

// Probe returns the system's default Metal device.
func Probe() (Device, error) {
	create, err := load()
	if err != nil {
		return Device{}, err
	}
	dev := create()
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

// cString copies a NUL-terminated C string; at most 4 KiB is read, which is
// far more than any device name.
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
