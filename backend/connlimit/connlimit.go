// Package connlimit caps the connections the endpoint holds open at once.
// Every connection costs a file descriptor, which the router also needs
// for its upstream processes, their pipes and its database: without a cap
// a client opening connections could spend them all and so take the
// router down for every other client.
//
// golang.org/x/net/netutil.LimitListener does the counting, but it blocks
// Accept at the cap (a new client hangs, with no word why) and its
// connections hide CloseWrite, which net/http and the lean path need to
// send an answer before closing a connection whose body they did not
// read. Past the cap this Listener answers the new connection with an
// HTTP 503 that names the cap and closes it.
package connlimit

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// EnvMax overrides the cap (a whole number of connections, 16 or more).
const EnvMax = "MCPR_MAX_CONNECTIONS"

const (
	// DefaultMax is the cap unless the file descriptor limit is lower
	// (then half of that; DefaultFor).
	DefaultMax = 4096
	// minMax is the least cap EnvMax may set: a router needs a few
	// connections for itself (a UI, a bridge, the probes).
	minMax = 16
	// lingerMax bounds the refused connections waiting out their
	// client's request before they close (refuse).
	lingerMax = 64
)

// Max is the cap for this process: EnvMax when set (an error for a bad
// value), else DefaultFor the file descriptor limit.
func Max(getenv func(string) string) (int, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := strings.TrimSpace(getenv(EnvMax)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < minMax {
			return 0, fmt.Errorf("%s=%q: want a whole number of connections, %d or more", EnvMax, v, minMax)
		}
		return n, nil
	}
	return DefaultFor(fdLimit()), nil
}

// DefaultFor is the cap for a process that may open fds file descriptors
// (0: unknown): DefaultMax, or half the limit when that is lower, so the
// other half stays for the router's processes, pipes and files.
func DefaultFor(fds uint64) int {
	if fds == 0 || fds/2 >= DefaultMax {
		return DefaultMax
	}
	return max(int(fds/2), minMax)
}

// Listener is a net.Listener that holds at most Max connections open.
type Listener struct {
	net.Listener
	max     int
	open    atomic.Int64
	refused atomic.Uint64
	// onRefuse is called for each refused connection (the router logs,
	// at most every so often).
	onRefuse func(open int)
	lingers  chan struct{}
}

// New caps ln at max open connections; onRefuse (may be nil) hears of
// every connection refused.
func New(ln net.Listener, max int, onRefuse func(open int)) *Listener {
	return &Listener{Listener: ln, max: max, onRefuse: onRefuse, lingers: make(chan struct{}, lingerMax)}
}

// Open is how many connections are open.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Refused counts the connections refused at the cap.
func (l *Listener) Refused() uint64 { return l.refused.Load() }

// Accept returns the next connection under the cap; one past it is
// answered and closed, and Accept waits for the next.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if n := l.open.Add(1); n <= int64(l.max) {
			return &conn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		l.refused.Add(1)
		if l.onRefuse != nil {
			l.onRefuse(l.max)
		}
		l.refuse(c)
	}
}

// refuse answers c with a 503 and closes it. The answer fits in an empty
// socket buffer, so the write does not wait. If the client sent a request
// the router will not read, closing at once could reset the connection
// before the client reads the answer: then, as net/http does, it sends
// its FIN and reads the rest for a moment first, on a goroutine of its
// own, at most lingerMax at once (past that it closes at once).
func (l *Listener) refuse(c net.Conn) {
	body := fmt.Sprintf("mcp-router: too many connections: %d are open, the most the router holds at once (set %s to change it); try again shortly\n", l.max, EnvMax)
	msg := "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(c, msg); err != nil {
		c.Close()
		return
	}
	select {
	case l.lingers <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.lingers }()
		defer c.Close()
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_ = c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		_, _ = io.Copy(io.Discard, io.LimitReader(c, 256<<10))
	}()
}

// conn is an accepted connection; its Close frees its place.
type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

// CloseWrite half-closes the connection, as a *net.TCPConn does (net/http
// and the lean path look for it).
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
