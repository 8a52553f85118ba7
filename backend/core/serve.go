package core

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/connlimit"
	"github.com/mcp-router/mcp-router/backend/discovery"
	"github.com/mcp-router/mcp-router/backend/gateway"
	"github.com/mcp-router/mcp-router/backend/health"
	"github.com/mcp-router/mcp-router/backend/hotpath"
	"github.com/mcp-router/mcp-router/backend/leanhttp"
	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// ServeOptions tune Serve.
type ServeOptions struct {
	Addr   string // host:port; default the listen and port settings
	NoAuth bool   // serve without tokens whatever the auth setting says
	// Ready, if set, is called with the bound address once listening.
	Ready func(addr string)
	// UI, if set, is served at /ui/ on the same listener, behind the same
	// Host/Origin guard as /mcp; it does its own authentication.
	UI http.Handler
}

// EndpointState is what the HTTP endpoint is doing.
type EndpointState struct {
	Addr    string // bound host:port while running
	Running bool
	Err     string // why it is not running, if it failed
}

// Endpoint reports the state of the HTTP endpoint Serve runs.
func (c *Core) Endpoint() EndpointState {
	c.epMu.Lock()
	defer c.epMu.Unlock()
	return c.ep
}

func (c *Core) setEndpoint(st EndpointState) {
	c.epMu.Lock()
	c.ep = st
	c.epMu.Unlock()
}

