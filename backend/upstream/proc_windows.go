//go:build windows

package upstream

import (
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// setProcAttrs starts the child
//   - without a console window (CREATE_NO_WINDOW): the desktop app is a GUI
//     program, so every console server (npx, uvx, python) would otherwise
//     open a window of its own;
//   - in a new process group, so console control events aimed at the router
//     do not hit it;
//   - suspended (CREATE_SUSPENDED), so that newProcGroup can put it in its
//     Job Object before it runs a single instruction: assigned after a
//     running start, a child could spawn a grandchild (npx → node) in the
//     gap, and that grandchild would be outside the job and outlive a stop.
func setProcAttrs(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NO_WINDOW |
		windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED
}

// procGroup is a Job Object holding the child and, since a job is inherited,
// everything the child spawns: Windows' counterpart of a Unix process group.
// The job is made with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and its handle is
// not inheritable, so when the router's last handle closes (close below, or
// the router exiting in any way, even killed) Windows ends the whole tree,
// as Pdeathsig does on Linux.
type procGroup struct{ job windows.Handle }

// newProcGroup makes the job, assigns the suspended child to it and resumes
// the child's main thread.
func newProcGroup(cmd *exec.Cmd) (procGroup, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return procGroup{}, fmt.Errorf("create job object: %w", err)
	}
	g := procGroup{job: job}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		g.close()
		return procGroup{}, fmt.Errorf("job object limits: %w", err)
	}
	pid := uint32(cmd.Process.Pid)
	// os.Process keeps its own handle open, so pid cannot be reused yet.
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		g.close()
		return procGroup{}, fmt.Errorf("open process %d: %w", pid, err)
	}
	err = windows.AssignProcessToJobObject(job, h)
	_ = windows.CloseHandle(h)
	if err != nil {
		g.close()
		return procGroup{}, fmt.Errorf("assign process %d to its job: %w", pid, err)
	}
	if err := resumeProcess(pid); err != nil {
		g.close() // kills the suspended child: it is in the job
		return procGroup{}, err
	}
	return g, nil
}

// resumeProcess resumes the threads of a process started suspended (only
// its main thread exists). os/exec does not return the thread handle that
// CreateProcess gave, so the thread is found in a snapshot.
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		_, err = windows.ResumeThread(th)
		_ = windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("process %d has no thread to resume", pid)
	}
	return nil
}

// terminate: a console-less process has no SIGTERM (CTRL_BREAK_EVENT
// reaches only processes sharing the sender's console, and the child has its
// own hidden one). Closing stdin was the polite request; waiting a second
// grace period gains nothing, so the job is ended at once.
func (g procGroup) terminate() error { return g.kill() }

// kill ends every process in the job.
func (g procGroup) kill() error {
	if g.job == 0 {
		return nil
	}
	return windows.TerminateJobObject(g.job, 1)
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which
// golang.org/x/sys/windows does not define.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// activeProcesses is the number of live processes in the job.
func (g procGroup) activeProcesses() (uint32, error) {
	var info jobAccounting
	err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return info.ActiveProcesses, err
}

// alive reports whether any process of the job still runs.
func (g procGroup) alive() bool {
	if g.job == 0 {
		return false
	}
	n, err := g.activeProcesses()
	return err == nil && n > 0
}

// close releases the job; KILL_ON_JOB_CLOSE ends anything still in it.
func (g procGroup) close() {
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
	}
}
