//go:build unix

package testbombs

import "syscall"

// MakeFIFO makes a named pipe at path: a file the router must refuse, not
// wait on.
func MakeFIFO(path string) error { return syscall.Mkfifo(path, 0o600) }
