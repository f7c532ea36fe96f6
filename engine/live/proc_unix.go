//go:build unix

package live

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd in a process group of its own (Setpgid) and makes the
// context's cancel kill that whole group (kill(-pgid, SIGKILL)), not only
// the process it started: an engine that forked helpers, or a wrapper
// script, is stopped with everything it began. Run on Linux by the tests;
// on darwin the same calls are checked by cross-compiling and vetting, and
// run by the macos-14 CI job.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills whatever is left of the process group pgid once its
// leader has exited; a group already gone (ESRCH) is the usual case.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
