//go:build unix

package testpeers

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// postgresUser runs cmd as the system user "postgres" when the test runs
// as root (PostgreSQL refuses to run as root); it returns that user's ids
// (-1 when unchanged).
func postgresUser(cmd *exec.Cmd) (int, int, error) {
	if os.Geteuid() != 0 {
		return -1, -1, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		u, err = user.Lookup("nobody")
	}
	if err != nil {
		return -1, -1, errors.New("running as root, and no postgres or nobody user to run PostgreSQL as: " + err.Error())
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return uid, gid, nil
}
