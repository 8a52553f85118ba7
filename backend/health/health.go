// Package health serves the probes a load balancer or an orchestrator
// asks a router replica: /livez (is the process serving?) and /healthz (is
// it ready: does its database answer?). Neither needs a token, so neither
// says more than ok or a short, fixed reason; the full error goes to the
// log.
package health

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// Paths of the probes.
const (
	PathReady = "/healthz"
	PathLive  = "/livez"
)

// DefaultTimeout bounds how long /healthz waits for the database.
const DefaultTimeout = 2 * time.Second

// Options configure Handler.
type Options struct {
	// Ping asks the database (store.Store.Ping). Required.
	Ping func(ctx context.Context) error
	// Timeout bounds one check; default DefaultTimeout.
	Timeout time.Duration
	// Logger gets the full error when the database stops answering (and a
	// line when it answers again); default logrus' standard logger.
	Logger logrus.FieldLogger
}

// Handler serves /healthz and /livez.
type Handler struct {
	ping    func(ctx context.Context) error
	timeout time.Duration
	log     logrus.FieldLogger

	mu       sync.Mutex
	inflight *check // the check running now, shared by probes that arrive meanwhile
	failing  bool   // the last check failed (logged once per change)
}

type check struct {
	done   chan struct{}
	reason string // "" when the database answered
}

// New returns the probes' handler.
func New(o Options) *Handler {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	return &Handler{ping: o.Ping, timeout: o.Timeout, log: o.Logger}
}

// ServeHTTP answers GET and HEAD at PathReady and PathLive.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	switch strings.TrimSuffix(r.URL.Path, "/") {
	case PathLive:
		writeText(w, http.StatusOK, "ok")
	case PathReady:
		if reason := h.Ready(r.Context()); reason != "" {
			writeText(w, http.StatusServiceUnavailable, reason)
			return
		}
		writeText(w, http.StatusOK, "ok")
	default:
		http.NotFound(w, r)
	}
}

// Ready checks the database and returns "" when it answered within the
// timeout, else the reason a probe may see. It returns within the timeout
// even when Ping ignores its context (a driver stuck in a syscall): the
// probe is answered, and the stuck check is shared by the probes that come
// after it instead of piling up goroutines.
func (h *Handler) Ready(ctx context.Context) string {
	c := h.start()
	timer := time.NewTimer(h.timeout)
	defer timer.Stop()
	select {
	case <-c.done:
		return c.reason
	case <-timer.C:
		return "database did not answer within " + h.timeout.String()
	case <-ctx.Done():
		return "probe cancelled"
	}
}

// start returns the check in flight, or starts one.
func (h *Handler) start() *check {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.inflight != nil {
		return h.inflight
	}
	c := &check{done: make(chan struct{})}
	h.inflight = c
	go h.run(c)
	return c
}

func (h *Handler) run(c *check) {
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	err := h.ping(ctx)
	switch {
	case err == nil:
	case errors.Is(err, context.DeadlineExceeded):
		c.reason = "database did not answer within " + h.timeout.String()
	default:
		c.reason = "database unavailable (the router's log has the error)"
	}
	h.mu.Lock()
	h.inflight = nil
	changed := h.failing != (err != nil)
	h.failing = err != nil
	h.mu.Unlock()
	close(c.done)
	if changed {
		if err != nil {
			h.log.WithError(err).Warn("readiness: the database does not answer; /healthz answers 503")
		} else {
			h.log.Info("readiness: the database answers again; /healthz answers 200")
		}
	}
}

func writeText(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
