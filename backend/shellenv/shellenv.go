// Package shellenv gives a GUI launch the environment a terminal would
// have. An app started from a desktop menu, the Dock or a login item gets
// the session's minimal PATH, without what the user's shell profile adds
// (nvm, Homebrew, pyenv, ~/.local/bin, …), so stdio servers run through
// npx, uvx or node fail with "not found". On Linux and macOS, Load runs
// the user's login shell once, bounded in time, and Apply merges what it
// reports into this process's environment; on Windows the user's and the
// system's PATH are read from the registry, since a process started by
// Explorer keeps the PATH Explorer had when the user logged in.
package shellenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// DefaultTimeout bounds the login shell: a profile that prompts or hangs
// must not keep the app from starting. Profiles that load nvm or pyenv
// take 0.2–1 s, several times that on a busy machine.
const DefaultTimeout = 5 * time.Second

// ErrTimeout: the shell did not print its environment in time.
var ErrTimeout = errors.New("the login shell did not answer in time")

// MaxOutput bounds what the login shell may print (its environment and
// whatever the profile says): a profile that floods its output must not
// fill the app's memory. Environments are a few KB; Linux caps one
// process's environment and arguments at a few MB.
const MaxOutput = 4 << 20

// ErrTooMuchOutput: the login shell printed more than MaxOutput.
var ErrTooMuchOutput = errors.New("the login shell printed more than 4 MiB")

// UserVariables are read, besides PATH, where the login shell is not run
// (the registry on Windows): the model vendors' keys and base URLs, so the
// chat works without setup in a GUI launch as it does in a terminal.
var UserVariables = []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"}

// fromRegistry builds what Load returns on Windows from read, which gives
// a value of the system's (machine) or the user's environment: PATH is the
// system's followed by the user's; for UserVariables the user's wins.
func fromRegistry(read func(machine bool, name string) (string, error)) (map[string]string, error) {
	var parts []string
	for _, machine := range []bool{true, false} {
		v, err := read(machine, "Path")
		if err != nil {
			return nil, err
		}
		if v != "" {
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return nil, errors.New("no PATH in the registry")
	}
	env := map[string]string{"Path": strings.Join(parts, ";")}
	for _, name := range UserVariables {
		for _, machine := range []bool{false, true} {
			v, err := read(machine, name)
			if err != nil {
				return nil, err
			}
			if v != "" {
				env[name] = v
				break
			}
		}
	}
	return env, nil
}

// skipped are variables of the shell session itself, never copied.
var skipped = map[string]bool{"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true, "TERM": true,
	"PS1": true, "PS2": true, "PS4": true, "PROMPT_COMMAND": true, "COLUMNS": true, "LINES": true,
	"SHELL_SESSION_ID": true, "TMUX": true, "TMUX_PANE": true, "STY": true, "WINDOW": true}

// Merge returns the environment (KEY=VALUE entries) cur with shell's
// values merged in: PATH lists shell's entries first, then cur's that
// shell lacks; a variable cur lacks is added; cur's values win otherwise.
// changed names the variables that differ from cur.
func Merge(cur []string, shell map[string]string) (env []string, changed []string) {
	have := map[string]int{}
	env = slices.Clone(cur)
	for i, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok {
			have[pathKey(k)] = i
		}
	}
	keys := make([]string, 0, len(shell))
	for k := range shell {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := shell[k]
		if skipped[k] || k == "" || strings.ContainsAny(k, "=\x00") || strings.Contains(v, "\x00") {
			continue
		}
		i, ok := have[pathKey(k)]
		if pathKey(k) == pathKey("PATH") {
			old := ""
			if ok {
				_, old, _ = strings.Cut(env[i], "=")
			}
			merged := MergePath(v, old)
			if merged == old {
				continue
			}
			if ok {
				name, _, _ := strings.Cut(env[i], "=")
				env[i] = name + "=" + merged
			} else {
				env = append(env, k+"="+merged)
			}
			changed = append(changed, k)
			continue
		}
		if ok {
			continue
		}
		env = append(env, k+"="+v)
		changed = append(changed, k)
	}
	return env, changed
}

// pathKey is how the OS compares variable names (case-insensitively on Windows).
func pathKey(k string) string {
	if runtime.GOOS == "windows" {
		return strings.ToUpper(k)
	}
	return k
}

// MergePath returns first's entries, then rest's entries not already in
// first; empty entries and repeats are dropped.
func MergePath(first, rest string) string {
	sep := string(os.PathListSeparator)
	var out []string
	seen := map[string]bool{}
	for _, p := range append(strings.Split(first, sep), strings.Split(rest, sep)...) {
		key := filepath.Clean(p)
		if runtime.GOOS == "windows" {
			key = strings.ToLower(key)
		}
		if p == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, p)
	}
	return strings.Join(out, sep)
}

// Apply sets in this process the variables Merge changes (PATH and those
// missing) and returns their names. The upstream servers started later
// inherit them, and exec.LookPath finds their commands.
func Apply(shell map[string]string) ([]string, error) {
	env, changed := Merge(os.Environ(), shell)
	values := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			values[pathKey(k)] = v
		}
	}
	for _, k := range changed {
		if err := os.Setenv(k, values[pathKey(k)]); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

// ForGUI loads the user's environment (Load) and applies it, when this
// process was not started from a terminal, whose environment is already
// the user's. It returns what changed; on a failure the environment stays
// as it was.
func ForGUI(ctx context.Context) ([]string, error) {
	if startedFromTerminal() {
		return nil, nil
	}
	shell, err := Load(ctx, Options{})
	if err != nil {
		return nil, err
	}
	return Apply(shell)
}

// Options tune Load; zero values are the defaults.
type Options struct {
	// Shell is the login shell to run; default $SHELL, else the user's
	// shell in /etc/passwd, else /bin/sh. Unused on Windows.
	Shell   string
	Timeout time.Duration // default DefaultTimeout
}
