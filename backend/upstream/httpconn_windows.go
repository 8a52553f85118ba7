//go:build windows

package upstream

// idleSocket cannot peek without blocking on Windows; a connection the
// server closed while idle is caught by exchange's single retry instead.
func idleSocket(uintptr) bool { return true }
