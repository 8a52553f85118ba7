package leanhttp

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"
)

const okHead = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3282\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"

func TestParseHeadTakesThePlainCase(t *testing.T) {
	h, ok := parseHead([]byte(okHead))
	if !ok {
		t.Fatal("a plain POST was not taken")
	}
	if h.method != "POST" || h.target != "/mcp" || h.host != "127.0.0.1:3282" || h.contentLength != 2 || h.size != len(okHead)-2 {
		t.Fatalf("head = %+v", h)
	}
	want := http.Header{"Content-Type": {"application/json"}, "Content-Length": {"2"}}
	if !reflect.DeepEqual(h.header, want) {
		t.Fatalf("header = %v, want %v", h.header, want)
	}
}

func TestParseHeadCanonicalisesLowerCaseNames(t *testing.T) {
	h, ok := parseHead([]byte("POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\nmcp-session-id: abc\r\nx-odd-NAME: v\r\naccept:  a, b \r\n\r\n"))
	if !ok {
		t.Fatal("not taken")
	}
	want := http.Header{"Content-Length": {"0"}, "Mcp-Session-Id": {"abc"}, "X-Odd-Name": {"v"}, "Accept": {"a, b"}}
	if !reflect.DeepEqual(h.header, want) || h.host != "x" {
		t.Fatalf("header = %v host %q, want %v", h.header, h.host, want)
	}
}

// Every request the lean path must leave to net/http: what it would have to
// judge, or cannot serve the same way.
func TestParseHeadLeavesTheRestToNetHTTP(t *testing.T) {
	base := "Host: x\r\nContent-Length: 2\r\n"
	for name, req := range map[string]string{
		"incomplete head":          "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Len",
		"HTTP/1.0":                 "POST /mcp HTTP/1.0\r\n" + base + "\r\n",
		"HTTP/2 preface":           "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"absolute-form target":     "POST http://x/mcp HTTP/1.1\r\n" + base + "\r\n",
		"query":                    "POST /mcp?x=1 HTTP/1.1\r\n" + base + "\r\n",
		"escaped path":             "POST /m%63p HTTP/1.1\r\n" + base + "\r\n",
		"no Host":                  "POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n",
		"two Hosts":                "POST /mcp HTTP/1.1\r\n" + base + "Host: y\r\n\r\n",
		"bad Host":                 "POST /mcp HTTP/1.1\r\nHost: a b\r\nContent-Length: 2\r\n\r\n",
		"no Content-Length":        "POST /mcp HTTP/1.1\r\nHost: x\r\n\r\n",
		"two Content-Lengths":      "POST /mcp HTTP/1.1\r\n" + base + "Content-Length: 2\r\n\r\n",
		"signed Content-Length":    "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n",
		"listed Content-Length":    "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2, 2\r\n\r\n",
		"huge Content-Length":      "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"chunked":                  "POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
		"chunked and length":       "POST /mcp HTTP/1.1\r\n" + base + "transfer-encoding: chunked\r\n\r\n",
		"Expect":                   "POST /mcp HTTP/1.1\r\n" + base + "Expect: 100-continue\r\n\r\n",
		"Upgrade":                  "POST /mcp HTTP/1.1\r\n" + base + "Upgrade: websocket\r\n\r\n",
		"Connection: close":        "POST /mcp HTTP/1.1\r\n" + base + "Connection: close\r\n\r\n",
		"Connection: upgrade":      "POST /mcp HTTP/1.1\r\n" + base + "Connection: keep-alive, Upgrade\r\n\r\n",
		"Pragma":                   "POST /mcp HTTP/1.1\r\n" + base + "Pragma: no-cache\r\n\r\n",
		"obs-fold":                 "POST /mcp HTTP/1.1\r\n" + base + "X-A: a\r\n b\r\n\r\n",
		"space before colon":       "POST /mcp HTTP/1.1\r\n" + base + "X-A : a\r\n\r\n",
		"no colon":                 "POST /mcp HTTP/1.1\r\n" + base + "X-A\r\n\r\n",
		"control byte in a value":  "POST /mcp HTTP/1.1\r\n" + base + "X-A: a\x00b\r\n\r\n",
		"bare LF":                  "POST /mcp HTTP/1.1\n" + base + "\r\n",
		"lower-case method":        "post /mcp HTTP/1.1\r\n" + base + "\r\n",
		"extra space":              "POST  /mcp HTTP/1.1\r\n" + base + "\r\n",
		"too many header lines":    "POST /mcp HTTP/1.1\r\n" + base + strings.Repeat("X-A: a\r\n", maxHeaders) + "\r\n",
		"empty header name":        "POST /mcp HTTP/1.1\r\n" + base + ": a\r\n\r\n",
		"non-token in header name": "POST /mcp HTTP/1.1\r\n" + base + "X(A): a\r\n\r\n",
	} {
		if name == "lower-case method" {
			// A token, so taken; the caller's take(method, path) refuses it.
			if h, ok := parseHead([]byte(req)); !ok || h.method != "post" {
				t.Errorf("%s: got %+v %v", name, h, ok)
			}
			continue
		}
		if h, ok := parseHead([]byte(req)); ok {
			t.Errorf("%s: taken as %+v", name, h)
		}
	}
}

