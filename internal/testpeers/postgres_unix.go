//go:build unix

package testpeers

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"testing"
)

// asPostgresUser runs cmd as the system user "postgres" when the test runs
// as root (PostgreSQL refuses to run as root); it returns that user's ids
// (-1 when unchanged).
func asPostgresUser(t testing.TB, cmd *exec.Cmd) (int, int) {
	t.Helper()
	if os.Geteuid() != 0 {
		return -1, -1
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		u, err = user.Lookup("nobody")
	}
	if err != nil {
		t.Fatalf("running as root, and no postgres or nobody user to run PostgreSQL as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return uid, gid
}
