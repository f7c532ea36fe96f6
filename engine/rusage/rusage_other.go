//go:build !darwin

package rusage

// Of returns ErrUnsupported: proc_pid_rusage exists only on darwin.
func Of(pid int) (Info, error) { return Info{}, ErrUnsupported }
