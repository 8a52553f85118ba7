package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// The task front of `mcp-router stdio`: mcp-go's stdio server reads every
// line itself and would answer tasks with a store of its own (taskfront.go
// says why not), so the lines are read here first. Task requests are
// answered by the router and written to out; every other line goes on to
// mcp-go unchanged, and mcp-go writes through the same lock, so no two
// messages interleave.

// stdioSessionID is the id mcp-go (v1.2.1) gives its one stdio session.
const stdioSessionID = "stdio"

// stdioFront is the gateway's state for the stdio task front.
type stdioFront struct {
	on      atomic.Bool                          // StdioFront was called: tasks are answered on stdio
	session atomic.Pointer[server.ClientSession] // mcp-go's stdio session, once registered
}

// lockedWriter serializes whole messages: mcp-go writes each in one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// writeParts writes one message given in parts, none between them.
func (l *lockedWriter) writeParts(parts ...[]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range parts {
		if _, err := l.w.Write(p); err != nil {
			return
		}
	}
}

// StdioFront wraps the stdio transport's streams: give mcp-go's stdio
// server the reader and writer it returns. Lines over MaxBodyBytes are
// passed on unread, as is everything while no session is registered.
func (g *Gateway) StdioFront(ctx context.Context, in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	g.stdio.on.Store(true)
	lw := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, whole, err := readLine(br, MaxBodyBytes)
			if len(line) > 0 {
				if !whole || !g.stdioTask(ctx, line, lw) && !g.stdioList(ctx, line, lw) {
					if _, werr := pw.Write(line); werr != nil {
						return
					}
				}
				if !whole { // the rest of a line too long to read: as it comes
					if _, err := copyLine(pw, br); err != nil {
						_ = pw.CloseWithError(err)
						return
					}
				}
			}
			if err != nil {
				_ = pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr, lw
}

// readLine reads up to and including the next newline, at most limit
// bytes; whole is false when the line goes on past limit.
func readLine(br *bufio.Reader, limit int) (line []byte, whole bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line) > limit {
				return line, false, nil
			}
		default:
			return line, true, err
		}
	}
}

// copyLine copies the rest of the current line (to its newline) to w.
func copyLine(w io.Writer, br *bufio.Reader) (int64, error) {
	var n int64
	for {
		chunk, err := br.ReadSlice('\n')
		m, werr := w.Write(chunk)
		n += int64(m)
		if werr != nil {
			return n, werr
		}
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, err
		}
	}
}

// stdioTask answers line if it is a task request of the registered stdio
// session, in the background (tasks/result waits), and reports whether it
// took it.
func (g *Gateway) stdioTask(ctx context.Context, line []byte, out io.Writer) bool {
	sp := g.stdio.session.Load()
	if sp == nil {
		return false
	}
	var m message
	if json.Unmarshal(line, &m) != nil || !g.isTaskRequest(&m) {
		return false
	}
	body := bytes.Clone(line)
	go func() {
		start := time.Now()
		res, err := g.answerTask(ctx, *sp, &m, body)
		_, _ = out.Write(rpcBody(m.ID, res, err))
		g.logTask(ctx, &m, body, start, res, err)
	}()
	return true
}

// trackStdioSession follows mcp-go's stdio session (there is one, in the
// process of `mcp-router stdio`).
func (g *Gateway) trackStdioSession(h *server.Hooks) {
	h.AddOnRegisterSession(func(_ context.Context, s server.ClientSession) {
		if s.SessionID() == stdioSessionID && !isStreamableSession(s) {
			g.stdio.session.Store(&s)
		}
	})
	h.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		if s.SessionID() == stdioSessionID {
			g.stdio.session.Store(nil)
		}
	})
}