// Serve runs the HTTP endpoint (/mcp and the legacy /sse) until ctx ends,
// then shuts down gracefully.
func (c *Core) Serve(ctx context.Context, o ServeOptions) error {
	addr := o.Addr
	if addr == "" {
		addr = c.Settings.ListenAddr(ctx)
	}
	authOn := func(ctx context.Context) bool { return !o.NoAuth && c.Settings.AuthEnabled(ctx) }
	handler := c.Gateway.HTTPHandler(func(next http.Handler) http.Handler {
		return c.Auth.Middleware(authOn, c.profileScope(upstreamAuthorization(next)))
	})
	mux := http.NewServeMux()
	// Public documents (docs/auth.md, docs/discovery.md): no token needed.
	prm := gateway.GuardLocal(c.protectedResourceMetadata())
	mux.Handle(auth.MetadataPath, prm)
	mux.Handle("/.well-known/oauth-protected-resource", prm)
	mux.Handle(oauthclient.ClientMetadataPath, gateway.GuardLocal(c.clientMetadata()))
	disc := gateway.GuardLocal(discovery.Handler(func(r *http.Request) discovery.Description { return c.describe(r, o.NoAuth) }))
	for _, p := range []string{discovery.PathWellKnownMCP, discovery.PathWellKnownMCPJSON, discovery.PathAICatalog,
		gateway.PathMCP + discovery.ServerCardSuffix} {
		mux.Handle(p, disc)
	}
	mux.Handle(PathMetrics, c.metricsHandler(authOn))
	// Probes of a load balancer or orchestrator (docs/team.md): no token.
	probes := gateway.GuardLocal(health.New(health.Options{Ping: c.Store.Ping, Logger: c.Log}))
	mux.Handle(health.PathReady, probes)
	mux.Handle(health.PathLive, probes)
	if o.UI != nil {
		mux.Handle("/ui/", gateway.GuardLocal(o.UI))
		mux.Handle("/ui", http.RedirectHandler("/ui/", http.StatusMovedPermanently))
	}
	mux.Handle("/", traceHeaders(c.Tracer, handler))
	handler = mux
	maxConns, err := connlimit.Max(nil)
	if err != nil {
		c.setEndpoint(EndpointState{Err: err.Error()})
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		err = fmt.Errorf("cannot listen on %s: %w", addr, err)
		if errors.Is(err, syscall.EADDRINUSE) {
			err = fmt.Errorf("%w%s", err, heldBy(addr))
		}
		c.setEndpoint(EndpointState{Err: err.Error()})
		return err
	}
	c.setEndpoint(EndpointState{Addr: ln.Addr().String(), Running: true})
	if c.Cluster != nil {
		// Without --advertise, other replicas reach this one here.
		c.Cluster.SetListenAddr(ln.Addr().String())
	}
	defer func() {
		if st := c.Endpoint(); st.Addr == ln.Addr().String() {
			c.setEndpoint(EndpointState{})
		}
	}()
	// A connection waiting for a request is closed after these
	// (docs/limits.md, "Connections"); the lean path keeps them too.
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	// At most maxConns open at once (docs/limits.md, "Connections").
	capped := connlimit.New(hotpath.Listener(ln), maxConns, c.connectionRefused())
	c.conns.Store(capped)
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	errs := make(chan error, 1)
	var served net.Listener = capped
	var lean *leanhttp.Server
	if leanhttp.Enabled() {
		// A client's tool calls on a kept-alive connection skip net/http's
		// per-request work (docs/endpoint.md); everything else is net/http's.
		lean = leanhttp.New(srv, served, func(method, path string) bool {
			return method == http.MethodPost && path == gateway.PathMCP
		})
		served = lean.Listener()
	}
	go func() { errs <- srv.Serve(served) }()
	select {
	case err := <-errs:
		if lean != nil {
			_ = lean.Close() // its connections end with the endpoint
		}
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdown)
	if lean != nil {
		err = errors.Join(err, lean.Shutdown(shutdown))
	}
	if err != nil {
		// Open SSE streams do not end by themselves.
		_ = srv.Close()
		if lean != nil {
			_ = lean.Close()
		}
	}
	if err := <-errs; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// upstreamAuthorization takes a client's X-Upstream-Authorization (and
// X-Upstream-Authorization-For, its values per server) off the
// request (nothing after it sees or logs the header) and puts its value in
// the request's context, where only the transports of servers with
// passUpstreamAuth read it, for this request's calls (docs/auth.md). It
// runs after authentication: an unauthenticated request never gets here.
type rawUpstreamAuthKey struct{}

// forwardHeaders are the client's upstream credential headers as it sent
// them (upstreamAuthorization took them off the request): a request
// forwarded to another replica carries them again.
func forwardHeaders(ctx context.Context) http.Header {
	h, _ := ctx.Value(rawUpstreamAuthKey{}).(http.Header)
	return h
}

func upstreamAuthorization(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vals := r.Header.Values(upstream.HeaderUpstreamAuthorization)
		per := r.Header.Values(upstream.HeaderUpstreamAuthorizationFor)
		if len(vals) == 0 && len(per) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		r.Header.Del(upstream.HeaderUpstreamAuthorization)
		r.Header.Del(upstream.HeaderUpstreamAuthorizationFor)
		if len(vals) > 1 {
			http.Error(w, upstream.HeaderUpstreamAuthorization+" is given more than once", http.StatusBadRequest)
			return
		}
		var a upstream.ClientAuthorization
		if len(vals) == 1 {
			a.All = strings.TrimSpace(vals[0])
			if err := upstream.CheckClientAuthorization(a.All); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		m, err := upstream.ParseClientAuthorizationFor(per)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a.PerServer = m
		ctx := upstream.WithClientAuthorizations(r.Context(), a)
		// As sent, for a forward to the replica holding the session
		// (forwardHeaders).
		ctx = context.WithValue(ctx, rawUpstreamAuthKey{}, http.Header{
			upstream.HeaderUpstreamAuthorization: vals, upstream.HeaderUpstreamAuthorizationFor: per})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// FirstListWait bounds how long the first list request of a stdio session
// (tools/list, prompts/list, resources/list, resources/templates/list)
// waits for servers that are still starting.
const FirstListWait = 5 * time.Second

// ServeStdio serves the gateway on in/out (JSON-RPC, one message per line)
// until in ends or ctx is cancelled. It answers initialize at once, with
// what is running; the session's first list request waits up to
// FirstListWait for servers still starting (so a client that lists once and
// leaves, such as the Inspector CLI, sees the servers that start quickly),
// and each server that comes up later reaches the client as list_changed.
func (c *Core) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	s := server.NewStdioServer(c.Gateway.Server())
	s.SetErrorLogger(log.New(logrus.StandardLogger().WriterLevel(logrus.DebugLevel), "", 0))
	// The first list request waits before anything answers it: the front
	// below answers list requests itself (the list fast path), so the
	// gate reads the client's lines ahead of it.
	in = &firstListGate{src: bufio.NewReader(in), wait: func() {
		wctx, cancel := context.WithTimeout(ctx, FirstListWait)
		defer cancel()
		c.WaitStarted(wctx)
		c.Gateway.Rebuild()
	}}
	// Task requests are the router's to answer (docs/endpoint.md, "Tasks").
	in, out = c.Gateway.StdioFront(ctx, in, out)
	err := s.Listen(ctx, in, out)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// ServeFollowing is Serve on the address of the listen and port settings
// that moves, in place, whenever they change (from the Settings page or the
// CLI): the endpoint on the old address shuts down (its clients reconnect)
// and one on the new address starts. A failure to listen is reported by
// Endpoint and, unless retry is set, returned if it happens at the first
// start; afterwards (or with retry) the next change of the settings is
// awaited. With o.Addr set it is plain Serve.
func (c *Core) ServeFollowing(ctx context.Context, o ServeOptions, retry bool) error {
	if o.Addr != "" {
		return c.Serve(ctx, o)
	}
	changed := make(chan struct{}, 1)
	unsubscribe := c.OnDatabaseChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer unsubscribe()
	for first := true; ; first = false {
		addr := c.Settings.ListenAddr(ctx)
		sctx, stop := context.WithCancel(ctx)
		so := o
		so.Addr = addr
		done := make(chan error, 1)
		go func() { done <- c.Serve(sctx, so) }()
		returned, err := c.serveUntilMoved(ctx, addr, changed, done)
		stop()
		if !returned {
			<-done
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil && first && !retry:
			return err
		case err != nil:
			c.Log.Errorf("MCP endpoint: %v (change the port or listen setting to try again)", err)
			if !c.awaitAddrChange(ctx, addr, changed) {
				return nil
			}
		}
	}
}

// serveUntilMoved waits until ctx ends, the settings name another address,
// or Serve returns (returned, with its error).
func (c *Core) serveUntilMoved(ctx context.Context, addr string, changed <-chan struct{}, done <-chan error) (returned bool, err error) {
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case err := <-done:
			if err == nil {
				err = fmt.Errorf("MCP endpoint on %s stopped", addr)
			}
			return true, err
		case <-changed:
			next := c.Settings.ListenAddr(ctx)
			if next == addr {
				continue
			}
			c.Log.Infof("the listen address changed to %s: moving the MCP endpoint from %s", next, addr)
			return false, nil
		}
	}
}

// awaitAddrChange waits for the settings to name an address other than
// addr; false when ctx ended first.
func (c *Core) awaitAddrChange(ctx context.Context, addr string, changed <-chan struct{}) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-changed:
			if c.Settings.ListenAddr(ctx) != addr {
				return true
			}
		}
	}
}

