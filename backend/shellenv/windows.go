//go:build windows

package shellenv

import (
	"context"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// Load reads the PATH Windows gives a new process now: the system's
// (HKLM\...\Session Manager\Environment) followed by the user's
// (HKCU\Environment), %VARIABLES% expanded; and UserVariables, the user's
// value over the system's. A process started by Explorer keeps the
// environment Explorer had at login, so a tool installed since (Node.js,
// uv, …) or a key set since (setx OPENAI_API_KEY …) is missing from it
// until the user logs in again.
func Load(_ context.Context, _ Options) (map[string]string, error) {
	return fromRegistry(func(machine bool, name string) (string, error) {
		if machine {
			return readValue(registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Control\Session Manager\Environment`, name)
		}
		return readValue(registry.CURRENT_USER, `Environment`, name)
	})
}

func readValue(root registry.Key, path, name string) (string, error) {
	k, err := registry.OpenKey(root, path, registry.QUERY_VALUE)
	if err != nil {
		return "", nil // no such key: nothing to add
	}
	defer k.Close()
	v, typ, err := k.GetStringValue(name)
	if err == registry.ErrNotExist {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s\\%s: %w", path, name, err)
	}
	if typ == registry.EXPAND_SZ {
		if v, err = registry.ExpandString(v); err != nil {
			return "", fmt.Errorf("expand %s\\%s: %w", path, name, err)
		}
	}
	return v, nil
}

// startedFromTerminal is false on Windows: even from a console, the
// registry's PATH is what a new console would have.
func startedFromTerminal() bool { return false }

// LoginShell has no meaning on Windows.
func LoginShell() string { return "" }
