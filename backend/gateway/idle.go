package gateway

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"
)

// DefaultSessionIdleTTL is how long a streamable HTTP session may go with
// no request and no open stream before the router ends it.
//
// Most clients never end their session: the TypeScript SDK's client, for
// one, just closes its connections when its process exits. With the event
// store, mcp-go keeps such a session (its registration, its GET stream's
// pump, its stored events) until a DELETE, so a router running for weeks
// would collect one per client restart. A live client keeps its GET stream
// open, which keeps its session however long it stays quiet; one without a
// stream that comes back after the TTL gets 404 and, as the transport spec
// requires, initializes a new session.
const DefaultSessionIdleTTL = time.Hour

// idleSessions follows the activity of the streamable HTTP sessions and
// ends those idle for longer than ttl. It learns of sessions from mcp-go's
// register and unregister hooks, as the fast path does, so ids the router
// never issued take no room here. Sweeps run when a session is registered,
// the moment a restarted client leaves its old one, and at most every
// ttl/4; between them a router holds at most the sessions abandoned since
// the last one.
type idleSessions struct {
	ttl       time.Duration
	end       func(id string) // ends the session as the client's DELETE would; set by HTTPHandler
	log       logrus.FieldLogger
	sessions  sync.Map // session id → *sessionActivity
	lastSweep atomic.Int64
	sweeping  atomic.Bool
	swept     atomic.Uint64 // sessions ended (tests read it)
}

type sessionActivity struct {
	last atomic.Int64 // unix nanoseconds: when the latest request started or ended
	open atomic.Int32 // requests in progress, GET streams included
}

func (a *sessionActivity) touch() { a.last.Store(time.Now().UnixNano()) }

// newIdleSessions follows sessions through hooks. ttl ≤ 0 turns it off.
func newIdleSessions(ttl time.Duration, log logrus.FieldLogger, h *server.Hooks) *idleSessions {
	s := &idleSessions{ttl: ttl, log: log}
	if ttl <= 0 {
		return s
	}
	h.AddOnRegisterSession(func(_ context.Context, cs server.ClientSession) {
		if isStreamableSession(cs) {
			a := &sessionActivity{}
			a.touch()
			s.sessions.LoadOrStore(cs.SessionID(), a)
			s.sweep()
		}
	})
	h.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		s.sessions.Delete(cs.SessionID())
	})
	return s
}

// endThrough makes the sweeps end sessions through streamable, which must
// be mcp-go's handler for /mcp.
func (s *idleSessions) endThrough(streamable http.Handler) {
	s.end = func(id string) {
		req, _ := http.NewRequest(http.MethodDelete, "http://127.0.0.1"+PathMCP, nil)
		req.Header.Set(server.HeaderKeySessionID, id)
		streamable.ServeHTTP(discardResponse{header: http.Header{}}, req)
	}
}

// track wraps the /mcp handler: a request on a known session keeps it
// alive while it runs.
func (s *idleSessions) track(next http.Handler) http.Handler {
	if s.ttl <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, ok := s.sessions.Load(r.Header.Get(server.HeaderKeySessionID))
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		a := v.(*sessionActivity)
		a.touch()
		a.open.Add(1)
		defer func() {
			a.touch()
			a.open.Add(-1)
		}()
		next.ServeHTTP(w, r)
	})
}

// sweep ends, in the background, every session with nothing open and no
// request for longer than ttl.
func (s *idleSessions) sweep() {
	now := time.Now().UnixNano()
	if last := s.lastSweep.Load(); now-last < int64(s.ttl/4) || !s.lastSweep.CompareAndSwap(last, now) {
		return
	}
	if s.end == nil || !s.sweeping.CompareAndSwap(false, true) {
		return // no /mcp handler: no streamable sessions to end
	}
	go func() {
		defer s.sweeping.Store(false)
		cutoff := time.Now().Add(-s.ttl).UnixNano()
		s.sessions.Range(func(k, v any) bool {
			a := v.(*sessionActivity)
			if a.open.Load() == 0 && a.last.Load() < cutoff {
				s.sessions.Delete(k)
				s.end(k.(string))
				s.swept.Add(1)
				s.log.WithField("session", k).Infof("ended a session with no request and no open stream for over %s", s.ttl)
			}
			return true
		})
	}()
}

// discardResponse takes the answer to a DELETE the router sends itself.
type discardResponse struct{ header http.Header }

func (d discardResponse) Header() http.Header         { return d.header }
func (d discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d discardResponse) WriteHeader(int)             {}
