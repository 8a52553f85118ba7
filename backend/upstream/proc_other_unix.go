//go:build !windows && !linux

package upstream

import "syscall"

// setDeathSignal: only Linux has a parent-death signal; elsewhere the child
// sees EOF on stdin when the router dies, which MCP servers treat as exit.
func setDeathSignal(*syscall.SysProcAttr) {}
