package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/hotpath"
	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/tracing"
)

// upstreamProtocol is the handshake's revision, pinned: mcp-go's client
// otherwise probes server/discover, takes any answer as 2026-07-28 and
// then fails against servers that only speak the 2025-11-25 handshake (see
// PEERS.md). The router probes itself (discover.go), reading the revisions
// the answer names: an HTTP server that names 2026-07-28 is used on it,
// without the handshake (modern.go); any other goes through initialize.
const upstreamProtocol = mcp.ProtocolVersion20251125

// conn is one live connection to an upstream: the mcp-go client for the
// handshake and notifications, the transport for raw requests, and for stdio
// the process behind it.
type conn struct {
	spec   spec.Server
	client *client.Client
	tr     transport.Interface
	proc   *process
	init   *mcp.InitializeResult
	// discovered: what the server/discover probe before initialize
	// learned (discover.go); zero when it was not sent.
	discovered discovery
	// modernEra: the connection is on 2026-07-28 (modern.go), with no
	// initialize and no session; nil on the handshake's revision.
	modernEra *modernState
	cancel    context.CancelFunc
	// login: the server's OAuth login for mcp-go's transports (SSE, HTTP
	// through a proxy), whose 401s request refreshes here; nil otherwise.
	login *loginAuth

	ids atomic.Int64

	lostOnce   sync.Once
	lost       chan struct{}
	lostReason atomic.Value // string
	closeOnce  sync.Once
	// exitGrace: how long awaitExit waits (defaultExitGrace when 0).
	exitGrace time.Duration
}

type dialOptions struct {
	clientInfo     mcp.Implementation
	clientSide     ClientSide
	console        *Console
	onNotification func(mcp.JSONRPCNotification)
	// onCallNote, if set, takes the notifications an HTTP server sends on
	// a call's own answer stream, with the call's context (the router's
	// own transport only; mcp-go's lose it).
	onCallNote func(context.Context, mcp.JSONRPCNotification)
	self       identity // who this router is: a server that answers as it is refused
	builtins   map[string]*server.MCPServer
	authorizer Authorizer // OAuth logins of HTTP servers (login.go); nil: none
	secrets    Secrets    // values of secret env and headers; nil: none
	maxMessage int        // cap of one message from the server; 0: DefaultMaxMessage
}

func (o dialOptions) login(s spec.Server) *loginAuth {
	if o.authorizer == nil {
		return nil
	}
	return &loginAuth{a: o.authorizer, server: s.Name, url: s.URL}
}

// dial connects to s and performs the initialize handshake within ctx. The
// connection itself lives until close, independent of ctx.
//
// On mcp-go's transports (SSE, HTTP through a proxy) a 401 to the login's
// token, on the stream's GET or the handshake, refreshes the token
// (retryAfter401) and connects once more; a second 401 is the error.
func dial(ctx context.Context, s spec.Server, o dialOptions) (*conn, error) {
	s, err := resolveSecrets(s, o.secrets)
	if err != nil {
		return nil, err
	}
	c, sent, err := dialOnce(ctx, s, o)
	if err == nil || sent == "" {
		return c, err
	}
	retry, rerr := o.login(s).retryAfter401(ctx, sent, err)
	if !retry {
		if rerr != err {
			return nil, fmt.Errorf("connect: %w", rerr)
		}
		return nil, err
	}
	c, _, err = dialOnce(ctx, s, o)
	return c, err
}

// resolveSecrets reads the values of s's secret entries, at each start:
// a value set since the last one is used, and none outlives the
// connection's own copy of the definition.
func resolveSecrets(s spec.Server, sec Secrets) (spec.Server, error) {
	if len(s.SecretEnv) == 0 && len(s.SecretHeaders) == 0 {
		return s, nil
	}
	if sec == nil {
		return s, fmt.Errorf("server %q has secret entries and this router reads no secret store: %w", s.Name, secrets.ErrNotFound)
	}
	return sec.Resolve(s)
}

