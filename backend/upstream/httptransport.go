package upstream

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// streamTransport is the client side of MCP's streamable HTTP transport
// (2025-11-25) towards an HTTP upstream. It replaces mcp-go's
// transport.StreamableHTTP for the same reason pipe.go replaces its stdio
// transport: the cost of every call. Through net/http's Transport each
// request is handed to the connection's read and write goroutines, and
// mcp-go adds three goroutines of its own per call and decodes each event
// up to four times; measured on 2 cores that is 0.1–0.2 ms at p50 per call
// over a client that does none of it (docs/benchmarks.md). Here a call runs
// on the caller's goroutine: the request goes out in one write on a
// kept-alive connection, net/http's own parser (http.ReadResponse) reads
// the answer's status and headers, and each event is decoded once.
//
// What it does, as the spec and mcp-go's transport do:
//   - POST every message with Accept: application/json, text/event-stream;
//     the answer is a JSON body or an event stream carrying notifications
//     (progress) and server requests (sampling, elicitation, roots) before
//     the answer;
//   - the session id from initialize's answer and the negotiated protocol
//     version on every later request; a 404 on a session ends it
//     (transport.ErrSessionTerminated: the supervisor reconnects);
//   - the GET stream for the server's own messages, reopened when it ends,
//     dropped when the server answers 405;
//   - a stream that ends before its answer, after an event id, is resumed
//     with GET and Last-Event-ID (SEP-1699);
//   - DELETE of the session on Close.
//
// An upstream reached through an HTTP proxy keeps mcp-go's transport
// (newHTTPTransport), which honours the proxy settings.
type streamTransport struct {
	target string      // the URL, for messages
	addr   string      // host:port dialled
	tls    *tls.Config // nil for http://
	dialer net.Dialer
	uri    string // request target
	// head is every request's fixed header lines: Host, User-Agent and the
	// configured headers, each "Name: value\r\n".
	head []byte
	// passAuth: a request whose context carries a client's Authorization
	// (WithClientAuthorization) sends headNoAuth and that value instead.
	passAuth   bool
	server     string // the server's name, for a client's value per server
	headNoAuth []byte
	// login: the server's OAuth login (login.go), nil when there is no
	// Authorizer.
	login *loginAuth
	// maxMessage caps one answer or event from the server (0: none).
	maxMessage int

	session  atomic.Value // string: Mcp-Session-Id, "" until initialize answers
	version  atomic.Value // string: Mcp-Protocol-Version, set by the client
	ended    atomic.Bool  // the server forgot the session (404)
	listened atomic.Bool  // the GET stream is open or being reopened

	mu       sync.Mutex
	idle     []*httpConn            // kept-alive connections, last used on top
	active   map[*httpConn]struct{} // connections in use, aborted by Close
	closed   bool
	draining int // connections whose last event stream is being read to its end

	serverHandlers

	ctx       context.Context // Start's: the server's requests on the GET stream run under it
	done      chan struct{}   // closed by Close
	closeOnce sync.Once
	wg        sync.WaitGroup // the GET stream
}

var (
	_ transport.Interface              = (*streamTransport)(nil)
	_ transport.BidirectionalInterface = (*streamTransport)(nil)
	_ transport.HTTPConnection         = (*streamTransport)(nil)
)

// httpConn is one kept-alive HTTP/1.1 connection, used by one exchange at a
// time.
type httpConn struct {
	nc  net.Conn
	raw net.Conn // the TCP connection under TLS (for the liveness check)
	br  *bufio.Reader
	ev  *bufio.Reader // the current answer's event stream
	// chunks decodes a chunked event stream; its end is read before the
	// connection's next use (ready).
	chunks chunkReader
	wbuf   []byte
	data   []byte // the current event's data
	// rest: the last answer's event stream has not been read to its end
	// (c.ev over c.chunks), which ready does before reuse.
	rest bool
	stop func() bool // ends the current exchange's tie to its context
	// lastUsed is when it was last given back (zero: never); a request on
	// a connection idle since long enough may be sent again (exchange).
	lastUsed time.Time
	got      byteCount // what has been read, under br
	broken   bool      // not to be reused
}

// proxyFor is net/http's proxy choice ($HTTPS_PROXY, $NO_PROXY, …);
// loopback addresses never go through a proxy.
var proxyFor = http.ProxyFromEnvironment

