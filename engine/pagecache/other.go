//go:build !linux && !darwin

package pagecache

// host is nil here: every operation returns ErrUnsupported.
var host platform
