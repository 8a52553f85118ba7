package hotpath

// Raw reads and writes. The runtime's poller still does all the waiting
// (syscall.RawConn's Read and Write wait in it whenever the callback says
// "not yet"), so deadlines and Close work as before; only the read or
// write itself is made with syscall.RawSyscall, without entersyscall's
// bookkeeping. That is safe only for a call that never sleeps in the
// kernel — with one P, a read that blocked would stop every goroutine.
// Sockets are read and written with MSG_DONTWAIT, which cannot block
// whatever the descriptor's mode; a pipe is wrapped only if its
// descriptor is non-blocking when File is called (os.Pipe's are; calling
// Fd() on the os.File afterwards would make it blocking, and nothing in
// the router does).

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

const supported = true

// Conn returns c reading and writing with raw system calls when it is a
// TCP connection; any other connection is returned as it is.
func Conn(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok || !RawIO() {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	return &tcpConn{TCPConn: tc, rc: rc}
}

// tcpConn is a *net.TCPConn whose Read and Write make raw system calls.
// Everything else (deadlines, Close, CloseWrite, addresses) is the
// TCPConn's own. Its errors read as the TCPConn's would: io.EOF at the
// end, and otherwise a *net.OpError ("read"/"write") around
// net.ErrClosed, os.ErrDeadlineExceeded or an *os.SyscallError.
type tcpConn struct {
	*net.TCPConn
	rc syscall.RawConn
}

func (c *tcpConn) Read(p []byte) (int, error) {
	n, err := rawRead(c.rc, p, recv)
	if err != nil && err != io.EOF {
		err = &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	return n, err
}

func (c *tcpConn) Write(p []byte) (int, error) {
	n, err := rawWrite(c.rc, p, send)
	if err != nil {
		err = &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	return n, err
}

// File returns a reader and writer of f (a pipe end the runtime polls)
// that make raw system calls, or f itself when its descriptor is not
// non-blocking.
func File(f *os.File) io.ReadWriter {
	if !RawIO() {
		return f
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	nonBlocking := false
	if rc.Control(func(fd uintptr) {
		flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonBlocking = e == 0 && flags&syscall.O_NONBLOCK != 0
	}) != nil || !nonBlocking {
		return f
	}
	return &file{f: f, rc: rc}
}

// file reads and writes an *os.File with raw system calls. Its errors are
// *os.PathError around the poller's error (a closed file, a deadline) or
// an *os.SyscallError, and io.EOF at the end.
type file struct {
	f  *os.File
	rc syscall.RawConn
}

func (f *file) Read(p []byte) (int, error) {
	n, err := rawRead(f.rc, p, readFD)
	if err != nil && err != io.EOF {
		err = &os.PathError{Op: "read", Path: f.f.Name(), Err: err}
	}
	return n, err
}

func (f *file) Write(p []byte) (int, error) {
	n, err := rawWrite(f.rc, p, writeFD)
	if err != nil {
		err = &os.PathError{Op: "write", Path: f.f.Name(), Err: err}
	}
	return n, err
}

type rawCall func(fd uintptr, p []byte) (uintptr, syscall.Errno)

// uninterrupted makes call again for as long as a signal interrupts it.
// Its callers then have the poller wait only on EAGAIN.
func uninterrupted(call rawCall, fd uintptr, p []byte) (uintptr, syscall.Errno) {
	for {
		n, errno := call(fd, p)
		if errno != syscall.EINTR {
			return n, errno
		}
	}
}

// rawRead makes one read; the poller waits while there is nothing to
// read. Zero bytes read is the end (io.EOF).
func rawRead(rc syscall.RawConn, p []byte, call rawCall) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n uintptr
	var errno syscall.Errno
	err := rc.Read(func(fd uintptr) bool {
		n, errno = uninterrupted(call, fd, p)
		return errno != syscall.EAGAIN
	})
	switch {
	case err != nil:
		return 0, pollError(err)
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

// rawWrite writes all of p, waiting in the poller while the kernel's
// buffer is full.
func rawWrite(rc syscall.RawConn, p []byte, call rawCall) (int, error) {
	done := 0
	for done < len(p) {
		var n uintptr
		var errno syscall.Errno
		err := rc.Write(func(fd uintptr) bool {
			n, errno = uninterrupted(call, fd, p[done:])
			return errno != syscall.EAGAIN
		})
		switch {
		case err != nil:
			return done, pollError(err)
		case errno != 0:
			return done, os.NewSyscallError("write", errno)
		}
		done += int(n)
	}
	return done, nil
}

// pollError unwraps the "raw-read"/"raw-write" *net.OpError that a
// socket's RawConn wraps the poller's error in; the caller wraps it as an
// ordinary read or write would be.
func pollError(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Err
	}
	return err
}
