//go:build !windows

package shellenv

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"
)

// marker brackets the environment in the shell's output, so whatever a
// profile prints (a greeting, fortune, an error) is ignored.
const marker = "__MCPR_SHELL_ENV_7f3a__"

// Load runs the user's login shell, interactive so that what a profile sets
// only for interactive shells (nvm's lines in ~/.bashrc, ~/.zshrc) is there
// too, and returns the environment it ends up with. The shell gets no
// terminal and no stdin; it is killed, with anything it started, when the
// timeout passes.
func Load(ctx context.Context, o Options) (map[string]string, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	shell := o.Shell
	if shell == "" {
		shell = LoginShell()
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	script := fmt.Sprintf("printf '%%s' '%s'; env -0 2>/dev/null || env; printf '%%s' '%s'", marker, marker)
	cmd := exec.CommandContext(ctx, shell, "-l", "-i", "-c", script)
	cmd.Stdin = nil // /dev/null
	out := &capped{max: MaxOutput}
	cmd.Stdout = out
	// Its own session: no controlling terminal to grab or stop on, and one
	// process group to kill on timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if out.over {
		return nil, fmt.Errorf("%s -l -i: %w (shellenv.MaxOutput)", shell, ErrTooMuchOutput)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w (%s)", shell, ErrTimeout, o.Timeout)
	}
	env, perr := parseOutput(out.buf.Bytes())
	if perr != nil {
		if err != nil {
			return nil, fmt.Errorf("%s -l -i: %v", shell, err)
		}
		return nil, fmt.Errorf("%s -l -i: %w", shell, perr)
	}
	// A profile whose last command failed still gave its environment.
	return env, nil
}

// parseOutput finds the environment between the markers: NUL-separated
// (env -0), or one KEY=VALUE a line from an env without -0, where a line
// that does not start a variable continues the previous value.
func parseOutput(out []byte) (map[string]string, error) {
	start := bytes.Index(out, []byte(marker))
	if start < 0 {
		return nil, fmt.Errorf("no environment in the shell's output")
	}
	body := out[start+len(marker):]
	end := bytes.LastIndex(body, []byte(marker))
	if end < 0 {
		return nil, fmt.Errorf("the shell's environment was cut short")
	}
	return ParseEnv(body[:end]), nil
}

// ParseEnv reads env's output: NUL-separated entries if there is a NUL,
// else lines.
func ParseEnv(b []byte) map[string]string {
	env := map[string]string{}
	if bytes.IndexByte(b, 0) >= 0 {
		for _, kv := range bytes.Split(b, []byte{0}) {
			if k, v, ok := strings.Cut(string(kv), "="); ok && validName(k) {
				env[k] = v
			}
		}
		return env
	}
	last := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if k, v, ok := strings.Cut(line, "="); ok && validName(k) {
			env[k], last = v, k
			continue
		}
		if last != "" {
			env[last] += "\n" + line
		}
	}
	return env
}

// validName is a shell variable name.
func validName(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// LoginShell is $SHELL, else the user's shell in the password database,
// else /bin/sh.
func LoginShell() string {
	if s := os.Getenv("SHELL"); strings.HasPrefix(s, "/") {
		return s
	}
	if u, err := user.Current(); err == nil {
		if s := passwdShell(u.Username); s != "" {
			return s
		}
	}
	return "/bin/sh"
}

// passwdShell reads the shell field of name's entry in /etc/passwd (macOS
// keeps users in Directory Services, where $SHELL is always set anyway).
func passwdShell(name string) string {
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) == 7 && f[0] == name && strings.HasPrefix(f[6], "/") {
			return f[6]
		}
	}
	return ""
}

// startedFromTerminal: stdin or stdout is a terminal, so the environment
// came from the user's shell already.
func startedFromTerminal() bool {
	return term.IsTerminal(int(os.Stdin.Fd())) || term.IsTerminal(int(os.Stdout.Fd()))
}

// capped keeps the first max bytes written to it; past that a write fails,
// which ends the shell's output (it gets EPIPE or is killed on timeout).
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		c.over = true
		return 0, ErrTooMuchOutput
	}
	return c.buf.Write(p)
}
