package upstream

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Grace periods of the stop sequence: close stdin, wait, SIGTERM, wait, SIGKILL.
var (
	stdinGrace = 2 * time.Second
	termGrace  = 2 * time.Second
)

// process is a running stdio upstream. The router owns its pipes directly
// (os.Pipe, not exec's StdoutPipe) so that cmd.Wait never closes the stdout
// reader while the transport is still reading the last response.
type process struct {
	cmd     *exec.Cmd
	stdin   *os.File // our write end of the child's stdin
	stdout  *os.File // our read end of the child's stdout
	exited  chan struct{}
	drained chan struct{} // closed when stderr reached EOF
	group   procGroup     // the child and everything it spawns
	waitErr error
}

// startProcess launches s.Command with its args, env and cwd (after extraEnv,
// which s.Env may not override), feeding the child's stderr into console
// line by line. The child inherits the router's environment but for its
// credentials (RouterSecretEnv).
func startProcess(s spec.Server, console *Console, extraEnv []string) (*process, error) {
	path, err := exec.LookPath(s.Command)
	if err != nil {
		return nil, fmt.Errorf("command %q not found: %w", s.Command, errors.Unwrap(err))
	}
	cmd := exec.Command(path, s.Args...)
	cmd.Env = append(append(inheritedEnv(os.Environ()), s.EnvList()...), extraEnv...)
	cmd.Dir = s.Cwd
	setProcAttrs(cmd)

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		if s.Cwd != "" {
			if _, statErr := os.Stat(s.Cwd); statErr != nil {
				return nil, fmt.Errorf("working directory %q: %w", s.Cwd, statErr)
			}
		}
		return nil, fmt.Errorf("start %q: %w", s.Command, err)
	}
	// The child holds its own copies now; keeping ours open would hide EOF.
	closeAll(inR, outW, errW)
	group, err := newProcGroup(cmd)
	if err != nil {
		// The child never ran a line of its own (Windows starts it
		// suspended until it is in its job): end it and report.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("start %q: %w", s.Command, err)
	}

	p := &process{cmd: cmd, stdin: inW, stdout: outR, group: group, exited: make(chan struct{}), drained: make(chan struct{})}
	go func() {
		defer close(p.drained)
		console.drain(errR)
		_ = errR.Close()
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func closeAll(files ...io.Closer) {
	for _, f := range files {
		_ = f.Close()
	}
}

// pid is the child's process id (also its process group id on Unix).
func (p *process) pid() int { return p.cmd.Process.Pid }

// exitReason describes how the process ended; call only after exited closed.
func (p *process) exitReason() string {
	if p.waitErr == nil {
		return "process exited with status 0"
	}
	return "process " + p.waitErr.Error()
}

// stop ends the process the polite way first: close stdin and wait, then
// SIGTERM the group, then SIGKILL it (on Windows, where a console-less
// process has no SIGTERM, the job is terminated after the stdin grace).
// Whatever the leader did, the rest of its group is cleaned up too, so no
// grandchild (npx's node) is orphaned.
func (p *process) stop() {
	_ = p.stdin.Close()
	g := p.group
	select {
	case <-p.exited:
	case <-time.After(stdinGrace):
		_ = g.terminate()
		select {
		case <-p.exited:
		case <-time.After(termGrace):
			_ = g.kill()
			<-p.exited
		}
	}
	reapGroup(g)
	g.close()
	_ = p.stdout.Close()
	// The last stderr lines explain a crash: let them reach the console
	// before the caller reads it. A grandchild holding the pipe open
	// could keep it from EOF, so wait only briefly.
	select {
	case <-p.drained:
	case <-time.After(time.Second):
	}
}

// reapGroup ends group members that outlived the leader.
func reapGroup(g procGroup) {
	if !g.alive() {
		return
	}
	_ = g.terminate()
	deadline := time.Now().Add(termGrace)
	for g.alive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if g.alive() {
		_ = g.kill()
	}
}
