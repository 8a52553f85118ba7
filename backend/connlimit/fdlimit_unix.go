//go:build unix

package connlimit

import "syscall"

// fdLimit is the process's file descriptor limit (the soft one, which Go
// raises to the hard one at start), 0 when unknown.
func fdLimit() uint64 {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r) != nil {
		return 0
	}
	return uint64(r.Cur)
}