// newHTTPTransport picks the transport for a streamable HTTP upstream:
// the router's own, or mcp-go's when the URL goes through a proxy.
func newHTTPTransport(s spec.Server, login *loginAuth, maxMessage int) (transport.Interface, error) {
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %w", s.URL, err)
	}
	if p, err := proxyFor(&http.Request{URL: u}); err == nil && p != nil {
		opts := []transport.StreamableHTTPCOption{}
		if login != nil {
			opts = append(opts, transport.WithHTTPHeaderFunc(loginHeaders(s.Name, s.PassUpstreamAuth, login)))
		} else if s.PassUpstreamAuth {
			opts = append(opts, transport.WithHTTPHeaderFunc(clientAuthHeaders(s.Name)))
		}
		tr, err := transport.NewStreamableHTTP(s.URL, append(opts,
			transport.WithHTTPHeaders(s.Headers),
			// Without it, server-initiated requests sent on the GET stream
			// (sampling, elicitation) are never seen.
			transport.WithContinuousListening(),
			transport.WithHTTPBasicClient(cappedClient(maxMessage)),
			transport.WithHTTPLogger(quietLogger))...)
		if err != nil {
			return nil, fmt.Errorf("bad URL %q: %w", s.URL, err)
		}
		return tr, nil
	}
	t, err := newStreamTransport(u, s.Headers)
	if err != nil {
		return nil, err
	}
	t.passAuth = s.PassUpstreamAuth
	t.server = s.Name
	t.maxMessage = maxMessage
	t.login = login
	return t, nil
}

func newStreamTransport(u *url.URL, headers map[string]string) (*streamTransport, error) {
	t := &streamTransport{target: u.Redacted(), active: map[*httpConn]struct{}{}, done: make(chan struct{}), ctx: context.Background()}
	t.session.Store("")
	t.version.Store("")
	host, port := u.Hostname(), u.Port()
	switch u.Scheme {
	case "http":
		if port == "" {
			port = "80"
		}
	case "https":
		if port == "" {
			port = "443"
		}
		t.tls = &tls.Config{ServerName: host, NextProtos: []string{"http/1.1"}}
	default:
		return nil, fmt.Errorf("bad URL %q: scheme must be http or https", t.target)
	}
	if host == "" {
		return nil, fmt.Errorf("bad URL %q: no host", t.target)
	}
	t.addr = net.JoinHostPort(host, port)
	t.uri = u.RequestURI()
	t.dialer = net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}

	names := make([]string, 0, len(headers))
	canon := map[string]string{}
	for k := range headers {
		// A stored definition passed spec.Validate, which checks the same;
		// this keeps the transport safe from any other caller.
		if err := spec.CheckHeader(k, headers[k]); err != nil {
			return nil, err
		}
		c := textproto.CanonicalMIMEHeaderKey(k)
		if _, dup := canon[c]; dup {
			return nil, fmt.Errorf("header %s is given twice", c)
		}
		canon[c] = headers[k]
		names = append(names, c)
	}
	sort.Strings(names)
	if _, ok := canon["Host"]; !ok {
		t.head = append(t.head, "Host: "+u.Host+"\r\n"...)
	}
	if _, ok := canon["User-Agent"]; !ok {
		t.head = append(t.head, "User-Agent: mcp-router\r\n"...)
	}
	t.headNoAuth = append([]byte(nil), t.head...)
	for _, n := range names {
		t.head = append(t.head, n+": "+canon[n]+"\r\n"...)
		if n != "Authorization" {
			t.headNoAuth = append(t.headNoAuth, n+": "+canon[n]+"\r\n"...)
		}
	}
	return t, nil
}

func (t *streamTransport) Start(ctx context.Context) error {
	t.ctx = ctx
	return nil
}

// SetProtocolVersion sets the version sent in Mcp-Protocol-Version: the
// one the server answered initialize with, so it is checked like any text
// from the server that goes into a header.
func (t *streamTransport) SetProtocolVersion(v string) {
	if visibleASCII(v) {
		t.version.Store(v)
	}
}

// RequiresLegacyProtocol: the GET stream is gone in 2026-07-28.
func (t *streamTransport) RequiresLegacyProtocol() bool { return true }

func (t *streamTransport) GetSessionId() string { return t.session.Load().(string) }

var (
	errTransportClosed = errors.New("transport closed")
	// aLongTimeAgo, as a deadline, unblocks a connection's reads and writes.
	aLongTimeAgo = time.Unix(1, 0)
)

