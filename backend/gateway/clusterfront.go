package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/cluster"
)

// Sessions across replicas (docs/team.md). With a cluster, a streamable
// session's id names the replica that holds it and is signed with the
// cluster secret. /mcp's front (after the token check, so the receiving
// replica checks the caller too) looks at the id first:
//   - one this cluster did not give out (forged, tampered, or a single
//     router's) is 404, as any unknown session, and goes nowhere;
//   - this replica's goes on as on a single router;
//   - another replica's is forwarded to it, once: the forward carries a
//     signed X-MCP-Router-Forwarded, and a request carrying one is never
//     forwarded again. The owner checks the token again. An owner gone is
//     404, so the client initializes a new session.
//
// A request whose X-MCP-Router-Forwarded does not verify is refused: no
// one outside the cluster may pose as a replica.
func (g *Gateway) clusterFront(next http.Handler) http.Handler {
	c := g.o.Cluster
	if c == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		forwarded := r.Header.Get(cluster.HeaderForwarded) != ""
		if forwarded {
			if _, err := c.VerifyForwarded(r, time.Now()); err != nil {
				http.Error(w, "forbidden: "+err.Error(), http.StatusForbidden)
				return
			}
		}
		sid := r.Header.Get(server.HeaderKeySessionID)
		if sid == "" || mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r) // initialize, or a stateless request: any replica serves it
			return
		}
		owner, ok := c.ParseSessionID(sid)
		switch {
		case !ok:
			unknownSession(w)
		case owner == c.Replica():
			g.sessions.refreshClaim(sid)
			next.ServeHTTP(w, r)
		case forwarded:
			// The sender thought this replica held the session; it does
			// not (a stale directory entry): never a second hop.
			unknownSession(w)
		default:
			c.Forward(w, g.withForwardHeaders(r), owner)
		}
	})
}

// forwardHeldRetry forwards a stateless client's MRTR retry to the
// replica that holds the upstream call its requestState names (a
// stateless request may land on any replica; the held call waits on one).
// It reports whether it answered. A state that does not verify, names no
// held call, or is this replica's is left to serveModern, as is a retry
// already forwarded once.
func (g *Gateway) forwardHeldRetry(w http.ResponseWriter, r *http.Request, body []byte) bool {
	c := g.o.Cluster
	if c == nil || r.Header.Get(cluster.HeaderForwarded) != "" || !bytes.Contains(body, []byte(`"requestState"`)) {
		return false
	}
	var msg struct {
		Params struct {
			RequestState string `json:"requestState"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Params.RequestState == "" {
		return false
	}
	st, err := g.held.verify(msg.Params.RequestState)
	if err != nil || st.Held == "" || st.Replica == "" || st.Replica == c.Replica() {
		return false
	}
	if _, err := c.Lookup(r.Context(), st.Replica); err != nil {
		return false // gone: serveModern says the call is no longer waiting
	}
	fwd := r.Clone(r.Context())
	fwd.Body = io.NopCloser(bytes.NewReader(bytes.Clone(body))) // body is a pooled buffer
	fwd.ContentLength = int64(len(body))
	c.Forward(w, g.withForwardHeaders(fwd), st.Replica)
	return true
}

// withForwardHeaders puts back on r what Options.ForwardHeaders says was
// taken off it, for the replica it is forwarded to.
func (g *Gateway) withForwardHeaders(r *http.Request) *http.Request {
	if g.o.ForwardHeaders == nil {
		return r
	}
	h := g.o.ForwardHeaders(r.Context())
	if len(h) == 0 {
		return r
	}
	r = r.Clone(r.Context())
	for k, vs := range h {
		r.Header[http.CanonicalHeaderKey(k)] = vs
	}
	return r
}

// claim records in Redis that this replica holds session s, for the idle
// timeout (the key outlives a quiet session no longer than the session).
func (t *sessionTable) claim(s *ownedSession) {
	if t.cluster == nil || s.legacySSE {
		return
	}
	s.claimed.Store(time.Now().UnixNano())
	ttl := t.currentLimits().IdleTTL
	go t.cluster.ClaimSession(context.Background(), s.id, ttl)
}

// refreshClaim renews a busy session's owner record, at most three times
// per idle timeout, so that a long-lived session keeps it.
func (t *sessionTable) refreshClaim(id string) {
	t.mu.RLock()
	s := t.byID[id]
	t.mu.RUnlock()
	if s == nil {
		return
	}
	if since := time.Since(time.Unix(0, s.claimed.Load())); since > t.currentLimits().IdleTTL/3 {
		t.claim(s)
	}
}
