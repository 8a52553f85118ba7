//go:build !windows

package gateway

import (
	"syscall"
	"time"
)

// processCPU is this process's user + system CPU time: what a benchmark
// reports as cpu-ns/op, steadier than wall time on a busy machine (an
// upstream in another process is not counted).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