// FuzzParseHead holds parseHead to net/http: whatever it takes, net/http's
// server reads as the same request (method, target, Host, headers, length
// and body), so serving it on the lean path changes nothing a handler sees.
func FuzzParseHead(f *testing.F) {
	for _, s := range []string{
		okHead,
		"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\nmcp-session-id: abc\r\n\r\n",
		"POST /mcp HTTP/1.1\r\nHost: [::1]:3282\r\nContent-Length: 5\r\nConnection: Keep-Alive\r\nAccept: application/json, text/event-stream\r\n\r\nhello",
		"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 007\r\nX-A:\t v \t\r\nX-A: w\r\n\r\n1234567",
		"GET /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
		"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nX-\x80: \xff\r\n\r\n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := parseHead(b)
		if !ok {
			return
		}
		r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			t.Fatalf("taken, but net/http refuses it: %v\n%q", err, b)
		}
		if msg := serverRefuses(r, b); msg != "" {
			t.Fatalf("taken, but net/http's server answers 400 (%s)\n%q", msg, b)
		}
		if r.Method != h.method || r.RequestURI != h.target || r.URL.Path != h.target || r.URL.RawQuery != "" || r.Host != h.host {
			t.Fatalf("request line: net/http %s %q %q host %q, lean %s %q host %q\n%q", r.Method, r.RequestURI, r.URL.Path, r.Host, h.method, h.target, h.host, b)
		}
		if r.ContentLength != h.contentLength || r.Close || len(r.TransferEncoding) > 0 {
			t.Fatalf("framing: net/http length %d close %v te %v, lean %d\n%q", r.ContentLength, r.Close, r.TransferEncoding, h.contentLength, b)
		}
		if !reflect.DeepEqual(r.Header, h.header) {
			t.Fatalf("headers: net/http %q, lean %q\n%q", r.Header, h.header, b)
		}
		want, werr := io.ReadAll(r.Body)
		rest := b[h.size:]
		got := rest[:min(int64(len(rest)), h.contentLength)]
		if (werr == nil) != (int64(len(rest)) >= h.contentLength) || (werr == nil && !bytes.Equal(want, got)) {
			t.Fatalf("body: net/http %q (%v), lean %q\n%q", want, werr, got, b)
		}
	})
}

// serverRefuses is what net/http's server checks after reading a request
// (conn.readRequest) before a handler runs. ReadRequest drops the Host
// lines from the header, so they are read again from the raw bytes b.
func serverRefuses(r *http.Request, b []byte) string {
	if r.ProtoMajor != 1 || r.ProtoMinor != 1 {
		return "not HTTP/1.1"
	}
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(b)))
	if _, err := tp.ReadLine(); err != nil {
		return err.Error()
	}
	raw, err := tp.ReadMIMEHeader()
	if err != nil {
		return err.Error()
	}
	hosts, haveHost := raw["Host"]
	if !haveHost || len(hosts) == 0 {
		return "missing Host"
	}
	if len(hosts) > 1 {
		return "too many Host headers"
	}
	if !httpguts.ValidHostHeader(r.Host) {
		return "malformed Host"
	}
	for k, vv := range raw {
		if !httpguts.ValidHeaderFieldName(k) {
			return "invalid header name"
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return "invalid header value"
			}
		}
	}
	return ""
}
