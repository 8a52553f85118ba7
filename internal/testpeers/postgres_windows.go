//go:build windows

package testpeers

import "os/exec"

// postgresUser: PostgreSQL's refusal to run as root is a Unix matter; on
// Windows the command runs as the test's user.
func postgresUser(*exec.Cmd) (int, int, error) { return -1, -1, nil }
