//go:build unix

// Package cputime reads the CPU time this process has used, for the
// benchmarks that report cpu-ns/op: on a shared machine wall time per
// operation swings with the load, CPU time much less (another process, an
// upstream server say, is not counted).
package cputime

import (
	"syscall"
	"time"
)

// Process is the user + system CPU time of this process so far.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
