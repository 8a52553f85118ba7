//go:build !windows

package store

import (
	"syscall"
	"time"
)

// processCPU is the process's user+system CPU so far: what the request
// log's write costs the router, including the kernel's part of the WAL's
// writes and fsyncs and the GC, which wall time on a busy machine hides.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