// dialOnce is one attempt of dial; sent is the login's value when a 401 to
// it failed the attempt (mcp-go's transports only), else "".
func dialOnce(ctx context.Context, s spec.Server, o dialOptions) (_ *conn, sent string, _ error) {
	life, cancel := context.WithCancel(context.Background())
	c := &conn{spec: s, cancel: cancel, lost: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			c.close()
		}
	}()

	switch s.Transport {
	case spec.Stdio:
		p, err := startProcess(s, o.console, o.self.childEnv())
		if err != nil {
			return nil, "", err
		}
		c.proc = p
		pt := newPipeTransport(hotpath.File(p.stdout), hotpath.File(p.stdin))
		pt.max = o.messageCap()
		pt.onDropped = func(err error) {
			if o.console != nil {
				o.console.Add("[mcp-router] " + err.Error())
			}
		}
		c.tr = pt
		go func() {
			select {
			case <-p.exited:
				c.markLost(p.exitReason())
			case <-life.Done():
			}
		}()
	case spec.HTTP:
		tr, err := newHTTPTransport(s, o.login(s), o.messageCap(), o.onCallNote)
		if err != nil {
			return nil, "", err
		}
		c.tr = tr
		if _, own := tr.(*streamTransport); !own {
			c.login = o.login(s)
		}
	case spec.Builtin:
		srv := o.builtins[s.Name]
		if srv == nil {
			return nil, "", fmt.Errorf("%w: %q runs only inside the router", ErrNoBuiltin, s.Name)
		}
		// mcp-go's in-process transport: each request is the server's
		// HandleMessage on the caller's goroutine, with the caller's
		// context (which carries the pipeline's caller); the server's
		// notifications come back through the session it registers.
		c.tr = transport.NewInProcessTransport(srv)
	case spec.SSE:
		opts := []transport.ClientOption{transport.WithHeaders(s.Headers), transport.WithSSELogger(quietLogger),
			transport.WithHTTPClient(cappedClient(o.messageCap()))}
		var auth func(context.Context) map[string]string
		if l := o.login(s); l != nil {
			auth = loginHeaders(s.Name, s.PassUpstreamAuth, l)
		} else if s.PassUpstreamAuth {
			auth = clientAuthHeaders(s.Name)
		}
		// mcp-go takes one header func: the call's trace context joins
		// the authorization's.
		opts = append(opts, transport.WithHeaderFunc(withTraceHeaders(auth)))
		tr, err := transport.NewSSE(s.URL, opts...)
		if err != nil {
			return nil, "", fmt.Errorf("bad URL %q: %w", s.URL, err)
		}
		c.tr = tr
		c.login = o.login(s)
	default:
		return nil, "", fmt.Errorf("unknown transport %q", s.Transport)
	}

	if c.login != nil {
		// mcp-go's header func can only leave out a login that has ended
		// (or cannot be refreshed now): say so here, as the router's own
		// transport does, rather than as the server's 401.
		if _, err := c.login.value(ctx); err != nil {
			return nil, "", fmt.Errorf("connect: %w", err)
		}
	}
	opts := append([]client.ClientOption{client.WithProtocolVersion(upstreamProtocol)}, o.clientSide.clientOptions(s.Name)...)
	c.client = client.NewClient(c.tr, opts...)
	c.client.OnConnectionLost(func(err error) { c.markLost("connection lost: " + err.Error()) })
	if o.onNotification != nil {
		c.client.OnNotification(o.onNotification)
	}
	// The SSE transport's stream lives on the context given to Start.
	startCtx, startSent := withSentLogin(life)
	if err := c.client.Start(startCtx); err != nil {
		return nil, startSent.get(), fmt.Errorf("connect: %w", fromMCPGo(err, redactedURL(s.URL)))
	}
	// Ask the server which revisions it speaks (discover.go; HTTP on the
	// router's own transport only, unless the server's protocol setting
	// says otherwise). One that names 2026-07-28 is used on it, with no
	// handshake (modern.go); any other answer, or none, leaves the
	// connection on the handshake (upstreamProtocol). The answer is shown
	// (Status.ProtocolVersions).
	switch {
	case s.Protocol == spec.Protocol20251125:
		// Pinned to the handshake: no probe.
	case s.Protocol == spec.Protocol20260728 || c.probes():
		if s.Protocol == spec.Protocol20260728 {
			if err := c.canSpeakModern(); err != nil {
				return nil, "", err
			}
		}
		d := c.discover(ctx, o.clientInfo)
		// This router reached again answers server/discover with its
		// instance id too: stop here, before the handshake.
		if err := o.self.checkInstance(d.instance, "server/discover answer"); err != nil {
			return nil, "", err
		}
		c.discovered = d
		if s.Protocol == spec.Protocol20260728 {
			if err := c.requireModern(d); err != nil {
				return nil, "", err
			}
		}
		if d.offersModern() {
			c.useModern(d, o)
			go c.listen(life, o.refreshAfterGap())
			ok = true
			return c, "", nil
		}
	}
	initCtx, initSent := withSentLogin(ctx)
	init, err := c.initialize(initCtx, o.clientInfo)
	if err != nil {
		if !errors.Is(err, ErrNeedsLogin) {
			return nil, "", err
		}
		return nil, initSent.get(), err
	}
	// This router reached again (through a proxy, a forwarded port, a
	// wrapper script): stop here, before listing anything from it.
	if err := o.self.check(init); err != nil {
		return nil, "", err
	}
	c.init = init
	ok = true
	return c, "", nil
}

