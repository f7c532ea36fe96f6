// Package metal probes the Metal device the strata engine runs on. The spec's
// live tests use it to decide whether this machine can re-run engine runs:
// a Mac with Apple silicon and a Metal device.
package metal

import "errors"

// Device describes the system's default Metal device.
type Device struct {
	Name                         string // e.g. "Apple M5"
	UnifiedMemory                bool   // CPU and GPU share memory (Apple silicon)
	RecommendedMaxWorkingSetSize uint64 // bytes the GPU may keep resident without paging
}

// ErrUnsupported is returned by Probe where Metal does not exist.
var ErrUnsupported = errors.New("metal: unsupported on this GOOS/GOARCH")

// ErrNoDevice is returned by Probe when Metal reports no device.
var ErrNoDevice = errors.New("metal: MTLCreateSystemDefaultDevice returned nil")
