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
)

// ServeOptions tune Serve.
type ServeOptions struct {
	Addr   string // host:port; default the listen and port settings
	NoAuth bool   // serve without tokens whatever the auth setting says
	// Ready, if set, is called with the bound address once listening.
	Ready func(addr string)
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
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	errs := make(chan error, 1)
	go func() { errs <- srv.Serve(ln) }()
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
