// Package config decides where the router keeps its data and turns the MCP
// client configuration files users already have into server definitions.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DataDirEnv overrides the default data directory when no flag is given.
const DataDirEnv = "MCP_ROUTER_DATA_DIR"

// ResolveDataDir picks the data directory: the --data-dir flag, else
// $MCP_ROUTER_DATA_DIR, else <user config dir>/mcp-router. The result is
// absolute so that it means the same thing to every process we start. A
// leading "~/" is expanded because flags in .desktop files and env vars set
// in GUIs don't pass through a shell.
func ResolveDataDir(flagValue string) (string, error) {
	return ResolveDataDirEnv(flagValue, os.Getenv)
}

// ResolveDataDirEnv is ResolveDataDir for a process whose environment is
// read by getenv: the data directory a router we would start would use.
func ResolveDataDirEnv(flagValue string, getenv func(string) string) (string, error) {
	dir := strings.TrimSpace(flagValue)
	if dir == "" {
		dir = strings.TrimSpace(getenv(DataDirEnv))
	}
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("cannot find a data directory (%v); pass --data-dir or set %s", err, DataDirEnv)
		}
		dir = filepath.Join(base, "mcp-router")
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") || strings.HasPrefix(dir, `~\`) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("data directory %q: %w", dir, err)
		}
		dir = filepath.Join(home, dir[1:])
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("data directory %q: %w", dir, err)
	}
	return abs, nil
}

// DBPath is where the SQLite database lives inside a data directory.
func DBPath(dataDir string) string { return filepath.Join(dataDir, "mcp-router.db") }