func (c *conn) initialize(ctx context.Context, info mcp.Implementation) (*mcp.InitializeResult, error) {
	type result struct {
		r   *mcp.InitializeResult
		err error
	}
	// A stdio server that dies during the handshake must not leave us
	// waiting for the whole timeout.
	done := make(chan result, 1)
	go func() {
		r, err := c.client.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
			ProtocolVersion: upstreamProtocol,
			ClientInfo:      info,
		}})
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			c.awaitExit()
			if reason := c.lostWhy(); reason != "" {
				return nil, fmt.Errorf("initialize: %s", reason)
			}
			return nil, fmt.Errorf("initialize: %w", fromMCPGo(res.err, redactedURL(c.spec.URL)))
		}
		return res.r, nil
	case <-c.lost:
		return nil, fmt.Errorf("initialize: %s", c.lostWhy())
	}
}

// request sends one JSON-RPC request and returns its raw result. A JSON-RPC
// error from the server comes back as *RPCError.
func (c *conn) request(ctx context.Context, method string, params any) ([]byte, error) {
	return c.requestWithin(ctx, method, params, 0)
}

// requestWithin is request bounded by within (0: by ctx alone) when the
// transport keeps the time itself (pipeWithin); the caller bounds ctx
// otherwise. A request that runs out of time fails with timeoutCause and
// is cancelled upstream, as one whose context timed out.
func (c *conn) requestWithin(ctx context.Context, method string, params any, within time.Duration) ([]byte, error) {
	// The id, "mcpr-N", is a slice of its JSON text, which the pipe keys
	// the request by: one string for both.
	var buf [32]byte
	key := string(append(strconv.AppendInt(append(buf[:0], `"mcpr-`...), c.ids.Add(1), 10), '"'))
	id := mcp.NewRequestId(key[1 : len(key)-1])
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: c.inOwnEra(params)}
	if c.modernEra != nil {
		if isSubscriptionMethod(method) {
			return c.subscription(method, params)
		}
		if method == string(mcp.MethodSetLogLevel) {
			return c.setLevel(params)
		}
		raw, err := c.modernEra.withRequestMeta(params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		req.Params, req.Header = raw, standardHeaders(method, raw)
	}
	var resp *transport.JSONRPCResponse
	var err error
	if pt, ok := c.tr.(*pipeTransport); ok && within > 0 {
		resp, err = pt.sendRequestWithin(ctx, req, key, within)
	} else if c.login == nil {
		resp, err = c.tr.SendRequest(ctx, req)
	} else {
		// mcp-go's transports: a 401 to the login's token refreshes it
		// and sends the request once more (the server did nothing with
		// it), as the router's own transport does in exchange.
		sctx, sent := withSentLogin(ctx)
		resp, err = c.tr.SendRequest(sctx, req)
		if err != nil {
			var retry bool
			if retry, err = c.login.retryAfter401(ctx, sent.get(), err); retry {
				resp, err = c.tr.SendRequest(ctx, req)
			}
		}
	}
	if err != nil {
		// expired: the transport's own time ran out (only then is its
		// error ErrTimeout), as a context's deadline would have.
		expired := within > 0 && errors.Is(err, ErrTimeout)
		if (ctx.Err() != nil || expired) && !c.cancelsByClosing() {
			// On 2026-07-28 over HTTP the end of the request's stream
			// (the connection, closed with the context) is the cancel; a
			// pipe, on either revision, has only notifications/cancelled.
			cause := err
			if !expired {
				cause = context.Cause(ctx)
			}
			c.cancelUpstream(id, cause)
		}
		if errors.Is(err, transport.ErrSessionTerminated) {
			c.markLost("session expired (HTTP 404)")
		}
		err = fromMCPGo(err, redactedURL(c.spec.URL))
		if errors.Is(err, ErrNeedsLogin) && c.sentClientAuthorization(ctx) {
			// The server refused a client's own value (passUpstreamAuth):
			// that client's call fails; the connection, made with the
			// router's credentials, serves the others on.
			return nil, fmt.Errorf("%s: HTTP 401 from %s: the server refused the %s the client gave", method, redactedURL(c.spec.URL), HeaderUpstreamAuthorization)
		}
		if errors.Is(err, ErrNeedsLogin) {
			// The login ended (a refresh refused): the supervisor finds
			// that out on its next attempt and waits for a new login.
			c.markLost(reasonNeedsLogin + ": " + err.Error())
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if ctx.Err() == nil && !expired {
			// The transport failed by itself: if the process is ending,
			// the error names its exit. A request that timed out or was
			// cancelled returns its own error at once; it used to wait
			// out awaitExit's grace for a process that was still alive.
			c.awaitExit()
			if reason := c.lostWhy(); reason != "" {
				return nil, &lostError{method: method, reason: reason}
			}
		}
		return nil, err
	}
	if resp.Error != nil {
		return nil, &RPCError{Code: resp.Error.Code, Message: resp.Error.Message, Data: resp.Error.Data}
	}
	return resp.Result, nil
}

// sentClientAuthorization: a request made with ctx carries a client's
// Authorization (passUpstreamAuth) rather than the login's or the
// configured one.
func (c *conn) sentClientAuthorization(ctx context.Context) bool {
	v, ok := clientAuthorization(ctx, c.spec.Name)
	return c.spec.PassUpstreamAuth && ok && CheckClientAuthorization(v) == nil
}

// cancelUpstream tells the server to stop working on a request we gave up
// on (the client cancelled, or it timed out).
func (c *conn) cancelUpstream(id mcp.RequestId, cause error) {
	reason := "cancelled"
	if cause != nil {
		reason = cause.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = c.tr.SendNotification(ctx, mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason}},
		},
	})
}