func (t *streamTransport) isClosed() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// SendRequest posts a request and returns its answer. Notifications and
// requests the server sends on the answer's event stream go to the
// handlers first.
func (t *streamTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	initialize := req.Method == string(mcp.MethodInitialize)
	if t.ended.Load() && !initialize {
		return nil, transport.ErrSessionTerminated
	}
	key, err := idKey(req.ID)
	if err != nil {
		return nil, err
	}
	body, err := requestLine(key, req.Method, req.Params)
	if err != nil {
		return nil, err
	}
	extra := ""
	if req.Method == string(mcp.MethodServerDiscover) && t.version.Load().(string) == "" {
		// The probe before initialize (discover.go) is a 2026-07-28
		// request: its revision and method go in the headers too, as that
		// revision requires (a server refuses it otherwise, -32020).
		extra = "Mcp-Protocol-Version: " + modernProtocol + "\r\nMcp-Method: " + req.Method + "\r\n"
	}
	// A connection on 2026-07-28 (modern.go) gives each request's
	// Mcp-Method and Mcp-Name; only values that cannot break the header
	// lines are written.
	for _, name := range sortedKeys(req.Header) {
		if !strings.HasPrefix(name, "Mcp-") || !headerValueSafe(name) || strings.ContainsAny(name, " :") {
			continue
		}
		if v := req.Header.Get(name); headerValueSafe(v) {
			extra += name + ": " + v + "\r\n"
		}
	}
	c, resp, sent, err := t.exchange(ctx, http.MethodPost, body, extra, false)
	if err != nil {
		return nil, err
	}
	defer func() { t.release(c) }()
	if resp.StatusCode == http.StatusOK && initialize {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			if !visibleASCII(sid) {
				c.broken = true
				return nil, fmt.Errorf("the server's session id %q is not visible ASCII", sid)
			}
			t.session.Store(sid)
		}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, t.failed(c, resp, sent, req.Method)
	}
	var answer *transport.JSONRPCResponse
	switch mediaType(resp) {
	case "application/json":
		answer, err = t.readJSONAnswer(c, resp, key, req.ID)
	case "text/event-stream":
		answer, err = t.readStreamAnswer(ctx, c, resp, key, req.ID)
	default:
		c.broken = true
		err = fmt.Errorf("unexpected content type %q in the answer to %s", resp.Header.Get("Content-Type"), req.Method)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if initialize && answer.Error == nil {
		t.ended.Store(false) // a new session
		t.startListening()
	}
	return answer, nil
}

func sortedKeys(h http.Header) []string {
	if len(h) == 0 {
		return nil
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// endSession records that the server no longer knows the session: only a
// new initialize goes out, without the old id.
func (t *streamTransport) endSession() {
	t.ended.Store(true)
	t.session.Store("")
}

// startListening opens the GET stream once a session has started, unless
// it is open already or the transport is closed.
func (t *streamTransport) startListening() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || !t.listened.CompareAndSwap(false, true) {
		return
	}
	t.wg.Add(1)
	go t.listen()
}

// SendNotification posts a notification; the server answers 202.
func (t *streamTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return t.post(ctx, b, n.Method)
}

// post sends a message that has no answer (a notification, or our answer
// to the server's request).
func (t *streamTransport) post(ctx context.Context, body []byte, what string) error {
	if t.ended.Load() {
		return transport.ErrSessionTerminated
	}
	c, resp, sent, err := t.exchange(ctx, http.MethodPost, body, "", false)
	if err != nil {
		return err
	}
	defer func() { t.release(c) }()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusAccepted, http.StatusNoContent:
		if !discardBody(resp.Body) {
			c.broken = true
		}
		return nil
	}
	return t.failed(c, resp, sent, what)
}

// failed turns an answer with an error status into an error, or into the
// JSON-RPC error the body carries (server-everything, for one, answers a
// stale session with 400 and a JSON-RPC error).
func (t *streamTransport) failed(c *httpConn, resp *http.Response, sentSession bool, what string) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil || !discardBody(resp.Body) {
		c.broken = true
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && sentSession:
		t.endSession()
		return transport.ErrSessionTerminated
	case resp.StatusCode == http.StatusNotFound && what == string(mcp.MethodInitialize):
		return fmt.Errorf("HTTP 404 from %s: no streamable HTTP MCP endpoint there (check the URL; a server with the older SSE transport needs transport sse)", t.target)
	case resp.StatusCode == http.StatusUnauthorized:
		msg := fmt.Sprintf("HTTP 401 from %s: the server asks for a login (mcp-router servers login NAME, or Log in on the Servers page)", t.target)
		if rm := resourceMetadata(resp.Header.Values("WWW-Authenticate")); rm != "" && visibleASCII(rm) {
			msg += "; its resource metadata: " + rm
		}
		if s := snippet(body); s != "" {
			msg += ": " + s
		}
		return &needsLoginError{msg: msg}
	case resp.StatusCode == http.StatusForbidden:
		msg := fmt.Sprintf("HTTP %d from %s: the server refused the request's credentials (set the header it expects, e.g. Authorization, in the server's headers)", resp.StatusCode, t.target)
		if s := snippet(body); s != "" {
			msg += ": " + s
		}
		return errors.New(msg)
	}
	var e struct {
		Error *mcp.JSONRPCErrorDetails `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != nil {
		return &RPCError{Code: e.Error.Code, Message: e.Error.Message, Data: e.Error.Data}
	}
	msg := fmt.Sprintf("HTTP %d from %s for %s", resp.StatusCode, t.target, what)
	if s := snippet(body); s != "" {
		msg += ": " + s
	}
	return errors.New(msg)
}

// snippet is the start of a body for an error message, on one line.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func mediaType(resp *http.Response) string {
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream") && (len(ct) == 17 || ct[17] == ';'):
		return "text/event-stream"
	case ct == "application/json":
		return ct
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt
}

// visibleASCII: what the spec allows in a session id (0x21–0x7E).
func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}

// discardBody reads what is left of a body (up to 1 MiB), so that its
// connection can be reused; false if it could not be.
func discardBody(body io.Reader) bool {
	n, err := io.Copy(io.Discard, io.LimitReader(body, 1<<20))
	return err == nil && n < 1<<20
}
