//go:build windows

package testpeers

import (
	"os/exec"
	"testing"
)

// asPostgresUser: PostgreSQL's refusal to run as root is a Unix matter; on
// Windows the command runs as the test's user.
func asPostgresUser(testing.TB, *exec.Cmd) (int, int) { return -1, -1 }
