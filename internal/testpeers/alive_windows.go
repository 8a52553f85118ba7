//go:build windows

package testpeers

import "golang.org/x/sys/windows"

// stillActive is GetExitCodeProcess's code for a process that has not
// exited (STILL_ACTIVE).
const stillActive = 259

// ProcessAlive reports whether a process with this pid runs: its handle
// opens and it has no exit code yet.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}
