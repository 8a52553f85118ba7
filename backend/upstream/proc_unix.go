//go:build !windows

package upstream

import (
	"errors"
	"os/exec"
	"syscall"
)

// setProcAttrs puts the child in its own process group so the whole tree it
// spawns (npx → node, uvx → python) can be signalled at once.
func setProcAttrs(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
}

// procGroup is the child's process group; its id is the child's pid.
type procGroup struct{ pid int }

func newProcGroup(cmd *exec.Cmd) (procGroup, error) {
	return procGroup{pid: cmd.Process.Pid}, nil
}

// signal sends sig to the group; a group that is already gone is not an
// error.
func (g procGroup) signal(sig syscall.Signal) error {
	if g.pid <= 0 {
		return nil
	}
	err := syscall.Kill(-g.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func (g procGroup) terminate() error { return g.signal(syscall.SIGTERM) }
func (g procGroup) kill() error      { return g.signal(syscall.SIGKILL) }

// alive reports whether any process of the group still exists.
func (g procGroup) alive() bool {
	return g.pid > 0 && syscall.Kill(-g.pid, 0) == nil
}

// close: a process group holds no resource of the router's.
func (g procGroup) close() {}
