package leanhttp

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
)

// bufferLimit is the most of a body a response holds before its head is
// written: a body that ends within it goes out with a Content-Length in
// one write; a longer one, or one flushed early, goes out chunked.
const bufferLimit = 16 << 10

// keptBuffer is the most of that buffer a connection keeps between
// requests.
const keptBuffer = 4 << 10

var errAfterReturn = errors.New("leanhttp: the ResponseWriter was used after its handler returned")

func requestURL(target string) *url.URL { return &url.URL{Path: target} }

// response is the http.ResponseWriter of a request on the lean path, with
// net/http's framing: a Content-Length when the whole body is known at the
// end, chunked otherwise; a Date and a sniffed Content-Type when the
// handler set none; "Connection: close" when the connection cannot be
// kept. It also answers http.ResponseController (Flush, deadlines,
// EnableFullDuplex); it cannot be hijacked.
type response struct {
	c      *conn
	req    *http.Request
	header http.Header
	body   *body

	status      int
	wroteHeader bool
	committed   bool // the head is written
	chunked     bool
	declared    int64 // the handler's Content-Length, -1 for none
	written     int64
	closeAfter  bool
	done        bool // the handler returned
	deadlines   bool // the handler set a deadline on the connection
	err         error
}

func (w *response) Header() http.Header { return w.header }

func (w *response) WriteHeader(code int) {
	if w.done || w.wroteHeader {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code)) // as net/http's
	}
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		// An informational answer goes out at once; the real one follows.
		w.writeStatusLine(code)
		w.err = errors.Join(w.err, w.header.Write(w.c.bw))
		_, _ = w.c.bw.WriteString("\r\n")
		w.err = errors.Join(w.err, w.c.bw.Flush())
		return
	}
	w.wroteHeader, w.status = true, code
	if cl := w.header.Get("Content-Length"); cl != "" {
		if v, err := strconv.ParseInt(cl, 10, 64); err == nil && v >= 0 {
			w.declared = v
		} else {
			w.c.logf("http: invalid Content-Length of %q", cl)
			w.header.Del("Content-Length")
		}
	}
}

func (w *response) Write(p []byte) (int, error) {
	if w.done {
		return 0, errAfterReturn
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	w.written += int64(len(p))
	if w.declared >= 0 && w.written > w.declared {
		return 0, http.ErrContentLength
	}
	if !w.committed {
		if len(w.c.buf)+len(p) <= bufferLimit {
			w.c.buf = append(w.c.buf, p...)
			return len(p), nil
		}
		w.commit(false, p)
	}
	return w.writeBody(p)
}

func (w *response) writeBody(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	bw := w.c.bw
	if w.chunked {
		var size [16]byte
		_, _ = bw.Write(strconv.AppendInt(size[:0], int64(len(p)), 16))
		_, _ = bw.WriteString("\r\n")
	}
	n, err := bw.Write(p)
	if w.chunked && err == nil {
		_, err = bw.WriteString("\r\n")
	}
	if err != nil {
		w.err = err
	}
	return n, err
}

// commit writes the head, and the body held so far. final says the handler
// has returned, so the held body is all of it; next is the write that did
// not fit in the held body, if that is why the head goes now.
func (w *response) commit(final bool, next []byte) {
	w.committed = true
	h := w.header
	held := w.c.buf
	if bodyAllowed(w.status) {
		if w.declared < 0 {
			if final {
				h["Content-Length"] = []string{strconv.Itoa(len(held))}
			} else {
				w.chunked = true
				h["Transfer-Encoding"] = []string{"chunked"}
			}
		}
		if _, ok := h["Content-Type"]; !ok && len(held)+len(next) > 0 {
			h["Content-Type"] = []string{http.DetectContentType(sniffed(held, next))}
		}
	}
	if _, ok := h["Date"]; !ok {
		h["Date"] = []string{httpDate()}
	}
	if w.body.remain > maxDiscard || httpguts.HeaderValuesContainsToken(h["Connection"], "close") {
		w.closeAfter = true
	}
	if w.closeAfter {
		h["Connection"] = []string{"close"}
	}
	w.writeStatusLine(w.status)
	if err := h.Write(w.c.bw); err != nil {
		w.err = err
	}
	_, _ = w.c.bw.WriteString("\r\n")
	if len(held) > 0 {
		if final {
			_, _ = w.c.bw.Write(held)
		} else {
			_, _ = w.writeBody(held)
		}
	}
	w.c.buf = held[:0]
}

// sniffed is the start of the body that net/http sniffs a Content-Type
// from: the first 512 bytes.
func sniffed(held, next []byte) []byte {
	const sniffLen = 512
	if len(held) >= sniffLen || len(next) == 0 {
		return held
	}
	return append(append([]byte(nil), held...), next[:min(len(next), sniffLen-len(held))]...)
}

func (w *response) writeStatusLine(code int) {
	bw := w.c.bw
	_, _ = bw.WriteString("HTTP/1.1 ")
	var num [8]byte
	_, _ = bw.Write(strconv.AppendInt(num[:0], int64(code), 10))
	if text := http.StatusText(code); text != "" {
		_, _ = bw.WriteString(" " + text + "\r\n")
	} else {
		_, _ = bw.WriteString(" status code " + strconv.Itoa(code) + "\r\n")
	}
}

// finish ends the response after the handler returned.
func (w *response) finish() error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	w.done = true
	if !w.committed {
		w.commit(true, nil)
	} else if w.chunked && w.err == nil {
		_, _ = w.c.bw.WriteString("0\r\n\r\n")
	}
	if w.declared >= 0 && w.written != w.declared {
		w.closeAfter = true // a body shorter than its length: the connection is out of step
	}
	if cap(w.c.buf) > keptBuffer {
		w.c.buf = nil // an idle connection keeps no more than a small answer's buffer
	}
	err := w.c.bw.Flush()
	if w.deadlines {
		_ = w.c.nc.SetReadDeadline(time.Time{})
		_ = w.c.nc.SetWriteDeadline(time.Time{})
	}
	return errors.Join(w.err, err)
}

