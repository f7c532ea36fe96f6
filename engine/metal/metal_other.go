//go:build !darwin

package metal

// Probe returns ErrUnsupported: Metal exists only on darwin.
func Probe() (Device, error) { return Device{}, ErrUnsupported }
