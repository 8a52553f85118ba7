//go:build windows

package shellenv

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sys/windows/registry"
)

// Load reads the PATH Windows gives a new process now: the system's
// (HKLM\...\Session Manager\Environment) followed by the user's
// (HKCU\Environment), %VARIABLES% expanded. A process started by Explorer
// keeps the PATH Explorer had at login, so a tool installed since (Node.js,
// uv, …) is missing from it until the user logs in again.
func Load(_ context.Context, _ Options) (map[string]string, error) {
	var parts []string
	for _, k := range []struct {
		root registry.Key
		path string
	}{
		{registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Control\Session Manager\Environment`},
		{registry.CURRENT_USER, `Environment`},
	} {
		v, err := readPath(k.root, k.path)
		if err != nil {
			return nil, err
		}
		if v != "" {
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("no PATH in the registry")
	}
	return map[string]string{"Path": strings.Join(parts, ";")}, nil
}

func readPath(root registry.Key, path string) (string, error) {
	k, err := registry.OpenKey(root, path, registry.QUERY_VALUE)
	if err != nil {
		return "", nil // no such key: nothing to add
	}
	defer k.Close()
	v, typ, err := k.GetStringValue("Path")
	if err == registry.ErrNotExist {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s\\Path: %w", path, err)
	}
	if typ == registry.EXPAND_SZ {
		if v, err = registry.ExpandString(v); err != nil {
			return "", fmt.Errorf("expand %s\\Path: %w", path, err)
		}
	}
	return v, nil
}

// startedFromTerminal is false on Windows: even from a console, the
// registry's PATH is what a new console would have.
func startedFromTerminal() bool { return false }

// LoginShell has no meaning on Windows.
func LoginShell() string { return "" }
