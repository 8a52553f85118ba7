package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// HeaderForwarded marks a request one replica forwarded to another:
// <replica>.<unix ms>.<mac>, the mac over those, the session id, the
// method and the path. A replica forwards a request at most once, and
// only a header that verifies counts: one made up outside the cluster is
// refused, not trusted.
const HeaderForwarded = "X-MCP-Router-Forwarded"

// ForwardConnectTimeout bounds connecting to the owner of a session.
const ForwardConnectTimeout = 2 * time.Second

// forwardWindow is how far a forwarded request's time may lie from ours.
const forwardWindow = 30 * time.Second

// ErrBadForward: a request's X-MCP-Router-Forwarded does not verify.
var ErrBadForward = errors.New("X-MCP-Router-Forwarded does not verify with the cluster secret")

func (c *Cluster) forwardMAC(replica, at, sessionID, method, path string) string {
	m := hmac.New(sha256.New, c.key("forwarded"))
	m.Write([]byte(strings.Join([]string{replica, at, sessionID, method, path}, "\n")))
	return b64.EncodeToString(m.Sum(nil)[:macBytes])
}

// signForward is the X-MCP-Router-Forwarded value for r forwarded by this
// replica now.
func (c *Cluster) signForward(r *http.Request, now time.Time) string {
	at := strconv.FormatInt(now.UnixMilli(), 10)
	sid := r.Header.Get("Mcp-Session-Id")
	return c.replica + "." + at + "." + c.forwardMAC(c.replica, at, sid, r.Method, r.URL.Path)
}

// VerifyForwarded checks r's X-MCP-Router-Forwarded: the replica that
// forwarded it, or ErrBadForward.
func (c *Cluster) VerifyForwarded(r *http.Request, now time.Time) (string, error) {
	v := r.Header.Get(HeaderForwarded)
	if len(v) > 128 {
		return "", ErrBadForward
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 || ValidReplicaName(parts[0]) != nil {
		return "", ErrBadForward
	}
	ms, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return "", ErrBadForward
	}
	if d := now.Sub(time.UnixMilli(ms)); d > forwardWindow || d < -forwardWindow {
		return "", ErrBadForward
	}
	want := c.forwardMAC(parts[0], parts[1], r.Header.Get("Mcp-Session-Id"), r.Method, r.URL.Path)
	if !hmac.Equal([]byte(want), []byte(parts[2])) {
		return "", ErrBadForward
	}
	return parts[0], nil
}

// newForwardTransport connects within ForwardConnectTimeout: a dead owner
// is a quick 404, not a hang. No proxy from the environment: replicas talk
// directly.
func newForwardTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: ForwardConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   ForwardConnectTimeout,
		ExpectContinueTimeout: time.Second,
	}
}

// Forward sends r to the replica named owner, once, and streams its answer
// back (SSE included, flushed as it comes). An owner not in the directory,
// or unreachable, is answered 404 so the client initializes a new session.
func (c *Cluster) Forward(w http.ResponseWriter, r *http.Request, owner string) {
	base, err := c.Lookup(r.Context(), owner)
	if err != nil {
		if !errors.Is(err, errNoReplica) {
			c.log.Warnf("%v", err)
		}
		goneOwner(w, owner)
		return
	}
	target, err := url.Parse(base)
	if err != nil {
		goneOwner(w, owner)
		return
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.SetXForwarded()
			pr.Out.Header.Set(HeaderForwarded, c.signForward(pr.Out, time.Now()))
		},
		Transport:     c.transport,
		FlushInterval: -1, // SSE: every event as it comes
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(r.Context().Err(), context.Canceled) {
				return // the client went away
			}
			c.log.Warnf("cluster: forwarding to replica %s at %s: %v", owner, base, err)
			goneOwner(w, owner)
		},
	}
	proxy.ServeHTTP(w, r)
}

// goneOwner answers a request for a session whose replica is gone, as for
// any unknown session.
func goneOwner(w http.ResponseWriter, owner string) {
	http.Error(w, fmt.Sprintf("Invalid session ID: its replica %s is gone; initialize a new session", owner), http.StatusNotFound)
}
