//go:build unix

package testpeers

import (
	"errors"
	"syscall"
)

// ProcessAlive reports whether a process with this pid runs (a zombie
// counts until it is reaped). EPERM means it exists under another user.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
