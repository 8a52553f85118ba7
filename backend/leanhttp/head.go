package leanhttp

import (
	"bytes"
	"net/http"
	"net/textproto"
	"strconv"

	"golang.org/x/net/http/httpguts"
)

// maxHeaders bounds the header lines of a request the lean path serves; a
// request with more goes to net/http (which allows up to MaxHeaderBytes).
const maxHeaders = 64

// head is a request head the lean path may serve: everything but the body.
type head struct {
	method, target string
	host           string
	header         http.Header
	contentLength  int64
	size           int // bytes of the head, the blank line included
}

var crlfcrlf = []byte("\r\n\r\n")

// parseHead parses the request head at the start of b, which holds the
// bytes the connection has buffered. It accepts only the plain case: a
// complete head in b, an origin-form target, HTTP/1.1, a Host, a single
// decimal Content-Length, and no header that asks for anything more
// (Transfer-Encoding, Expect, Upgrade, a Connection other than
// keep-alive). Whatever it accepts, http.ReadRequest reads the same way
// (FuzzParseHead holds it to that); anything else is not ok, and the
// connection goes to net/http with these bytes unread, so net/http's own
// checks and error answers apply to it.
func parseHead(b []byte) (h head, ok bool) {
	end := bytes.Index(b, crlfcrlf)
	if end < 0 {
		return head{}, false
	}
	h.size = end + 4
	b = b[:end+2] // every line ends in CRLF
	nl := bytes.Index(b, crlf)
	if !h.requestLine(b[:nl]) {
		return head{}, false
	}
	b = b[nl+2:]
	h.header = make(http.Header, 8)
	h.contentLength = -1
	seenHost := false
	for n := 0; len(b) > 0; n++ {
		if n == maxHeaders {
			return head{}, false
		}
		nl := bytes.Index(b, crlf)
		line := b[:nl]
		b = b[nl+2:]
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return head{}, false // no name, or an obs-fold continuation line
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		if !validName(name) || !httpguts.ValidHeaderFieldValue(string(value)) {
			return head{}, false
		}
		key := canonicalKey(name)
		switch key {
		case "Host":
			if seenHost || !httpguts.ValidHostHeader(string(value)) {
				return head{}, false
			}
			seenHost = true
			h.host = string(value)
			continue // net/http keeps Host in Request.Host, not in Header
		case "Content-Length":
			if h.contentLength >= 0 {
				return head{}, false
			}
			if h.contentLength = contentLength(value); h.contentLength < 0 {
				return head{}, false
			}
		case "Transfer-Encoding", "Expect", "Upgrade", "Te", "Trailer", "Pragma":
			// Framing, interim answers and protocol switches are net/http's
			// to handle; so is Pragma, which it folds into Cache-Control.
			return head{}, false
		case "Connection":
			if !bytes.EqualFold(value, []byte("keep-alive")) {
				return head{}, false
			}
		}
		h.header[key] = append(h.header[key], string(value))
	}
	if !seenHost || h.contentLength < 0 {
		return head{}, false
	}
	return h, true
}

var crlf = []byte("\r\n")

// requestLine reads "METHOD SP origin-form-target SP HTTP/1.1".
func (h *head) requestLine(line []byte) bool {
	sp1 := bytes.IndexByte(line, ' ')
	if sp1 <= 0 {
		return false
	}
	rest := line[sp1+1:]
	sp2 := bytes.IndexByte(rest, ' ')
	if sp2 <= 0 || string(rest[sp2+1:]) != "HTTP/1.1" {
		return false
	}
	method, target := line[:sp1], rest[:sp2]
	if !validName(method) || target[0] != '/' || !plainPath(target) {
		return false
	}
	h.method = internMethod(method)
	h.target = internTarget(target)
	return true
}

// plainPath is a path of unreserved characters and '/': no query, no
// percent-escapes, nothing url.ParseRequestURI would read differently
// from the bytes.
func plainPath(p []byte) bool {
	for _, c := range p {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '/', c == '-', c == '.', c == '_', c == '~':
		default:
			return false
		}
	}
	return true
}

// validName is a token (RFC 9110): what net/http accepts as a method or a
// header field name.
func validName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !httpguts.IsTokenRune(rune(c)) {
			return false
		}
	}
	return true
}

// trimOWS trims spaces and tabs only: textproto.TrimBytes would also take
// a stray '\r' that net/http refuses (corpus feaa35fc76531bfd).
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// contentLength is a Content-Length value of 1 to 18 decimal digits, -1
// for anything else (a sign, spaces, a list, an overflow).
func contentLength(v []byte) int64 {
	if len(v) == 0 || len(v) > 18 {
		return -1
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return -1
		}
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// commonKeys are the canonical forms of the header names MCP clients
// send, looked up by the bytes as sent (Node's fetch sends lower case), so
// that a request's keys cost no allocation.
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"Accept", "Accept-Encoding", "Accept-Language", "Authorization", "Connection",
		"Content-Length", "Content-Type", "Host", "Last-Event-Id", "Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version",
		"Mcp-Session-Id", "Origin", "Sec-Fetch-Mode", "Traceparent", "Tracestate", "User-Agent",
		"X-Upstream-Authorization", "X-Upstream-Authorization-For", "Transfer-Encoding", "Expect", "Upgrade",
		"Te", "Trailer", "Pragma", "Cookie", "Referer"} {
		m[k] = k
		m[string(bytes.ToLower([]byte(k)))] = k
	}
	return m
}()

func canonicalKey(name []byte) string {
	if k, ok := commonKeys[string(name)]; ok {
		return k
	}
	return textproto.CanonicalMIMEHeaderKey(string(name))
}

func internMethod(m []byte) string {
	switch string(m) {
	case http.MethodPost:
		return http.MethodPost
	case http.MethodGet:
		return http.MethodGet
	case http.MethodDelete:
		return http.MethodDelete
	}
	return string(m)
}

func internTarget(t []byte) string {
	if string(t) == "/mcp" {
		return "/mcp"
	}
	return string(t)
}
