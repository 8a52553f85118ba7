// Package single keeps one desktop app per data directory: the first
// launch claims <data dir>/desktop.sock (a Unix domain socket; Windows 10
// and later have them too) and listens on it; a later launch finds it
// there, asks the first to bring its window forward, and exits before it
// opens the database or starts any server (docs/install.md#single-instance).
//
// The socket lives in the data directory, which only its user can enter, so
// another user cannot pose as the first instance; its protocol is one line
// each way: "show" and "ok <pid>".
package single

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SocketName is the socket's file name in the data directory.
const SocketName = "desktop.sock"

// maxSocketPath: sun_path holds 108 bytes on Linux, 104 on macOS.
const maxSocketPath = 100

// answerTimeout bounds the wait for the first instance's answer.
const answerTimeout = 5 * time.Second

// Running is returned by Claim when another process is the desktop app of
// the data directory; it has been asked to bring its window forward.
type Running struct {
	PID     int
	DataDir string
}

func (r *Running) Error() string {
	return fmt.Sprintf("MCP Router is already running for %s (pid %d); its window was brought forward", r.DataDir, r.PID)
}

// Hold is this process's claim on a data directory.
type Hold struct {
	l      net.Listener
	onShow func()
	done   chan struct{}
	once   sync.Once
	// Path is the socket; "" when the data directory's path is too long
	// for one (then nothing is claimed and every launch runs).
	Path string
}

// Claim makes this process the desktop app of dataDir and calls onShow
// (on a goroutine of its own) each time a later launch asks for the
// window. If another process holds dataDir, it returns a *Running error
// once that process has answered.
func Claim(dataDir string, onShow func()) (*Hold, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dataDir, SocketName)
	if len(path) > maxSocketPath {
		return &Hold{done: make(chan struct{})}, nil
	}
	if pid, err := ask(path); err == nil {
		return nil, &Running{PID: pid, DataDir: dataDir}
	} else if !errors.Is(err, errNobody) {
		return nil, err
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		// The file exists: a launch racing this one may have just
		// bound it, or a crashed app left it behind.
		if pid, askErr := ask(path); askErr == nil {
			return nil, &Running{PID: pid, DataDir: dataDir}
		}
		if rmErr := os.Remove(path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			return nil, fmt.Errorf("claim %s: %w (and cannot remove it: %v)", path, err, rmErr)
		}
		if l, err = net.Listen("unix", path); err != nil {
			return nil, fmt.Errorf("claim %s: %w", path, err)
		}
	}
	c := &Hold{l: l, onShow: onShow, done: make(chan struct{}), Path: path}
	go c.serve()
	return c, nil
}

// Close gives the data directory up; the socket file is removed.
func (c *Hold) Close() {
	c.once.Do(func() {
		close(c.done)
		if c.l != nil {
			_ = c.l.Close()
		}
	})
}

func (c *Hold) serve() {
	for {
		conn, err := c.l.Accept()
		if err != nil {
			select {
			case <-c.done:
				return
			default:
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		go c.answer(conn)
	}
}

// answer reads one request: only "show" does anything.
func (c *Hold) answer(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(answerTimeout))
	line, err := bufio.NewReader(io.LimitReader(conn, 64)).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "show" {
		return
	}
	if c.onShow != nil {
		go c.onShow()
	}
	_, _ = fmt.Fprintf(conn, "ok %d\n", os.Getpid())
}

// errNobody: no process listens on the socket (no file, or a stale one).
var errNobody = errors.New("no desktop app listens")

// ask asks the process on path to show its window and returns its pid.
func ask(path string) (int, error) {
	conn, err := net.DialTimeout("unix", path, answerTimeout)
	if err != nil {
		return 0, errNobody
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(answerTimeout))
	if _, err := conn.Write([]byte("show\n")); err != nil {
		return 0, fmt.Errorf("the desktop app on %s: %w", path, err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("the desktop app on %s did not answer: %w", path, err)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "ok "))
	if !strings.HasPrefix(line, "ok ") || err != nil {
		return 0, fmt.Errorf("the desktop app on %s answered %q", path, strings.TrimSpace(line))
	}
	return pid, nil
}
