package pagecachetest

import (
	"testing"
	"time"
)

// WithTimeout calls fn and returns its error, or fails the test if fn has
// not returned within d: a call that would block (an open of a FIFO, a read
// of a device) fails the test instead of hanging it. The blocked goroutine is
// left behind; the test binary exits with the failure.
func WithTimeout(t testing.TB, d time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("no return within %v: the call blocked", d)
		return nil
	}
}