// Flush sends the head and what is written so far (http.Flusher).
func (w *response) Flush() { _ = w.FlushError() }

// FlushError is Flush reporting the connection's error
// (http.ResponseController).
func (w *response) FlushError() error {
	if w.done {
		return errAfterReturn
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !w.committed {
		w.commit(false, nil)
	}
	if w.err != nil {
		return w.err
	}
	if err := w.c.bw.Flush(); err != nil {
		w.err = err
	}
	return w.err
}

// SetReadDeadline and SetWriteDeadline set the connection's deadlines for
// this request (http.ResponseController); they are cleared after it.
func (w *response) SetReadDeadline(t time.Time) error {
	w.deadlines = true
	return w.c.nc.SetReadDeadline(t)
}

func (w *response) SetWriteDeadline(t time.Time) error {
	w.deadlines = true
	return w.c.nc.SetWriteDeadline(t)
}

// EnableFullDuplex is allowed: the body can be read while the answer is
// written.
func (w *response) EnableFullDuplex() error { return nil }

func bodyAllowed(status int) bool {
	return !(status >= 100 && status <= 199 || status == http.StatusNoContent || status == http.StatusNotModified)
}

// httpDate is the Date header's value, formatted once a second.
func httpDate() string {
	now := time.Now()
	sec := now.Unix()
	if d := dateCache.Load(); d != nil && d.sec == sec {
		return d.text
	}
	d := &cachedDate{sec: sec, text: now.UTC().Format(http.TimeFormat)}
	dateCache.Store(d)
	return d.text
}

type cachedDate struct {
	sec  int64
	text string
}

var dateCache atomic.Pointer[cachedDate]

// body is a request's body on the lean path: Content-Length bytes from
// the connection's buffer.
type body struct {
	c      *conn
	remain int64
	closed bool
}

func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.remain {
		p = p[:b.remain]
	}
	n, err := b.c.br.Read(p)
	b.remain -= int64(n)
	if b.remain == 0 {
		b.c.bodyEnded()
		return n, io.EOF
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// Close marks the body read; what is left of it is read past (or the
// connection closed) after the handler returns, as in net/http.
func (b *body) Close() error {
	b.closed = true
	return nil
}
