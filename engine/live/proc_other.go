//go:build !unix

package live

import "os/exec"

// inGroup leaves cmd as it is: process groups are a Unix notion, and the
// context's cancel kills the process started.
func inGroup(cmd *exec.Cmd) {}

// killGroup does nothing where there are no process groups.
func killGroup(pgid int) {}