// firstListGate passes stdin through line by line and, before handing over
// the first list request, runs wait once.
type firstListGate struct {
	src     *bufio.Reader
	wait    func()
	waited  bool
	buf     []byte
	pending error // the source's error, returned once buf is drained
}

func (g *firstListGate) Read(p []byte) (int, error) {
	if len(g.buf) == 0 {
		if g.pending != nil {
			return 0, g.pending
		}
		line, err := g.src.ReadBytes('\n')
		g.buf, g.pending = line, err
		if len(line) == 0 {
			return 0, err
		}
		if !g.waited && isListRequest(line) {
			g.waited = true
			g.wait()
		}
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// isListRequest reports whether line is a request for one of the lists.
func isListRequest(line []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	switch m.Method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		return true
	}
	return false
}

// heldBy says which process holds addr's port: " (held by pid 123
// (mcp-router); is MCP Router already running?)", or a hint without the
// process where the platform does not tell.
func heldBy(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	port, err2 := strconv.Atoi(p)
	if err != nil || err2 != nil {
		return ""
	}
	if who := portHolder(port); who != "" {
		return " (held by " + who + "; is MCP Router already running?)"
	}
	return " (another process holds the port; is MCP Router already running?)"
}

// connectionRefused logs a connection refused at the cap, at most once
// every 10 s, with how many were refused since the last word.
func (c *Core) connectionRefused() func(max int) {
	var mu sync.Mutex
	var last time.Time
	var since int
	return func(max int) {
		mu.Lock()
		defer mu.Unlock()
		since++
		if time.Since(last) < 10*time.Second {
			return
		}
		c.Log.WithField("refused", since).Warnf("endpoint: too many connections: %d are open, the most it holds at once (%s); new ones get HTTP 503 until some close", max, connlimit.EnvMax)
		last, since = time.Now(), 0
	}
}
