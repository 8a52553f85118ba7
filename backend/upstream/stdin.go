package upstream

import (
	"io"
	"runtime"
	"sync"
)

// stdinLines writes a stdio server's input, one JSON-RPC message a line.
// The lines of calls that are ready at the same time go out in one write:
// the first writer yields once before writing, and the lines other calls
// queue meanwhile go with its own. Each write on a pipe wakes the server,
// which costs the router about 2 µs of CPU (and the server as much again);
// under load calls arrive in bursts (the server answers in bursts), so one
// write carries several. A lone call pays one yield, well under a
// microsecond. Lines keep the order they were written in.
type stdinLines struct {
	w io.Writer

	mu       sync.Mutex
	queued   []byte // lines not yet written, in order
	spare    []byte // the other buffer, reused
	flushing bool   // a goroutine is about to write queued, or writing
	err      error  // the write that failed: stdin is gone; every later write fails with it
}

// write writes line, with the lines queued around it. It returns the
// error of the write that carried line when this goroutine wrote it; a
// line queued for another goroutine's write returns nil at once, and if
// that write fails, broken is called (the transport closes, and its
// waiting calls fail with failure's error). The writer returns once its
// own line is written: lines queued while it wrote go out on a goroutine
// of their own, so a call is never held up writing other calls' lines (a
// server slow to read its stdin would otherwise keep a call from its
// answer).
func (s *stdinLines) write(line []byte, broken func()) error {
	s.mu.Lock()
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		return err
	}
	s.queued = append(s.queued, line...)
	if s.flushing {
		s.mu.Unlock()
		return nil
	}
	s.flushing = true
	s.mu.Unlock()
	runtime.Gosched() // the other calls that are ready queue their lines
	more, err := s.flushOnce(broken)
	if more {
		go s.flushRest(broken)
	}
	return err
}

// flushOnce writes what is queued (this goroutine's own line among it).
// more reports lines queued since, which the caller must go on writing;
// without more, flushing is over.
func (s *stdinLines) flushOnce(broken func()) (more bool, err error) {
	s.mu.Lock()
	b := s.queued
	if len(b) == 0 || s.err != nil {
		s.queued = b[:0]
		s.flushing = false
		err := s.err
		s.mu.Unlock()
		return false, err
	}
	s.queued, s.spare = s.spare[:0], nil
	s.mu.Unlock()
	_, err = s.w.Write(b)
	s.mu.Lock()
	if cap(b) <= maxKeptStdin {
		s.spare = b[:0]
	}
	if err != nil {
		s.err = err
	}
	more = len(s.queued) > 0 && s.err == nil
	if !more {
		s.queued = s.queued[:0]
		s.flushing = false
	}
	s.mu.Unlock()
	if err != nil {
		broken()
	}
	return more, err
}

// flushRest writes the lines queued while another write went on, until
// none is left.
func (s *stdinLines) flushRest(broken func()) {
	for {
		if more, _ := s.flushOnce(broken); !more {
			return
		}
	}
}

// maxKeptStdin: a buffer grown past it (a large request) is not kept.
const maxKeptStdin = 64 << 10

// failure is the error of the write that failed, nil while stdin works.
func (s *stdinLines) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
