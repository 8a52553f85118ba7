//go:build windows

package upstream

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcAttrs starts the child in a new process group so console control
// events aimed at the router do not hit it first.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Windows has no SIGTERM for console processes; closing stdin is the polite
// request, and killing the process the forceful one.
func terminateGroup(pid int) error { return nil }

func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	return p.Kill()
}

func groupAlive(pid int) bool { return false }
