//go:build unix

package livetest

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Alive reports whether process pid still exists and is not a zombie (an
// orphan's zombie waits for a reaper that a container's init may not be).
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc (darwin): kill(pid, 0) is the answer
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return !(i >= 0 && i+2 < len(s) && s[i+2] == 'Z')
}
