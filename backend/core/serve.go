package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/gateway"
	"github.com/mcp-router/mcp-router/backend/hotpath"
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
		return c.Auth.Middleware(authOn, next)
	})
	if o.UI != nil {
		mux := http.NewServeMux()
		mux.Handle("/ui/", gateway.GuardLocal(o.UI))
		mux.Handle("/ui", http.RedirectHandler("/ui/", http.StatusMovedPermanently))
		mux.Handle("/", handler)
		handler = mux
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		err = fmt.Errorf("cannot listen on %s: %w", addr, err)
		c.setEndpoint(EndpointState{Err: err.Error()})
		return err
	}
	c.setEndpoint(EndpointState{Addr: ln.Addr().String(), Running: true})
	defer func() {
		if st := c.Endpoint(); st.Addr == ln.Addr().String() {
			c.setEndpoint(EndpointState{})
		}
	}()
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	errs := make(chan error, 1)
	go func() { errs <- srv.Serve(hotpath.Listener(ln)) }()
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		// Open SSE streams do not end by themselves.
		_ = srv.Close()
	}
	if err := <-errs; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ServeStdio serves the gateway on in/out (JSON-RPC, one message per line)
// until in ends or ctx is cancelled.
func (c *Core) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	s := server.NewStdioServer(c.Gateway.Server())
	s.SetErrorLogger(log.New(logrus.StandardLogger().WriterLevel(logrus.DebugLevel), "", 0))
	err := s.Listen(ctx, in, out)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
