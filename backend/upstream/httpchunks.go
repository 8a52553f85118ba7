package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// chunkReader decodes a chunked HTTP/1.1 body (RFC 9112 §7.1) from a
// connection's bufio.Reader. net/http's decoder would do, except that its
// first error sticks: an event stream's connection is kept for reuse by
// reading the end of the stream (after the answer) with a short deadline,
// and a read that times out there must leave the decoder and the buffer
// as they were, to be tried again. So nothing is consumed until a whole
// chunk-size line, or some data, is there. Trailers are read and dropped.
type chunkReader struct {
	br    *bufio.Reader
	state chunkState
	left  int64 // bytes left in the current chunk
	// buffered: read only what br holds already, and report errWouldBlock
	// where br would read from the connection.
	buffered bool
}

// errWouldBlock: the rest is not in the buffer yet (chunkReader.buffered).
var errWouldBlock = errors.New("would block")

type chunkState uint8

const (
	chunkSize     chunkState = iota // the next line is a chunk size
	chunkData                       // left bytes of data, then CRLF
	chunkDataEnd                    // the CRLF after a chunk's data
	chunkTrailers                   // after the last chunk: trailer lines up to an empty one
	chunkDone                       // the body has ended
)

var errBadChunk = errors.New("malformed chunked encoding")

func (r *chunkReader) reset(br *bufio.Reader) { *r = chunkReader{br: br} }

// ended reports whether the body has been read to its end.
func (r *chunkReader) ended() bool { return r.state == chunkDone }

func (r *chunkReader) Read(p []byte) (int, error) {
	for {
		switch r.state {
		case chunkDone:
			return 0, io.EOF
		case chunkSize:
			line, err := r.line()
			if err != nil {
				return 0, err
			}
			if i := bytes.IndexByte(line, ';'); i >= 0 {
				line = line[:i] // a chunk extension, ignored
			}
			line = bytes.TrimRight(line, " \t")
			if len(line) == 0 || len(line) > 16 {
				return 0, errBadChunk
			}
			n, err := strconv.ParseInt(string(line), 16, 64)
			if err != nil || n < 0 {
				return 0, errBadChunk
			}
			if n == 0 {
				r.state = chunkTrailers
			} else {
				r.state, r.left = chunkData, n
			}
		case chunkData:
			if len(p) == 0 {
				return 0, nil
			}
			if int64(len(p)) > r.left {
				p = p[:r.left]
			}
			if r.buffered && r.br.Buffered() == 0 {
				return 0, errWouldBlock
			}
			n, err := r.br.Read(p)
			r.left -= int64(n)
			if r.left == 0 {
				r.state = chunkDataEnd
			}
			if n > 0 {
				return n, nil
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		case chunkDataEnd:
			line, err := r.line()
			if err != nil {
				return 0, err
			}
			if len(line) != 0 {
				return 0, errBadChunk
			}
			r.state = chunkSize
		case chunkTrailers:
			line, err := r.line()
			if err != nil {
				return 0, err
			}
			if len(line) == 0 {
				r.state = chunkDone
			}
		}
	}
}

// line consumes the next line and returns it without its CRLF (or LF),
// valid until the next read. When the line is not complete it consumes
// nothing and returns the read's error.
func (r *chunkReader) line() ([]byte, error) {
	for {
		buf, _ := r.br.Peek(r.br.Buffered())
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line := buf[:i]
			_, _ = r.br.Discard(i + 1)
			return bytes.TrimSuffix(line, []byte{'\r'}), nil
		}
		if r.br.Buffered() >= 4096 {
			return nil, errBadChunk // no chunk line is this long
		}
		if r.buffered {
			return nil, errWouldBlock
		}
		if _, err := r.br.Peek(r.br.Buffered() + 1); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}
