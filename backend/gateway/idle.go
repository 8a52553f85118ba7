package gateway

import (
	"context"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Idle sessions (DefaultSessionIdleTTL says why they are ended). The
// session table learns of sessions from mcp-go's register and unregister
// hooks, so ids the router never issued take no room. Sweeps run when a
// session is registered, the moment a restarted client leaves its old one,
// and when one is asked for (so a credential at its cap gets back the slots
// of what it left idle), at most every TTL/4; between them a router holds
// at most the sessions abandoned since the last one.

// endThrough makes the sweeps end sessions through streamable, which must
// be mcp-go's handler for /mcp.
func (t *sessionTable) endThrough(streamable http.Handler) {
	t.end = func(id string) {
		ctx := context.WithValue(context.Background(), systemKey{}, true)
		req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, "http://127.0.0.1"+PathMCP, nil)
		req.Header.Set(server.HeaderKeySessionID, id)
		streamable.ServeHTTP(discardResponse{header: http.Header{}}, req)
	}
}

// sweep ends, in the background, every streamable session with nothing
// open and no request for longer than the idle TTL. Legacy SSE sessions
// end with their stream.
func (t *sessionTable) sweep() {
	ttl := t.currentLimits().IdleTTL
	now := time.Now().UnixNano()
	if last := t.lastSweep.Load(); now-last < int64(ttl/4) || !t.lastSweep.CompareAndSwap(last, now) {
		return
	}
	if t.end == nil || !t.sweeping.CompareAndSwap(false, true) {
		return // no /mcp handler: no streamable sessions to end
	}
	go func() {
		defer t.sweeping.Store(false)
		cutoff := time.Now().Add(-ttl).UnixNano()
		idle := func(s *ownedSession) bool { return s.open.Load() == 0 && s.last.Load() < cutoff }
		var ended []*ownedSession
		t.mu.RLock()
		for _, s := range t.byID {
			if !s.legacySSE && s.registered && idle(s) {
				ended = append(ended, s)
			}
		}
		t.mu.RUnlock()
		for _, s := range ended {
			if !idle(s) { // a request came meanwhile
				continue
			}
			t.end(s.id)
			t.swept.Add(1)
			t.log.WithField("session", s.id).Infof("ended a session with no request and no open stream for over %s", ttl)
		}
	}()
}

// discardResponse takes the answer to a DELETE the router sends itself.
type discardResponse struct{ header http.Header }

func (d discardResponse) Header() http.Header         { return d.header }
func (d discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d discardResponse) WriteHeader(int)             {}