// ping checks the server answers: ping on the handshake's revisions,
// server/discover on 2026-07-28, which has no ping.
func (c *conn) ping(ctx context.Context) error {
	method := string(mcp.MethodPing)
	if c.modernEra != nil {
		method = string(mcp.MethodServerDiscover)
	}
	_, err := c.request(ctx, method, nil)
	return err
}

// defaultExitGrace is how long awaitExit waits for a process to be reaped.
const defaultExitGrace = 200 * time.Millisecond

// awaitExit gives a stdio process that closed its stdout a moment to be
// reaped, so errors name its exit status instead of "transport closed".
func (c *conn) awaitExit() {
	if c.proc == nil {
		return
	}
	grace := c.exitGrace
	if grace == 0 {
		grace = defaultExitGrace
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.proc.exited:
		c.markLost(c.proc.exitReason())
	case <-t.C:
	}
}

// quietLogger swallows the transports' own logging: every failure they log
// also reaches the supervisor, which reports it with the server's name.
var quietLogger = slog.New(slog.DiscardHandler)

// markLost records why the connection ended; the first reason wins.
func (c *conn) markLost(reason string) {
	c.lostOnce.Do(func() {
		c.lostReason.Store(reason)
		close(c.lost)
	})
}

// isLost reports whether the connection is known to have ended.
func (c *conn) isLost() bool {
	select {
	case <-c.lost:
		return true
	default:
		return false
	}
}

func (c *conn) lostWhy() string {
	if r, ok := c.lostReason.Load().(string); ok {
		return r
	}
	return ""
}

// pid is the stdio process id, or 0.
func (c *conn) pid() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.pid()
}

// close ends the connection and, for stdio, stops the process tree.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.markLost("closed")
		if c.proc != nil {
			c.proc.stop()
		}
		if c.client != nil {
			_ = c.client.Close()
		}
		c.cancel()
	})
}

// fetchCatalog lists everything the server's capabilities announce.
func fetchCatalog(ctx context.Context, c *conn) (Catalog, error) {
	var cat Catalog
	var err error
	caps := c.init.Capabilities
	if caps.Tools != nil {
		if cat.Tools, cat.TTLs.Tools, err = listTools(ctx, c); err != nil {
			return cat, err
		}
	}
	if caps.Resources != nil {
		if cat.Resources, cat.TTLs.Resources, err = listResources(ctx, c); err != nil {
			return cat, err
		}
		if cat.ResourceTemplates, cat.TTLs.ResourceTemplates, err = listResourceTemplates(ctx, c); err != nil {
			// Templates are optional even when resources are offered.
			var rpcErr *RPCError
			if !errors.As(err, &rpcErr) {
				return cat, err
			}
		}
	}
	if caps.Prompts != nil {
		if cat.Prompts, cat.TTLs.Prompts, err = listPrompts(ctx, c); err != nil {
			return cat, err
		}
	}
	return cat, nil
}

// redactedURL is u without a password, for messages.
func redactedURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.Redacted()
}

// withTraceHeaders adds the call's W3C trace context (backend/tracing) to
// the headers auth gives (nil: none) of a legacy SSE server's POST.
func withTraceHeaders(auth func(context.Context) map[string]string) func(context.Context) map[string]string {
	return func(ctx context.Context) map[string]string {
		var h map[string]string
		if auth != nil {
			h = auth(ctx)
		}
		if !tracing.HasParent(ctx) {
			return h
		}
		out := make(map[string]string, len(h)+2)
		for k, v := range h {
			out[k] = v
		}
		tracing.ToHeaders(ctx, out)
		return out
	}
}
