//go:build linux

package upstream

import "syscall"

// setDeathSignal makes the kernel kill the child if the router dies without
// running its shutdown (SIGKILL, crash), so no upstream outlives it.
func setDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
